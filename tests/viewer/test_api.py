"""The replay API: state at a step, download, import, fork."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.test import Client

from games.engine.platform_events import PLATFORM_EVENTS, verdict_event
from games.engine.registry import get
from replays import store
from replays.store import NewEvent
from tests.factories import BotVersionFactory, MatchFactory, SeatFactory, UserFactory, finish
from tests.viewer.conftest import running_copy
from tournaments.play.models import Bot, Match, Seat
from tournaments.play.runner import RunResult, run_match

pytestmark = pytest.mark.django_db


def logged_in(user: Any) -> Client:
    c = Client()
    c.force_login(user)
    return c


@pytest.mark.parametrize("fixture", ["brexit_match", "brasilis_match"])
def test_state_at_each_step_is_what_the_seat_was_shown(
    client: Client, request: pytest.FixtureRequest, fixture: str
) -> None:
    """Served from snapshots (jsonb), the observation equals the live one, list order included."""
    match: Match = request.getfixturevalue(fixture)
    rules = get(match.game).rules
    state = rules.new_state()
    events = store.read(match.id)
    checked = 0
    for ev in events:
        if ev.type not in ("bot_verdict", "match_finished"):
            state = rules.fold(state, ev.as_engine_event())
        if ev.version % 23 == 0 or ev.version == len(events):
            r = client.get(f"/api/matches/{match.pk}/state/?step={ev.version}&view=seat2")
            assert r.status_code == 200
            assert r.json()["state"] == json.loads(json.dumps(rules.observe(state, 2)))
            checked += 1
    assert checked >= 5


@pytest.mark.parametrize(
    ("query", "code"),
    [
        ("?step=-1", 400),
        ("?step=x", 400),
        ("?step=999999", 400),
        ("?view=seat7", 400),
        ("?view=x", 400),
    ],
)
def test_bad_state_queries_are_400(
    client: Client, brexit_match: Match, query: str, code: int
) -> None:
    r = client.get(f"/api/matches/{brexit_match.pk}/state/{query}")
    assert r.status_code == code, r.content


def test_download_then_import_replays_the_same(
    client: Client, brexit_match: Match, tmp_path: Path
) -> None:
    body = client.get(f"/api/matches/{brexit_match.pk}/download/").json()
    assert body["format"] == "backroom-match/1" and body["match"]["seed"] == brexit_match.seed
    path = tmp_path / "match.json"
    path.write_text(json.dumps(body))
    original_last = store.read(brexit_match.id)
    call_command("import_match", str(path))  # its id is taken here: the copy gets a new one
    imported = Match.objects.exclude(pk=brexit_match.pk).get(seed=brexit_match.seed)
    assert imported.status == Match.Status.FINISHED
    assert imported.outcome == body["match"]["outcome"]
    again = client.get(f"/api/matches/{imported.pk}/download/").json()
    assert again["events"] == body["events"]
    middle = imported.last_version // 2
    for view in ("all", "seat1", "public"):
        states = [
            client.get(f"/api/matches/{m}/state/?step={middle}&view={view}").json()["state"]
            for m in (brexit_match.pk, imported.pk)
        ]
        assert states[0] == states[1]
    assert len(store.read(imported.pk)) == len(original_last)


def test_import_refuses_garbage(tmp_path: Path) -> None:
    from django.core.management.base import CommandError

    bad = tmp_path / "bad.json"
    bad.write_text("{}")
    with pytest.raises(CommandError, match="not a backroom-match/1 document"):
        call_command("import_match", str(bad))
    for doc, said in [
        ('{"format": "backroom-match/1"}', "no 'match'"),
        ('{"format": "backroom-match/1", "match": {"seats": []}, "events": []}', "no 'game'"),
        ('{"format": "backroom-match/1", "match": [], "events": []}', "malformed"),
    ]:
        bad.write_text(doc)
        with pytest.raises(CommandError, match=said):
            call_command("import_match", str(bad))


def test_import_refuses_a_file_that_is_not_utf8(tmp_path: Path) -> None:
    from django.core.management.base import CommandError

    bad = tmp_path / "bad.json"
    bad.write_bytes(b"\xff")
    with pytest.raises(CommandError, match=r"bad\.json"):
        call_command("import_match", str(bad))


def test_play_out_file_imports(tmp_path: Path) -> None:
    out = tmp_path / "played.json"
    call_command(
        "play",
        "--game",
        "brexit",
        "--seat",
        "builtin:random",
        "--seat",
        "builtin:greedy",
        "--seat",
        "builtin:random",
        "--seed",
        "3",
        "--out",
        str(out),
    )
    call_command("import_match", str(out))
    doc = json.loads(out.read_text())
    m = Match.objects.get(game="brexit", seed=3)
    assert m.status == Match.Status.FINISHED and m.outcome == doc["match"]["outcome"]
    assert m.last_version == len(doc["events"])


def test_fork_replays_the_first_events_and_plays_on(brexit_match: Match, owner: Any) -> None:
    step = brexit_match.last_version // 2
    r = logged_in(owner).post(
        f"/api/matches/{brexit_match.pk}/fork/",
        {"step": step, "seats": [{"builtin": "random"}, {}, {}, {}]},
        content_type="application/json",
    )
    assert r.status_code == 201, r.content
    fork = Match.objects.get(pk=r.json()["id"])
    assert fork.forked_from_id == brexit_match.pk and not fork.rated
    assert fork.forked_at is not None and 0 < fork.forked_at <= step
    assert fork.status == Match.Status.QUEUED
    original = store.read(brexit_match.id)
    copied = store.read(fork.id)
    # Built-in bots write no verdicts, so nothing of seat 0's is left out (see the next test).
    assert [(e.type, e.payload) for e in copied] == [
        (e.type, e.payload) for e in original[: fork.forked_at]
    ]
    assert copied[-1].metadata["copied_from"] == {
        "match": str(brexit_match.pk),
        "version": fork.forked_at,
    }
    assert run_match(fork.id) == RunResult.FINISHED
    fork.refresh_from_db()
    # The same built-in bot on the same seed decides the same: the fork ends as the original did.
    assert fork.outcome == brexit_match.outcome
    replayed = store.read(fork.id)
    assert [(e.type, e.payload) for e in replayed] == [(e.type, e.payload) for e in original]
    # Both pages link to each other.
    c = logged_in(owner)
    assert (
        f"/matches/{brexit_match.pk}/?step={fork.forked_at}"
        in c.get(f"/matches/{fork.pk}/").content.decode()
    )
    assert f"/matches/{fork.pk}/" in c.get(f"/matches/{brexit_match.pk}/").content.decode()


def test_a_fork_leaves_the_verdicts_of_a_seat_given_to_another_player_in_the_original(
    brexit_match: Match, owner: Any
) -> None:
    """A verdict's details (a traceback quoting its bot's code, its times) are its bot's owner's:
    forking with your own version in another owner's seat must not make them yours. The seat's
    earlier verdicts stay in the original (what a resumed match counts its strikes, bank and
    time from is the stored verdicts: none of theirs); a kept seat keeps its own."""
    other = UserFactory()
    theirs = BotVersionFactory(bot__owner=other, bot__game="brexit", bot__is_public=False)
    mine, mine_too = (BotVersionFactory(bot__owner=owner, bot__game="brexit") for _ in range(2))
    played = store.read(brexit_match.id)
    events: list[NewEvent] = []
    for e in played[:-1]:  # its match_finished is written again below
        events.append(NewEvent(type=e.type, payload=e.payload, metadata=e.metadata))
        seat = e.metadata.get("actor")
        if seat in (0, 1) and e.type not in PLATFORM_EVENTS:
            detail = f"Traceback: SECRET of seat {seat}"
            verdict = verdict_event(seat, "ok", detail=detail, elapsed_ms=7, strikes=0, step=1)
            events.append(NewEvent.from_engine(verdict, engine_version="test"))
    original = MatchFactory(game="brexit", seed=brexit_match.seed, events=events)
    for number, version in enumerate([mine, theirs, None, None]):
        SeatFactory(
            match=original, number=number, bot_version=version, builtin="random" * (not version)
        )
    finish(original, brexit_match.outcome)

    api = logged_in(owner)
    r = api.post(
        f"/api/matches/{original.pk}/fork/",
        {"step": len(events) // 2, "seats": [{}, {"bot_version": mine_too.pk}, {}, {}]},
        content_type="application/json",
    )
    assert r.status_code == 201, r.content
    fork = Match.objects.get(pk=r.json()["id"])
    copied = store.read(fork.id)
    verdicts = [e.payload for e in copied if e.type == "bot_verdict"]
    assert verdicts and {v["seat"] for v in verdicts} == {0}  # seat 0 kept its player: its own
    for door in (f"/api/matches/{fork.pk}/events/?limit=1000", f"/api/matches/{fork.pk}/download/"):
        shown = api.get(door)
        assert shown.status_code == 200 and b"SECRET of seat 1" not in shown.content, door
    assert b"SECRET of seat 0" in api.get(f"/api/matches/{fork.pk}/download/").content

    # Leaving verdicts out moves the fork's later versions off the original's: the game it plays
    # does not move (chance is keyed by what it draws). Both bots' seats given to built-ins,
    # as staff may, the same built-ins on the same seed play the original's game again.
    staff = logged_in(UserFactory(is_staff=True))
    r = staff.post(
        f"/api/matches/{original.pk}/fork/",
        {"step": len(events) // 2, "seats": [{"builtin": "random"}] * 2 + [{}, {}]},
        content_type="application/json",
    )
    assert r.status_code == 201, r.content
    again = Match.objects.get(pk=r.json()["id"])
    assert not [e for e in store.read(again.id) if e.type == "bot_verdict"]
    assert run_match(again.id) == RunResult.FINISHED
    again.refresh_from_db()

    def game(match: Match) -> list[tuple[str, Any]]:
        return [(e.type, e.payload) for e in store.read(match.id) if e.type not in PLATFORM_EVENTS]

    assert again.outcome == brexit_match.outcome and game(again) == game(brexit_match)


@pytest.mark.parametrize(
    ("body", "code"),
    [
        ({"step": 0}, 400),
        ({"step": 10**6}, 400),
        ({"step": 5, "seats": [{}]}, 400),
        ({"step": 5, "seats": [{"builtin": "nobody"}, {}, {}, {}]}, 400),
        ({"step": 5, "seats": [{"bot_version": 10**8}, {}, {}, {}]}, 400),
        ({"seats": "x"}, 400),
    ],
)
def test_bad_forks_are_400(
    brexit_match: Match, owner: Any, body: dict[str, Any], code: int
) -> None:
    r = logged_in(owner).post(
        f"/api/matches/{brexit_match.pk}/fork/", body, content_type="application/json"
    )
    assert r.status_code == code, r.content


def test_only_an_owner_may_fork_a_finished_match(brexit_match: Match, owner: Any) -> None:
    url = f"/api/matches/{brexit_match.pk}/fork/"
    assert Client().post(url, {"step": 5}, content_type="application/json").status_code in (
        401,
        403,
    )
    stranger = logged_in(UserFactory())
    assert stranger.post(url, {"step": 5}, content_type="application/json").status_code == 400
    running = running_copy(brexit_match, brexit_match.last_version - 1, owner=owner)
    url = f"/api/matches/{running.pk}/fork/"
    r = logged_in(owner).post(url, {"step": 5}, content_type="application/json")
    assert r.status_code == 400 and "finished" in r.content.decode()


def test_a_fork_keeping_someone_elses_private_bot_is_refused_without_its_version_id(
    brexit_match: Match, owner: Any
) -> None:
    """The forker owns seat 1; seat 0's bot is another owner's private bot."""
    private = Seat.objects.get(match=brexit_match, number=0).bot_version
    assert private is not None
    Bot.objects.filter(pk=private.bot_id).update(is_public=False)
    forker = UserFactory()
    mine = BotVersionFactory(bot__owner=forker, bot__game="brexit")
    Seat.objects.filter(match=brexit_match, number=1).update(bot_version=mine, builtin="")
    url = f"/api/matches/{brexit_match.pk}/fork/"
    step = brexit_match.last_version // 2
    r = logged_in(forker).post(url, {"step": step}, content_type="application/json")
    assert r.status_code == 400
    assert r.json() == {
        "seats": ["seat 0: its bot is private; name a built-in or a bot of yours for it"]
    }
    body = {"step": step, "seats": [{"builtin": "random"}, {}, {}, {}]}
    r = logged_in(forker).post(url, body, content_type="application/json")
    assert r.status_code == 201, r.content
    # Its owner (and staff) may keep it.
    assert (
        logged_in(owner).post(url, {"step": step}, content_type="application/json").status_code
        == 201
    )


def test_replay_endpoints_are_in_the_schema(client: Client) -> None:
    schema = client.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json").json()
    assert "get" in schema["paths"]["/api/matches/{match_id}/state/"]
    assert "get" in schema["paths"]["/api/matches/{match_id}/download/"]
    assert "post" in schema["paths"]["/api/matches/{match_id}/fork/"]


@pytest.mark.parametrize("fixture", ["brexit_match", "brasilis_match"])
@pytest.mark.parametrize("view", ["public", "seat0", "all"])
def test_every_view_answers_from_the_very_first_step(
    client: Client, request: pytest.FixtureRequest, fixture: str, view: str
) -> None:
    match: Match = request.getfixturevalue(fixture)
    for step in (0, 1, 2, 3):
        r = client.get(f"/api/matches/{match.pk}/state/?step={step}&view={view}")
        assert r.status_code == 200, (step, r.content[:300])
        assert r.json()["step"] == step
        assert client.get(f"/matches/{match.pk}/act/0/?step={step}").status_code == 404
