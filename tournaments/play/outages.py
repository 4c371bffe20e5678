"""A database outage: how one is told from any other error.

Postgres stopped, restarting or failing over, the connection refused or cut, the server out of
connections: none of it is the request's or the match's fault, and none of it lasts. The match
runner, the scheduler and the tasks leave the match to a later try (runner.py, scheduler.py,
tasks.py); the web answers 503 with ``Retry-After`` (the site's handler500,
tournaments/site/pages/errors.py; docs/reliability.md).
"""

from __future__ import annotations

import django.db
import psycopg

DATABASE_OUTAGE: tuple[type[Exception], ...] = (
    psycopg.OperationalError,
    psycopg.InterfaceError,
    django.db.OperationalError,
    django.db.InterfaceError,
)
"""Errors of the database server or the connection to it: connection refused or cut, the
server shutting down (admin shutdown) or starting up, too many connections. Whatever was not
committed is lost, and a later try resumes from what was."""


def is_database_outage(exc: BaseException) -> bool:
    """True if ``exc``, or an exception it was raised from or during, is a database outage.

    A failed flush is often followed by a failed clean-up (the rollback, the end of the
    COPY), so the outage may be the context of the exception that reaches the caller.
    """
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        if isinstance(current, DATABASE_OUTAGE):
            return True
        seen.add(id(current))
        # ``raise ... from None`` says the error replaced the one it was raised during.
        context = None if current.__suppress_context__ else current.__context__
        current = current.__cause__ or context
    return False
