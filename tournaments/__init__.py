"""The Django side of play: bots, matches, ladders, seasons, ratings, Celery tasks and admin."""
