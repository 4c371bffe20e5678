"""Owner-only parts of the viewer: verdicts on the timeline, stderr per step, act downloads."""

from __future__ import annotations

import json
import re
from html import unescape
from typing import Any

import pytest
from django.test import Client

from games.engine.builtin import builtin_names
from games.engine.platform_events import verdict_event
from games.engine.types import Event
from replays import store
from replays.store import NewEvent
from tests.factories import (
    BotLogFactory,
    BotVersionFactory,
    MatchFactory,
    SeatFactory,
    UserFactory,
    claim,
    flush,
)
from tests.viewer.conftest import play
from tournaments.play.models import Match, Seat

pytestmark = pytest.mark.django_db

SECRET = "my-secret-debug-line"


def with_a_timeout(owner: Any) -> tuple[Match, int]:
    """A finished Brexit match whose seat 0 (``owner``'s bot) timed out once, and wrote stderr."""
    match, verdict_version, final = timing_out(owner)
    flush(match, [final])
    assert match.status == Match.Status.FINISHED
    return match, verdict_version


def timing_out(owner: Any) -> tuple[Match, int, Event]:
    """``with_a_timeout``'s match still running, and the final event its worker will flush."""
    source = play("brexit", 3, None, seed=9)
    events = store.read(source.id)
    cut = next(
        e.version for e in events if e.metadata.get("actor") == 0 and e.type == "cards_placed"
    )
    copied = [NewEvent(type=e.type, payload=e.payload, metadata=e.metadata) for e in events]
    verdict = verdict_event(
        0, "timeout", detail="no answer in 1.0 s", elapsed_ms=1000, strikes=1, step=cut - 1
    )
    copied.insert(cut, NewEvent.from_engine(verdict, engine_version="brexit-1"))
    match = MatchFactory(game="brexit", seed=source.seed, events=copied[:-1])  # as a fork starts
    SeatFactory(match=match, number=0, bot_version=BotVersionFactory(bot__owner=owner))
    for n in (1, 2):
        SeatFactory(match=match, number=n, bot_version=None, builtin="random")
    BotLogFactory(match=match, seat=0, version=cut - 1, text=SECRET)
    return claim(match), cut + 1, events[-1].as_engine_event()


def test_owner_sees_verdict_marks_and_stderr(owner: Any) -> None:
    match, verdict_version = with_a_timeout(owner)
    c = Client()
    c.force_login(owner)
    html = c.get(f"/matches/{match.pk}/").content.decode()
    assert 'class="mark verdict-timeout"' in html and f'data-step="{verdict_version}"' in html
    assert SECRET in html  # the stderr lines ride along for the script to show per step
    assert "Download act message (seat 0)" in html


def test_a_decisions_stderr_is_shown_at_its_verdict_too(owner: Any) -> None:
    """Clicking a verdict's mark or log line went to a step that said "No stderr at this step",
    while the step the bot was asked at showed it: both steps show it now."""
    match, verdict_version = with_a_timeout(owner)
    c = Client()
    c.force_login(owner)
    html = c.get(f"/matches/{match.pk}/?step={verdict_version}").content.decode()
    found = re.search(r'id="stderr" class="stderr" data-logs="([^"]*)"', html)
    assert found is not None
    logs = json.loads(unescape(found.group(1)))
    shown = {int(step): [ln["text"] for ln in lines] for step, lines in logs.items()}
    asked = verdict_version - 2  # the fixture's decision: asked, then placed, then judged
    assert shown == {asked: [SECRET], verdict_version: [SECRET]}


@pytest.mark.parametrize("who", ["anon", "stranger"])
def test_others_see_neither_marks_nor_stderr(owner: Any, who: str) -> None:
    match, _ = with_a_timeout(owner)
    c = Client()
    if who == "stranger":
        c.force_login(UserFactory.create())
    html = c.get(f"/matches/{match.pk}/").content.decode()
    assert 'class="mark' not in html and SECRET not in html and "Download act message" not in html
    # The verdict itself is public (seat, kind); its detail is the owner's.
    assert "no answer in 1.0 s" not in c.get(f"/matches/{match.pk}/?view=public").content.decode()


def test_staff_see_logs_only_once_the_match_is_over(owner: Any) -> None:
    match, _, final = timing_out(owner)
    staff = Client()
    staff.force_login(UserFactory.create(is_staff=True))
    assert SECRET not in staff.get(f"/matches/{match.pk}/").content.decode()
    flush(match, [final])
    assert SECRET in staff.get(f"/matches/{match.pk}/").content.decode()


def test_act_download_is_what_the_bot_was_asked(owner: Any) -> None:
    match, verdict_version = with_a_timeout(owner)
    c = Client()
    c.force_login(owner)
    step = verdict_version - 2  # just before seat 0's placement
    r = c.get(f"/matches/{match.pk}/act/0/?step={step}")
    assert r.status_code == 200
    assert "attachment" in r["Content-Disposition"]
    body = r.json()
    assert body["type"] == "act" and body["step"] == step
    assert body["observation"]["seat"] == 0 and body["legal"]
    # Not asked at step 0: a clear 404, not a 500.
    assert c.get(f"/matches/{match.pk}/act/0/?step=0").status_code == 404
    assert Seat.objects.filter(match=match, number=0).exists()


def test_verdict_details_stay_with_the_owner_after_the_end(owner: Any) -> None:
    match, _ = with_a_timeout(owner)
    detail = "no answer in 1.0 s"
    anon = Client()
    assert detail not in anon.get(f"/matches/{match.pk}/?view=all").content.decode()
    assert detail not in anon.get(f"/matches/{match.pk}/?view=seat0").content.decode()
    assert detail not in anon.get(f"/api/matches/{match.pk}/download/").content.decode()
    mine = Client()
    mine.force_login(owner)
    assert detail in mine.get(f"/matches/{match.pk}/?view=all").content.decode()
    assert detail in mine.get(f"/api/matches/{match.pk}/download/").content.decode()


def test_the_fork_form_offers_every_builtin_of_the_game(owner: Any) -> None:
    match, _ = with_a_timeout(owner)
    c = Client()
    c.force_login(owner)
    html = c.get(f"/matches/{match.pk}/").content.decode()
    offered = re.findall(r'<option value="builtin:(\w+)">', html)
    # Once per seat row of the form: three seats, each offered the game's six built-ins.
    assert offered == list(builtin_names("brexit")) * 3
