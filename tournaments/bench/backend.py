"""The Postgres backend behind this process's connection, whose CPU the benches read from /proc.

Its own module so that the event store's bench and the match-cost bench it runs can both use
it without importing each other."""

from __future__ import annotations

from django.db import connection


def backend_pid() -> int:
    """The pid of this process's Postgres backend (Postgres on this host: its CPU is read
    from /proc)."""
    with connection.cursor() as cur:
        cur.execute("SELECT pg_backend_pid()")
        row = cur.fetchone()
    assert row is not None
    return int(row[0])
