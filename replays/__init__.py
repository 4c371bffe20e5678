"""The event store: every game is one append-only stream of events in Postgres.

``store.py`` is the only code that writes events. Snapshots (``snapshots.py``)
are disposable caches of folded state; ``feed.py`` reads all streams in global
order for read models such as the ratings.
"""
