"""``manage.py bench load``: web load (locust) against a loopback server while workers play matches."""
