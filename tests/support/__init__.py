"""What the tests need beside the tests: a third game of their own (games/highcard)."""
