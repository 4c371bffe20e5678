"""Games written for the tests only (never shipped in games/), each registered by one line in
the test settings (platform/config/settings/test.py)."""
