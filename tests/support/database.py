"""Each xdist worker's test database, cloned from one migrated template of the run.

pytest-django migrates every worker's database from nothing: 34 migrations, about 3 s of the
worker's CPU, Postgres' own work and some 25 s of wall before its first test (2026-12-03), once
per worker. Here the first worker to need one migrates a template database under a Postgres
advisory lock, and every worker clones it (``CREATE DATABASE ... TEMPLATE``, a copy of the
files); Django then finds every migration applied (``keepdb``) and only checks. What a test sees
is the same database, so nothing else changes.

The template belongs to one run (its name carries xdist's run id): a later run, whose
migrations may differ, never meets it. The controller drops the run's templates when the run
ends, and at its start any of this checkout's that a killed run left behind.
"""

from __future__ import annotations

import contextlib
import socket
import zlib
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from django.db import connections, transaction
from pytest_django.fixtures import _get_databases_for_setup


def template_prefix() -> str:
    from django.conf import settings

    return f"{settings.DATABASES_TEST_NAME}_template_"


def _quoted(name: str) -> str:
    return connections["default"].ops.quote_name(name)


def _exists(cursor: Any, name: str) -> bool:
    cursor.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name])
    return cursor.fetchone() is not None


def _migrate_template(template: str) -> None:
    """Django's own test database creation (migrations and all), under the template's name."""
    connection = connections["default"]
    settings_dict = connection.settings_dict
    name, test = settings_dict["NAME"], dict(settings_dict["TEST"])
    settings_dict["TEST"] = {**test, "NAME": template}
    try:
        connection.creation.create_test_db(verbosity=0, autoclobber=True, serialize=False)
    finally:
        connection.close()  # a template must have no session open while it is copied
        settings_dict["NAME"], settings_dict["TEST"] = name, test


def clone_worker_database(run_id: str) -> None:
    """The worker's test database (dropped first if a killed run left it), a copy of the run's
    template, which the first worker to come here migrates while the others wait on its lock."""
    connection = connections["default"]
    template = f"{template_prefix()}{run_id}"
    own = connection.creation._get_test_db_name()
    with connection._nodb_cursor() as cursor:
        cursor.execute("SELECT pg_advisory_lock(%s)", [zlib.crc32(template.encode())])
        try:
            if not _exists(cursor, template):
                _migrate_template(template)
            cursor.execute(f"DROP DATABASE IF EXISTS {_quoted(own)} WITH (FORCE)")
            cursor.execute(f"CREATE DATABASE {_quoted(own)} TEMPLATE {_quoted(template)}")
            # A commit need not wait for the disk: the suite never crashes this server (the
            # outage tests crash clusters of their own), and a commit's effects are as visible
            # as ever; what it saves is the wait for a flush, on every one of the suite's commits
            # and those of the workers and servers the tests start (they use this database).
            cursor.execute(f"ALTER DATABASE {_quoted(own)} SET synchronous_commit = off")
        finally:
            cursor.execute("SELECT pg_advisory_unlock(%s)", [zlib.crc32(template.encode())])


def drop_templates(cursor: Any) -> None:
    """Every template of this checkout (a run's are no use once it has ended)."""
    cursor.execute(
        "SELECT datname FROM pg_database WHERE starts_with(datname, %s)", [template_prefix()]
    )
    for (name,) in cursor.fetchall():
        cursor.execute(f"DROP DATABASE IF EXISTS {_quoted(name)} WITH (FORCE)")


@pytest.fixture(scope="session")
def django_db_setup(
    request: pytest.FixtureRequest,
    django_test_environment: None,
    django_db_blocker: Any,
    django_db_modify_db_settings: None,
) -> Iterator[None]:
    """pytest-django's fixture of this name, but a worker clones the template rather than
    migrating (outside xdist, one process: migrated as pytest-django does)."""
    from django.test.utils import setup_databases, teardown_databases

    run_id = getattr(request.config, "workerinput", {}).get("testrunuid")
    aliases, serialized_aliases = _get_databases_for_setup(request.session.items)
    verbosity = request.config.option.verbose
    with django_db_blocker.unblock():
        if run_id:
            clone_worker_database(run_id[:12])
        databases = setup_databases(
            verbosity=verbosity,
            interactive=False,
            aliases=aliases,  # type: ignore[arg-type]  # django-stubs: a set works as well
            serialized_aliases=serialized_aliases,
            keepdb=bool(run_id),
        )
    # The worker's own database, named before the teardown: teardown_databases puts the
    # configured name (the database `make up` runs on) back into the settings.
    own = connections["default"].settings_dict["NAME"]
    yield
    with django_db_blocker.unblock():
        teardown_databases(databases, verbosity=verbosity)
        if run_id:  # cloned above, whatever the teardown did: gone when the worker ends
            from django.conf import settings

            # Only ever a test database of this run's naming: never the one `make up` serves.
            assert own.startswith(settings.DATABASES_TEST_NAME), own
            connections.close_all()
            with connections["default"]._nodb_cursor() as cursor:
                cursor.execute(f"DROP DATABASE IF EXISTS {_quoted(own)} WITH (FORCE)")


@contextlib.contextmanager
def shared_rows(django_db_blocker: Any) -> Iterator[None]:
    """Rows that a module's tests share, written once and rolled back when the module is done.

    For a module-scoped fixture whose data costs more than the tests that read it (a played
    match and its copies): it holds a transaction open around the module, so each test's own
    (pytest-django's, as ``django_db`` makes it) is a savepoint inside it, rolled back after the
    test as always. A test that writes sees its writes undone before the next, as before; what it
    cannot do is commit (``django_db(transaction=True)``), which the module's tests then must not
    ask for."""
    with django_db_blocker.unblock(), transaction.atomic():
        yield
        transaction.set_rollback(True)


def pytest_sessionstart(session: pytest.Session) -> None:
    if _is_controller(session.config):
        _as_controller(drop_templates)


def pytest_sessionfinish(session: pytest.Session) -> None:
    if _is_controller(session.config):
        _as_controller(drop_templates)


def _server_is_up(db: dict[str, Any]) -> bool:
    """Whether the database server answers at all: `make test-fast` runs with no service, and its
    controller then has no template to drop (a test that needs the database fails on its own)."""
    host = db["HOST"] or "127.0.0.1"
    if host.startswith("/"):  # a Unix socket's folder: psycopg will say what is wrong
        return True
    try:
        socket.create_connection((host, int(db["PORT"] or 5432)), 2).close()
    except OSError:
        return False
    return True


def _is_controller(config: pytest.Config) -> bool:
    """The xdist controller of a parallel run (it runs no test and has no database of its own)."""
    return not hasattr(config, "workerinput") and bool(getattr(config.option, "numprocesses", 0))


def _as_controller(action: Callable[[Any], None]) -> None:
    """``action`` with a cursor on the server's maintenance database: pytest-django refuses the
    controller Django's connections (it runs no test), so this one is psycopg's own."""
    import psycopg
    from django.conf import settings

    db = settings.DATABASES["default"]
    if not _server_is_up(db):
        return
    with (
        psycopg.connect(
            host=db["HOST"],
            port=db["PORT"],
            user=db["USER"],
            password=db["PASSWORD"] or None,
            dbname="postgres",
            autocommit=True,
        ) as connection,
        connection.cursor() as cursor,
    ):
        action(cursor)
