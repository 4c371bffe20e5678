"""Between transactional tests, empty the tables a test filled, not every table.

Django empties the database after each transactional test (some 200 of the suite's) with one
TRUNCATE of every table (40, the events table's partitions with them), which gives each table,
index and TOAST table new files, and then re-creates the content types and permissions
(post_migrate). Measured on this machine kind under a suite's load (2026-12-03, a finished
match's rows, 5 rounds): Django's flush 1,388 ms of wall, 62 ms of the test process' CPU and
130 ms of Postgres' a test; this one 179 ms, 3 ms and 10 ms.

A test leaves the database as Django's flush would: every table empty but the content types and
permissions, which hold what post_migrate writes. Under a lock that holds off writers (as
TRUNCATE's did), one query finds the tables holding rows; they are emptied by DELETE in one
transaction, whose deferred foreign keys are checked at its end, except the event store's tables,
which refuse a DELETE (append-only) and are truncated as Django did (the test settings allow it),
partition by partition, only the filled ones. The content types and permissions are left as
they are unless a test changed them (their count or highest id moved): then Django's own flush
runs.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.db import connections, transaction
from django.test import TransactionTestCase

KEPT = ("django_content_type", "auth_permission")
"""Filled by post_migrate, which Django's flush re-runs: kept when no test touched them."""


def _fingerprint(cursor: Any) -> tuple[Any, ...]:
    cursor.execute(
        " UNION ALL ".join(f"SELECT count(*), max(id) FROM {t}" for t in KEPT)  # noqa: S608 (constants)
    )
    return tuple(cursor.fetchall())


class _Baseline:
    """The content types' and permissions' fingerprint as post_migrate left them, per database
    name (a worker's database, taken the first time one of its tests ends)."""

    by_database: dict[str, tuple[Any, ...]] = {}


def _truncate_only(cursor: Any) -> set[str]:
    """Tables a DELETE is refused on: the event store's (a BEFORE TRUNCATE trigger marks them:
    the events table, its partitions, the archive)."""
    cursor.execute(
        "SELECT DISTINCT c.relname FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid "
        "WHERE NOT t.tgisinternal AND (t.tgtype & 32) <> 0 AND NOT c.relispartition"
    )
    return {name for (name,) in cursor.fetchall()}


def _partitions(cursor: Any, table: str) -> list[str]:
    """A partitioned table's partitions, or the table itself."""
    cursor.execute(
        "SELECT inhrelid::regclass::text FROM pg_inherits WHERE inhparent = %s::regclass", [table]
    )
    return [name for (name,) in cursor.fetchall()] or [table]


def _with_rows(cursor: Any, tables: list[str]) -> list[str]:
    quote = connections["default"].ops.quote_name
    cursor.execute(
        " UNION ALL ".join(
            f"SELECT %s WHERE EXISTS (SELECT FROM {quote(t)})"  # noqa: S608 (catalog names)
            for t in tables
        ),
        tables,
    )
    return [name for (name,) in cursor.fetchall()]


def empty_tables(alias: str = "default") -> bool:
    """Empty what the last test filled, as Django's flush leaves it; False if it could not (the
    kept tables changed), and Django's flush must run instead."""
    connection = connections[alias]
    quote = connection.ops.quote_name
    tables = connection.introspection.django_table_names(only_existing=True, include_views=False)
    with transaction.atomic(using=alias), connection.cursor() as cursor:
        # What holds rows is read under a lock that holds off writers (a worker a test started
        # may still be finishing a match) until the rows are gone, as TRUNCATE's lock did.
        cursor.execute(f"LOCK TABLE {', '.join(map(quote, tables))} IN SHARE ROW EXCLUSIVE MODE")
        fingerprint = _fingerprint(cursor)
        baseline = _Baseline.by_database.setdefault(connection.settings_dict["NAME"], fingerprint)
        if fingerprint != baseline:
            return False
        filled = [t for t in _with_rows(cursor, tables) if t not in KEPT]
        truncate_only = _truncate_only(cursor) if filled else set()
        truncated = [t for t in filled if t in truncate_only]
        # A partitioned table's TRUNCATE renews every partition's files: only the filled ones.
        truncated = [p for t in truncated for p in _with_rows(cursor, _partitions(cursor, t))]
        cursor.execute("SET CONSTRAINTS ALL DEFERRED")
        if truncated:
            cursor.execute(f"TRUNCATE {', '.join(map(quote, truncated))} CASCADE")
        for table in filled:
            if table not in truncate_only:
                cursor.execute(f"DELETE FROM {quote(table)}")  # noqa: S608 (catalog names)
    return True


def reset_if_interrupted(alias: str) -> None:
    """Close a connection left in the middle of a statement, so that the next one reconnects.

    pytest-timeout ends a test too slow under load by raising inside whatever it was waiting for,
    a query included; psycopg then refuses every later statement on that connection ("another
    command is already in progress"), and every test after it on the same xdist worker failed
    (21 errors after one timeout, two suites side by side, 2026-12-03)."""
    from psycopg import pq

    raw = connections[alias].connection
    if raw is not None and raw.pgconn.transaction_status == pq.TransactionStatus.ACTIVE:
        connections[alias].close()


def _fixture_teardown(
    original: Callable[[TransactionTestCase], None],
) -> Callable[[TransactionTestCase], None]:
    def teardown(self: TransactionTestCase) -> None:
        if self.available_apps is not None or self.serialized_rollback:
            original(self)  # a subset of apps, or restored data: Django's way
            return
        names = self._databases_names(include_mirrors=False)  # type: ignore[attr-defined]
        for alias in names:
            reset_if_interrupted(alias)
        if not all(empty_tables(alias) for alias in names):
            original(self)
            for alias in names:
                with connections[alias].cursor() as cursor:
                    _Baseline.by_database[connections[alias].settings_dict["NAME"]] = _fingerprint(
                        cursor
                    )

    return teardown


def pytest_configure(config: pytest.Config) -> None:
    TransactionTestCase._fixture_teardown = _fixture_teardown(  # type: ignore[method-assign]
        TransactionTestCase._fixture_teardown  # type: ignore[attr-defined]
    )
