"""A duplicate deal stays closed while its set is being played, at every door.

A ladder table plays one seed once per seat rotation, a season's table once per game
(tournaments/competition/ladders.py, seasons.py): every match of the set deals the same cards. Here one
real Brexit game of built-in bots is the deal, and its set is three rotation matches of a
ladder: the first finished, the second running, the third queued. Seat 0 of each is a bot of
the owner's. Every door that carries a match's data (API, pages, downloads, the admin) is
asked about the finished rotation by anonymous, another user, the owner and staff: while the
set plays, none shows the seed or options, another seat's hidden cards, or (to staff) the
bot's logs, exactly as for a running match; once the whole set is over each shows what it
shows of any match that is over (tests/api/test_access_matrix.py, whose world this reuses).
"""

from __future__ import annotations

import random
import uuid
from datetime import timedelta
from typing import Any

import pytest
from django.test import Client
from django.utils import timezone

from games.engine.events import view as event_view
from games.engine.registry import GAMES
from replays import store
from tests.api.test_access_matrix import (
    ALL_OK,
    LOGGED_IN,
    NOBODY,
    OWNER_ONLY,
    ROLES,
    SEED,
    STDERR,
    TRACE,
    VIEW_ROWS,
    _asked,
    _copy,
)
from tests.factories import MatchFactory, SeatFactory, UserFactory, finish, flush
from tests.viewer.conftest import play
from tests.viewer.test_visibility import CARD_IDS, hidden_from, leaked, strings
from tournaments.competition import ladders, seasons
from tournaments.competition.models import Fixture, Ladder, Season, SeasonEntrant
from tournaments.play import services, visibility
from tournaments.play.models import BotLog, Match

pytestmark = pytest.mark.django_db

# url, then the statuses for anon, other, owner, staff: while the set plays / once it is over.
# The finished rotation answers as a running match does until its whole set is over (the rows of
# test_access_matrix.py, whose "running" column is this one's "playing").
DOORS: list[tuple[str, str, str]] = [
    ("/api/matches/?ladder={ladder}", ALL_OK, ALL_OK),
    ("/api/matches/{m}/", ALL_OK, ALL_OK),
    ("/api/matches/{m}/events/", ALL_OK, ALL_OK),
    ("/api/matches/{m}/events/?after=0&limit=5000", ALL_OK, ALL_OK),
    ("/api/matches/{m}/events/?seat=0", OWNER_ONLY, ALL_OK),
    ("/api/matches/{m}/events/?seat=1", NOBODY, ALL_OK),
    ("/api/matches/{m}/logs/", LOGGED_IN, LOGGED_IN),
    ("/matches/?ladder={ladder}", ALL_OK, ALL_OK),
    ("/ladders/{ladder}/", ALL_OK, ALL_OK),
    ("/admin/tournaments/match/{m}/change/", "302 302 302 200", "302 302 302 200"),
    ("/admin/tournaments/botlog/{log}/change/", "302 302 302 302", "302 302 302 200"),
    ("/matches/{m}/act/0/?step={asked0}", OWNER_ONLY, "404 404 200 200"),
    ("/matches/{m}/act/1/?step={asked1}", NOBODY, "404 404 404 200"),
]
DOORS += VIEW_ROWS  # the state, the download, the page, its board and log, through each view


def _queued(original: Match, owner: Any) -> Match:
    """A rotation not started yet: seat 0 the owner's bot, the others built-ins."""
    from tests.factories import BotVersionFactory

    m = MatchFactory(game=original.game, seed=SEED)
    SeatFactory(match=m, number=0, bot_version=BotVersionFactory(bot__owner=owner))
    for number in range(1, original.seats.count()):
        SeatFactory(match=m, number=number, bot_version=None, builtin="random")
    return m


@pytest.fixture
def deal_set() -> dict[str, Any]:
    """A ladder's duplicate set of three rotations: finished, running, queued."""
    owner = UserFactory()
    original = play("brexit", 3, None, seed=SEED)
    finished = _copy(original, "finished", owner)
    running = _copy(original, "running", owner)
    queued = _queued(original, owner)
    ladder = Ladder.objects.create(name="trios", game="brexit", seats=3)
    rotations = [finished, running, queued]
    Match.objects.filter(pk__in=[m.pk for m in rotations]).update(
        deal=uuid.uuid4(), ladder=ladder, rated=True
    )
    for m in rotations:
        m.refresh_from_db()
    return {
        "original": original,
        "finished": finished,
        "running": running,
        "queued": queued,
        "users": {
            "anon": None,
            "other": UserFactory(),
            "owner": owner,
            "staff": UserFactory(is_staff=True, is_superuser=True),
        },
        "fill": {
            "m": finished.pk,
            "ladder": ladder.pk,
            "asked0": _asked(finished, 0),
            "asked1": _asked(finished, 1),
            "half": finished.last_version // 2,
            "log": BotLog.objects.get(match=finished).pk,
        },
    }


def end_the_set(deal_set: dict[str, Any]) -> None:
    """The running rotation finishes (its final event appended), the queued one is cancelled."""
    running: Match = deal_set["running"]
    flush(running, [store.read(deal_set["original"].id)[-1].as_engine_event()])
    services.cancel_queued_matches(
        matches=Match.objects.filter(pk=deal_set["queued"].pk), reason="a bot left the ladder"
    )
    assert set(Match.objects.filter(deal=deal_set["finished"].deal).values_list("status")) == {
        ("finished",),
        ("aborted",),
    }


def _client(user: Any) -> Client:
    c = Client()
    if user is not None:
        c.force_login(user)
    return c


def hidden_while_dealt_again(match: Match, seat: int | None) -> set[str]:
    """Card ids ``seat`` (None: a spectator) was never shown before the end revealed them: the
    end's reveals (a Brexit game's hidden agendas, its outcome's detail) show the deal's other
    matches their hidden cards, so they do not count as shown while the deal plays on."""
    reveals = {**GAMES[match.game].rules.end_reveals, "match_finished": frozenset({"outcome"})}
    private: set[str] = set()
    shown: set[str] = set()
    for stored in store.read(match.id):
        ev = stored.as_engine_event()
        payload = event_view(ev, seat)["payload"]
        withheld = reveals.get(ev["type"], frozenset())
        shown |= set(strings({k: v for k, v in payload.items() if k not in withheld}))
        private |= set(strings(ev["payload"]))
    return (private & CARD_IDS[match.game]) - shown


def _doors_answer(deal_set: dict[str, Any], role: str, over: bool) -> list[tuple[Any, ...]]:
    """What is wrong in each door's answer to ``role``, the set playing (or ``over``)."""
    m: Match = deal_set["finished"]
    c = _client(deal_set["users"][role])
    hidden = set() if over else hidden_while_dealt_again(m, 0 if role == "owner" else None)
    wrong: list[tuple[Any, ...]] = []
    for template, playing, once_over in DOORS:
        url = template.format(**deal_set["fill"])
        expected = int((once_over if over else playing).split()[ROLES.index(role)])
        r = c.get(url)
        if r.status_code != expected:
            wrong.append((url, r.status_code, expected))
            continue
        body = r.content.decode()
        if leaked(r.content, hidden):
            wrong.append((url, "shows hidden cards", sorted(leaked(r.content, hidden))[:5]))
        if not over and str(SEED) in body:
            wrong.append((url, "shows the seed"))
        if not over and role != "owner":
            wrong += [(url, "shows", mk) for mk in (TRACE, STDERR) if mk.split()[0] in body]
    return wrong


@pytest.mark.parametrize("role", ROLES)
def test_a_finished_rotation_stays_closed_while_its_set_plays(
    deal_set: dict[str, Any], role: str
) -> None:
    m = deal_set["finished"]
    assert m.status == "finished" and len(hidden_from(m, None)) > 5
    # The end revealed every seat's hidden agenda: they too stay hidden while the set plays.
    revealed_at_end = hidden_while_dealt_again(m, None) - hidden_from(m, None)
    assert revealed_at_end and all(card.startswith("AG_") for card in revealed_at_end)
    assert str(SEED) in str(store.read(m.id)[-1].payload)  # match_finished carries the seed
    assert _doors_answer(deal_set, role, over=False) == []


@pytest.mark.parametrize("role", ROLES)
def test_once_the_set_is_over_every_door_opens(deal_set: dict[str, Any], role: str) -> None:
    end_the_set(deal_set)
    assert _doors_answer(deal_set, role, over=True) == []
    m: Match = deal_set["finished"]
    c = _client(deal_set["users"][role])
    every = hidden_from(m, None)
    download = c.get(f"/api/matches/{m.pk}/download/")
    assert leaked(download.content, every) == every
    assert download.json()["match"]["seed"] == SEED
    assert c.get(f"/api/matches/{m.pk}/").json()["seed"] == SEED
    events = c.get(f"/api/matches/{m.pk}/events/").json()
    assert events["events"][-1]["payload"]["seed"] == SEED
    assert events["view"] == {
        "seats": events["view"]["seats"],
        "game_over": True,
        "deal_over": True,
    }
    assert set(strings(c.get(f"/api/matches/{m.pk}/state/?view=all").json())) & every
    if role == "staff":  # the bot's logs, once the deal is over
        assert STDERR.split()[0] in c.get(f"/api/matches/{m.pk}/logs/").content.decode()
        assert str(SEED) in c.get(f"/admin/tournaments/match/{m.pk}/change/").content.decode()


def test_what_was_read_while_the_set_played_is_not_served_once_it_is_over(
    deal_set: dict[str, Any],
) -> None:
    """The replay cache (tournaments/play/read_cache.py): every door is read while the set plays,
    the owner and staff first, so that whatever can be cached is; once the set is over, the
    same doors give the open match, not what was kept of the closed one."""
    for role in ("owner", "staff", "anon", "other"):
        assert _doors_answer(deal_set, role, over=False) == [], role
    end_the_set(deal_set)
    m: Match = deal_set["finished"]
    every = hidden_from(m, None)
    anon = Client()
    for url in (
        f"/api/matches/{m.pk}/events/",
        f"/api/matches/{m.pk}/events/?after=0&limit=5000",
        f"/api/matches/{m.pk}/download/",
    ):
        r = anon.get(url)
        assert leaked(r.content, every) == every, url
        assert r.json()["events"][-1]["payload"]["seed"] == SEED, url
    page = anon.get(f"/matches/{m.pk}/").content.decode()
    assert "its seed is revealed" in page


# Forking copies the seed and the events: refused while the set plays, to those who may fork a
# match that is over (its bots' owners, staff; test_access_matrix.py has the others).
@pytest.mark.parametrize("role", ["owner", "staff"])
def test_a_rotation_is_forked_only_once_its_set_is_over(
    deal_set: dict[str, Any], role: str
) -> None:
    m: Match = deal_set["finished"]
    c = _client(deal_set["users"][role])
    body = {"step": deal_set["fill"]["half"]}
    r = c.post(f"/api/matches/{m.pk}/fork/", body, content_type="application/json")
    assert r.status_code == 400, r.content
    assert "duplicate deal" in r.json()["match"][0]
    assert not Match.objects.filter(forked_from=m).exists()
    # The page offers its fork button to the owner once the set is over, not before.
    assert ("fork-box" in c.get(f"/matches/{m.pk}/").content.decode()) is False
    end_the_set(deal_set)
    assert ("fork-box" in c.get(f"/matches/{m.pk}/").content.decode()) is (role == "owner")
    r = c.post(f"/api/matches/{m.pk}/fork/", body, content_type="application/json")
    assert r.status_code == 201, r.content


def test_the_match_list_shows_no_seed_of_a_set_still_playing(deal_set: dict[str, Any]) -> None:
    c = _client(deal_set["users"]["staff"])
    rows = c.get(f"/api/matches/?ladder={deal_set['fill']['ladder']}").json()["results"]
    assert {(r["status"], r["seed"], r["options"] is None) for r in rows} == {
        ("finished", None, True),
        ("running", None, True),
        ("queued", None, True),
    }
    end_the_set(deal_set)
    rows = c.get(f"/api/matches/?ladder={deal_set['fill']['ladder']}").json()["results"]
    assert {r["seed"] for r in rows} == {SEED}


# Ladders and seasons make the sets.


def test_a_ladder_rounds_rotations_share_one_deal_per_table() -> None:
    from tests.factories import BotVersionFactory

    ladder = Ladder.objects.create(name="duels", game="brexit", seats=2, builtins=["random"])
    for _ in range(3):
        BotVersionFactory()
    created = ladders.play_round(ladder, random.Random(1))
    by_seed: dict[int, set[Any]] = {}
    for match in created:
        by_seed.setdefault(match.seed, set()).add(match.deal)
    assert len(by_seed) == 2 and all(
        len(deals) == 1 and None not in deals for deals in by_seed.values()
    )
    assert len({m.deal for m in created}) == 2
    # One rotation over, the other queued: its seed stays closed.
    first = finish(created[0])
    assert not visibility.deal_over(first)
    assert Client().get(f"/api/matches/{first.pk}/").json()["seed"] is None


def _running_season(games_per_table: int = 0) -> Season:
    season = Season.objects.create(
        name="autumn",
        game="brexit",
        seats=3,
        rounds=1,
        format=Season.Format.BALANCED,
        games_per_table=games_per_table,
        matches_per_hour=1,
        starts_at=timezone.now(),
    )
    for name in ("random", "greedy", "search"):
        SeasonEntrant.objects.create(season=season, builtin=name)
    seasons.open_season(season=season)
    return seasons.start_season(season=season, rng=random.Random(4))


def test_a_season_tables_games_stay_closed_until_the_last_is_played() -> None:
    """A season starts its fixtures at its pace: a game not started yet keeps the deal live."""
    season = _running_season()
    fixtures = list(Fixture.objects.filter(season=season).order_by("game_number"))
    assert len(fixtures) == 3 and len({f.deal for f in fixtures}) == 1 and fixtures[0].deal
    first = seasons.play_due(season=season)  # one match an hour: the first game only
    assert len(first) == 1 and first[0].deal == fixtures[0].deal
    finish(first[0])
    detail = Client().get(f"/api/matches/{first[0].pk}/").json()
    assert detail["status"] == "finished" and detail["seed"] is None
    # Staff's season page lists the fixtures: their seed waits too.
    staff = _client(UserFactory(is_staff=True, is_superuser=True))
    admin_page = f"/admin/tournaments/season/{season.pk}/change/"
    assert str(fixtures[0].seed) not in staff.get(admin_page).content.decode()
    later = timezone.now() + timedelta(hours=3)
    rest = seasons.play_due(season=season, now=later)
    assert len(rest) == 2
    for match in rest:
        finish(match)
    assert Client().get(f"/api/matches/{first[0].pk}/").json()["seed"] == fixtures[0].seed
    assert str(fixtures[0].seed) in staff.get(admin_page).content.decode()


def test_a_void_season_game_keeps_its_deal_closed_while_it_may_be_played_again() -> None:
    season = _running_season()
    played = seasons.play_due(season=season, now=timezone.now() + timedelta(hours=3))
    assert len(played) == 3
    for match in played[:2]:
        finish(match)
    services.cancel_queued_matches(matches=Match.objects.filter(pk=played[2].pk), reason="test")
    first = Match.objects.get(pk=played[0].pk)
    assert not visibility.deal_over(first)  # staff may re-run the void game (rerun_void)
    seasons.finish_season(season=season)
    assert visibility.deal_over(Match.objects.get(pk=played[0].pk))


# The admin's lists filter on any of a model's own fields from the query string: counting the
# matches a lookup finds read a live deal's seed in 63 requests (issue 21's outside review).
SECRET_LOOKUPS = [
    "/admin/tournaments/match/?id={running}&seed__gt=0",
    "/admin/tournaments/match/?id={running}&seed={seed}",
    "/admin/tournaments/match/?seed__startswith=1",
    "/admin/tournaments/match/?options__isnull=false",
    "/admin/tournaments/match/?options__has_key=seats",
    "/admin/tournaments/match/?o=seed",
    "/admin/tournaments/botlog/?match__seed__gt=0",
    "/admin/tournaments/season/?fixtures__seed__gt=0",
    "/admin/tournaments/ladder/?matches__seed__gt=0",
    "/admin/tournaments/botversion/?seats__match__seed__gt=0",
]


@pytest.mark.parametrize("url", SECRET_LOOKUPS)
def test_staff_cannot_look_a_seed_up_through_the_admins_lists(
    deal_set: dict[str, Any], url: str
) -> None:
    staff = _client(deal_set["users"]["staff"])
    asked = url.format(running=deal_set["running"].pk, seed=SEED)
    answer = staff.get(asked)
    assert answer.status_code == 400 or str(SEED) not in answer.content.decode()
    if "?o=" not in url:
        assert answer.status_code == 400, (asked, answer.status_code)
    # The lists themselves still work.
    assert staff.get(asked.split("?")[0]).status_code == 200


def test_a_bots_log_from_the_end_of_its_game_waits_for_the_deal(deal_set: dict[str, Any]) -> None:
    # The bot's end() is told the outcome, whose detail names every seat's hidden agenda; what
    # it prints there is its owner's log (the third outside review of issue 21).
    m: Match = deal_set["finished"]
    told = "END OUTCOME agendas AG_EU AG_ASIA"
    BotLog.objects.create(match=m, seat=0, version=m.last_version, text=told)
    owner = _client(deal_set["users"]["owner"])
    doors = [f"/api/matches/{m.pk}/logs/", f"/matches/{m.pk}/?view=seat0"]
    for url in doors:
        answer = owner.get(url)
        assert answer.status_code == 200 and told not in answer.content.decode(), url
    end_the_set(deal_set)
    assert told in owner.get(doors[0]).content.decode()
