"""The suite's flush between transactional tests (tests/support/flush.py) leaves the database as
Django's own flush would."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import Permission
from django.contrib.contenttypes.models import ContentType
from django.db import OperationalError, connection

from tests import factories
from tests.factories import BotLogFactory, SeatFactory, counted_moves
from tests.support.flush import KEPT, empty_tables, reset_if_interrupted

pytestmark = pytest.mark.django_db(transaction=True)


def _rows() -> dict[str, int]:
    """Rows of every table Django's flush empties."""
    tables = connection.introspection.django_table_names(only_existing=True, include_views=False)
    with connection.cursor() as cursor:
        counts = {}
        for table in tables:
            quoted = connection.ops.quote_name(table)
            cursor.execute(f"SELECT count(*) FROM {quoted}")  # noqa: S608 (catalog names)
            counts[table] = cursor.fetchone()[0]
    return counts


def _kept() -> tuple[set[Any], set[Any]]:
    return (
        set(ContentType.objects.values_list("app_label", "model")),
        set(Permission.objects.values_list("codename", "content_type__model")),
    )


def test_every_table_a_test_filled_is_emptied_and_post_migrates_rows_stay() -> None:
    kept = _kept()
    seat = SeatFactory()
    BotLogFactory(match=seat.match)
    factories.flush(seat.match, counted_moves(3))  # the event store refuses a DELETE
    filled = {t for t, n in _rows().items() if n and t not in KEPT}
    assert {"replays_event", "tournaments_seat", "tournaments_botlog", "auth_user"} <= filled

    assert empty_tables()

    assert {t: n for t, n in _rows().items() if n} == {
        t: n for t, n in _rows().items() if t in KEPT and n
    }
    assert _kept() == kept


def test_a_changed_permission_table_hands_over_to_djangos_flush() -> None:
    ContentType.objects.get_for_model(Permission)  # the baseline, as post_migrate left it
    assert empty_tables()
    Permission.objects.create(
        codename="extra", name="extra", content_type=ContentType.objects.get_for_model(Permission)
    )

    assert not empty_tables()  # the teardown then runs Django's flush (and post_migrate)


def test_a_connection_a_timeout_left_mid_statement_is_closed_and_the_next_reconnects() -> None:
    connection.ensure_connection()
    connection.connection.pgconn.send_query(b"SELECT pg_sleep(0.1)")  # as a timeout leaves it
    with (
        pytest.raises(OperationalError, match="another command is already in progress"),
        connection.cursor() as cursor,
    ):
        cursor.execute("SELECT 1")

    reset_if_interrupted("default")

    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
        assert cursor.fetchone() == (1,)
