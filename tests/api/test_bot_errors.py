"""A bot's errors: each non-ok verdict of its versions, recorded with the flush that stores it,
listed by ``GET /api/bots/{id}/errors/`` and the page ``/bots/<id>/errors/``, as private as the
bot and its logs."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from replays import store
from tests.factories import (
    BotFactory,
    BotVersionFactory,
    MatchFactory,
    SeatFactory,
    UserFactory,
    claim,
    finish,
)
from tournaments.play import faults
from tournaments.play.models import Fault, Match, Seat
from tournaments.play.runner import RunResult, run_match

pytestmark = pytest.mark.django_db

# Every third decision is refused; the fourth raises (a traceback whose last line says why).
BOT = b"""
import sys
calls = 0
def act(observation, legal):
    global calls
    calls += 1
    print(f"decision {calls}", file=sys.stderr)
    if calls == 4:
        raise ValueError("no idea what to do at decision 4")
    if calls % 3 == 0:
        return {"nonsense": calls}
    if legal["actions"]:
        return legal["actions"][0]
    return {"place": []}
"""


def _client(user: Any = None) -> Client:
    c = Client()
    if user is not None:
        c.force_login(user)
    return c


def _played(owner: Any, *, public: bool = True) -> Match:
    match = MatchFactory(game="brexit")
    version = BotVersionFactory(
        bot__game="brexit", bot__owner=owner, bot__is_public=public, upload=BOT
    )
    SeatFactory(match=match, number=0, bot_version=version)
    for n in (1, 2):
        SeatFactory(match=match, number=n, bot_version=None, builtin="random")
    assert run_match(match.pk) is RunResult.FINISHED
    return match


def _fault(bot: Any, verdict: str, *, step: int = 5, over: bool = True, **match: Any) -> Fault:
    """A fault of ``bot`` at seat 1 of a finished match (not ``over``: a running one)."""
    m = MatchFactory(game="brexit", **match)
    version = bot.versions.first() or BotVersionFactory(bot=bot)
    SeatFactory(match=m, number=1, bot_version=version)
    if over:
        finish(m)
    else:
        claim(m)
    return Fault.objects.create(
        bot=bot,
        bot_version=version,
        match=m,
        seat=1,
        step=step,
        asked_step=step - 2,
        verdict=verdict,
        detail=f"{verdict} detail",
    )


def test_a_played_match_records_each_non_ok_verdict_of_a_version_as_a_fault() -> None:
    owner = UserFactory()
    match = _played(owner)
    verdicts = [
        (ev.version, ev.payload)
        for ev in store.read(match.pk)
        if ev.type == "bot_verdict" and ev.payload["verdict"] != "ok"
    ]
    assert {p["seat"] for _, p in verdicts} == {0}  # the built-ins make no mistakes
    rows = Fault.objects.filter(match=match).order_by("step")
    # Its step is the verdict's (where the viewer shows it); asked_step, the decision's.
    assert [(f.seat, f.step, f.asked_step, f.verdict) for f in rows] == [
        (p["seat"], version, p["step"], p["verdict"]) for version, p in sorted(verdicts)
    ]
    bot = Seat.objects.select_related("bot_version__bot").get(match=match, number=0).bot_version.bot  # type: ignore[union-attr]
    assert {f.bot_id for f in rows} == {bot.pk}
    crash = rows.get(verdict="crash")
    # A traceback's first line says nothing: the exception's line does.
    assert crash.detail == "ValueError: no idea what to do at decision 4"
    assert rows.filter(verdict="illegal_action").exists()


def test_first_line_of_a_detail() -> None:
    tb = "Traceback (most recent call last):\n  File \"bot.py\", line 3\nKeyError: 'x'\n"
    assert faults.first_line(tb) == "KeyError: 'x'"
    assert faults.first_line("\n  card 'B_3' is not in your hand\nmore") == (
        "card 'B_3' is not in your hand"
    )
    assert len(faults.first_line("x" * 1000)) == faults.DETAIL_CHARS


def test_the_list_is_grouped_by_kind_newest_first_with_its_viewer_links() -> None:
    owner = UserFactory()
    bot = BotFactory(owner=owner)
    BotVersionFactory(bot=bot)
    old_crash = _fault(bot, "crash", step=3)
    timeout = _fault(bot, "timeout", step=9)
    new_crash = _fault(bot, "crash", step=7)
    _fault(BotFactory(owner=owner), "crash")  # another bot's
    body = _client(owner).get(f"/api/bots/{bot.pk}/errors/").json()
    assert body["count"] == 3
    got = [(r["kind"], r["step"], r["match"]) for r in body["results"]]
    assert got == [
        ("crash", 7, str(new_crash.match_id)),
        ("crash", 3, str(old_crash.match_id)),
        ("timeout", 9, str(timeout.match_id)),
    ]
    first = body["results"][0]
    assert first["detail"] == "crash detail"
    assert first["version"] == 1
    assert first["viewer_url"] == f"/matches/{new_crash.match_id}/?step=7&view=seat1#stderr"
    only = _client(owner).get(f"/api/bots/{bot.pk}/errors/?verdict=timeout").json()
    assert [r["kind"] for r in only["results"]] == ["timeout"]
    bad = _client(owner).get(f"/api/bots/{bot.pk}/errors/?verdict=ok")
    assert bad.status_code == 400 and "verdict" in bad.json()
    paged = _client(owner).get(f"/api/bots/{bot.pk}/errors/?limit=2").json()
    assert len(paged["results"]) == 2 and paged["next"]


def test_a_private_bots_errors_are_its_owners_and_staffs_only() -> None:
    owner, other = UserFactory(), UserFactory()
    staff = UserFactory(is_staff=True)
    bot = BotFactory(owner=owner, is_public=False)
    BotVersionFactory(bot=bot)
    _fault(bot, "crash")
    for user in (None, other):
        assert _client(user).get(f"/api/bots/{bot.pk}/errors/").status_code == 404
        assert _client(user).get(f"/bots/{bot.pk}/errors/").status_code == 404
    for user in (owner, staff):
        assert _client(user).get(f"/api/bots/{bot.pk}/errors/").json()["count"] == 1
        assert _client(user).get(f"/bots/{bot.pk}/errors/").status_code == 200


def test_a_details_are_its_logs_readers_only_and_smoke_matches_its_owners() -> None:
    owner, other = UserFactory(), UserFactory()
    staff = UserFactory(is_staff=True)
    bot = BotFactory(owner=owner)
    version = BotVersionFactory(bot=bot)
    _fault(bot, "crash", step=4)
    smoke = _fault(bot, "timeout", validation_of=version)
    running = _fault(bot, "illegal_action", over=False)
    url = f"/api/bots/{bot.pk}/errors/"

    seen = {r["kind"]: r for r in _client(owner).get(url).json()["results"]}
    assert {k: r["detail"] for k, r in seen.items()} == {
        "crash": "crash detail",
        "timeout": "timeout detail",
        "illegal_action": "illegal_action detail",
    }
    for user in (None, other):
        rows = _client(user).get(url).json()["results"]
        # Kind, match and step are public (the viewer shows them); the detail is the bot's log.
        assert {r["kind"] for r in rows} == {"crash", "illegal_action"}
        assert {r["detail"] for r in rows} == {None}
        assert all("view=" not in r["viewer_url"] for r in rows)
        page = _client(user).get(f"/bots/{bot.pk}/errors/").content.decode()
        assert "crash detail" not in page and "timeout" not in page
        assert str(smoke.match_id) not in page
    staff_rows = {r["kind"]: r["detail"] for r in _client(staff).get(url).json()["results"]}
    # Staff read a log once the match is over (a running one can quote a hidden hand).
    assert staff_rows == {
        "crash": "crash detail",
        "timeout": "timeout detail",
        "illegal_action": None,
    }
    assert running.match.status == Match.Status.RUNNING


def test_the_page_groups_by_kind_and_opens_each_at_its_step_with_the_stderr() -> None:
    owner = UserFactory()
    match = _played(owner, public=False)
    bot = Seat.objects.select_related("bot_version__bot").get(match=match, number=0).bot_version.bot  # type: ignore[union-attr]
    owner_client = _client(owner)
    bot_page = owner_client.get(f"/bots/{bot.pk}/").content.decode()
    assert f'href="/bots/{bot.pk}/errors/"' in bot_page
    page = owner_client.get(f"/bots/{bot.pk}/errors/").content.decode()
    assert "<h2>crash</h2>" in page and "<h2>illegal_action</h2>" in page
    assert "ValueError: no idea what to do at decision 4" in page
    crash = Fault.objects.get(match=match, verdict="crash")
    link = f"/matches/{match.pk}/?step={crash.step}&amp;view=seat0#stderr"
    assert link in page
    viewer = owner_client.get(f"/matches/{match.pk}/?step={crash.step}&view=seat0")
    assert viewer.status_code == 200
    # The viewer's stderr box holds that step's stderr, which it shows at that step.
    at_step = json.loads(viewer.context["stderr_json"])[str(crash.step)]
    assert [(ln["seat"], ln["asked"]) for ln in at_step] == [(0, crash.asked_step)]
    assert "decision 4" in at_step[0]["text"]
    only = owner_client.get(f"/bots/{bot.pk}/errors/?kind=crash").content.decode()
    assert "<h2>crash</h2>" in only and "<h2>illegal_action</h2>" not in only
    bad = owner_client.get(f"/bots/{bot.pk}/errors/?kind=nonsense")
    assert bad.status_code == 400 and "kind must be one of" in bad.content.decode()


def test_reading_errors_costs_the_same_whatever_the_history() -> None:
    """The list reads the bot's own index: a fixed number of queries, and the plan walks
    ``fault_bot_verdict`` among many other bots' faults."""
    owner = UserFactory()
    bot: Any = BotFactory(owner=owner)
    BotVersionFactory(bot=bot)
    for verdict in ("crash", "timeout"):
        _fault(bot, verdict)
    others = BotFactory()
    version = BotVersionFactory(bot=others)
    match = finish(MatchFactory())
    Fault.objects.bulk_create(
        Fault(
            bot=others,
            bot_version=version,
            match=match,
            seat=0,
            step=n,
            asked_step=n,
            verdict="crash",
        )
        for n in range(20_000)
    )
    with connection.cursor() as cur:
        cur.execute("ANALYZE tournaments_fault")
    client = _client(owner)
    url = f"/api/bots/{bot.pk}/errors/"
    client.get(url)  # the session and the user are read once
    with CaptureQueriesContext(connection) as few:
        assert client.get(url).json()["count"] == 2
    for _ in range(30):
        _fault(bot, "crash")
    with CaptureQueriesContext(connection) as many:
        assert client.get(url).json()["count"] == 32
    assert len(many) == len(few)
    from tournaments.play import selectors

    sql, params = selectors.bot_faults(owner, bot)[:50].query.sql_with_params()
    with connection.cursor() as cur:
        cur.execute(f"EXPLAIN {sql}", params)
        plan = "\n".join(row[0] for row in cur.fetchall())
    assert "fault_bot_verdict" in plan, plan


def test_the_schema_documents_the_errors_list() -> None:
    r = Client().get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    schema = r.json()
    get = schema["paths"]["/api/bots/{bot_id}/errors/"]["get"]
    assert {p["name"] for p in get["parameters"]} >= {"bot_id", "verdict", "limit", "offset"}
    verdict = next(p for p in get["parameters"] if p["name"] == "verdict")
    assert "ok" not in verdict["schema"]["enum"] and "crash" in verdict["schema"]["enum"]
    page = get["responses"]["200"]["content"]["application/json"]["schema"]["$ref"]
    listed = schema["components"]["schemas"][page.rsplit("/", 1)[1]]
    row = listed["properties"]["results"]["items"]["$ref"].rsplit("/", 1)[1]
    fields = schema["components"]["schemas"][row]["properties"]
    assert {"kind", "match", "step", "asked_step", "detail", "viewer_url", "version"} <= set(fields)
    assert "kind" in schema["components"]["schemas"]["Match"]["properties"]
    # Another's bot comes without its webhook: a generated client must not require it.
    bot = schema["components"]["schemas"]["Bot"]
    assert {"webhook_url", "webhook_secret"} <= set(bot["properties"])
    assert not {"webhook_url", "webhook_secret"} & set(bot["required"])
