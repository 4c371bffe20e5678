"""The result of a match, seen from the model: the database trigger writes it from the final event."""

from __future__ import annotations

import pytest
from django.db import connection

from games.engine.platform_events import finished_event
from games.engine.types import Outcome
from replays import partitions
from tests.factories import claim, flush
from tests.tournaments.conftest import MakeMatch
from tournaments.play.models import Match
from tournaments.play.projection import RESULT_TRIGGER

pytestmark = pytest.mark.django_db


def test_the_result_trigger_named_by_the_model_is_on_the_events_table_and_its_partitions() -> None:
    with connection.cursor() as cur:
        cur.execute(
            "SELECT tgrelid::regclass::text FROM pg_trigger WHERE tgname = %s", [RESULT_TRIGGER]
        )
        on = {table for (table,) in cur.fetchall()}
    assert on == {"replays_event", *partitions.partitions()}


def test_appending_the_final_event_gives_the_match_its_result(builtin_match: MakeMatch) -> None:
    match = claim(builtin_match())
    loaded = Match.objects.get(pk=match.pk)
    outcome: Outcome = {"scores": [3.0, 1.0, 2.0], "ranks": [1, 3, 2], "detail": {}}
    flush(match, [finished_event(outcome, seed=1)])  # as the worker's last flush appends it

    assert loaded.status == Match.Status.RUNNING  # a loaded object knows nothing yet...
    match = loaded
    match.refresh_from_db()  # ...the row has it
    assert (match.status, match.outcome, match.last_version) == ("finished", outcome, 1)
    assert match.finished_at is not None and match.lease_owner == ""
    assert [(s.rank, s.score) for s in match.seats.order_by("number")] == [
        (1, 3.0),
        (3, 1.0),
        (2, 2.0),
    ]


def test_built_in_bot_names_are_the_engine_s(monkeypatch: pytest.MonkeyPatch) -> None:
    """The platform reads which built-in bots a game offers from the game, through the registry."""
    from games.engine.registry import get
    from tests.factories import UserFactory
    from tournaments.play import services

    monkeypatch.setitem(get("brexit").builtin_bots, "extra", "")
    user = UserFactory()
    seats = [{"builtin": "extra"}, {"builtin": "random"}, {"builtin": "random"}]
    match = services.create_challenge(user=user, game="brexit", seats=seats, queue=False)
    assert match.seats.get(number=0).builtin == "extra"
    with pytest.raises(services.Invalid, match="unknown builtin 'extra'"):
        services.create_challenge(user=user, game="brasilis", seats=seats, queue=False)
