"""The match lists page by cursor (tournaments/play/keyset.py) over indexes of their order (0026).

Following ``next`` visits every match a caller may see once, newest first, on the site and the
API; ``previous`` leads back; a cursor or an offset the list did not make is a clear 400; and on
a match table filled with tens of thousands of rows (planner statistics from ANALYZE, no planner
switch turned off) each list's page is read from one of the lists' indexes, never by scanning and
sorting the table.
"""

from __future__ import annotations

import base64
import json
import re
from typing import Any

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from rest_framework.test import APIClient

from tests.factories import BotVersionFactory, MatchFactory, UserFactory
from tournaments.bench import match_table
from tournaments.competition.models import Ladder, Season
from tournaments.play import keyset, selectors
from tournaments.play.models import Bot, Match
from tournaments.site.pages import views

pytestmark = pytest.mark.django_db

ROW_LINK = re.compile(r'<td><a href="/matches/([0-9a-f-]{36})/">')
PAGER = re.compile(r'<a rel="(next|prev)" href="([^"]+)"')


@pytest.fixture
def listed() -> list[str]:
    """Seven matches, two made at the same instant (the id breaks the tie), and another user's
    smoke match among them, which no page may show to an anonymous visitor: what they may see,
    newest first."""
    made = [MatchFactory() for _ in range(4)]
    made.append(MatchFactory(validation_of=BotVersionFactory(bot__owner=UserFactory())))
    made += [MatchFactory() for _ in range(3)]
    Match.objects.filter(pk=made[2].pk).update(created_at=made[3].created_at)
    order = Match.objects.filter(validation_of__isnull=True).order_by("-created_at", "-id")
    return [str(pk) for pk in order.values_list("id", flat=True)]


def test_the_api_s_next_links_visit_every_match_once_newest_first(listed: list[str]) -> None:
    api, url, pages = APIClient(), "/api/matches/?limit=3", []
    while url:
        body = api.get(url).json()
        pages.append(body)
        url = body["next"]
    assert [m["id"] for page in pages for m in page["results"]] == listed
    assert len(pages) == 3 and pages[0]["previous"] is None and "count" not in pages[0]
    back = api.get(pages[2]["previous"]).json()
    assert [m["id"] for m in back["results"]] == [m["id"] for m in pages[1]["results"]]
    assert api.get(back["previous"]).json()["results"] == pages[0]["results"]


def test_the_site_s_older_links_visit_every_match_once_newest_first(
    listed: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(views, "PAGE_SIZE", 3)
    client, url, seen, pages = Client(), "/matches/", [], []
    while url:
        html = client.get(url).content.decode()
        seen += ROW_LINK.findall(html)
        links = dict(PAGER.findall(html))
        pages.append(links)
        url = "/matches/" + links["next"].replace("&amp;", "&") if "next" in links else ""
    assert seen == listed
    assert "prev" not in pages[0] and "prev" in pages[1]
    # A filter stays in the links.
    html = client.get("/matches/?game=brexit&status=queued").content.decode()
    assert "game=brexit&amp;status=queued&amp;cursor=" in dict(PAGER.findall(html))["next"]


@pytest.mark.parametrize(
    "cursor",
    [
        "garbage!",
        base64.urlsafe_b64encode(b"o|yesterday|x").decode(),
        base64.urlsafe_b64encode(b"q|2026-12-01T00:00:00+00:00|" + b"0" * 32).decode(),
        base64.urlsafe_b64encode(
            b"o|2026-12-01T00:00:00|00000000-0000-0000-0000-000000000000"
        ).decode(),  # no time zone
    ],
)
def test_a_cursor_the_list_did_not_make_is_a_clear_400(cursor: str) -> None:
    r = APIClient().get("/api/matches/", {"cursor": cursor})
    assert r.status_code == 400 and "next/previous links" in str(r.json()["cursor"])
    page = Client().get("/matches/", {"cursor": cursor})
    assert page.status_code == 400 and b"next/previous links" in page.content


def test_an_offset_is_a_400_that_names_the_next_link() -> None:
    r = APIClient().get("/api/matches/", {"offset": "50"})
    assert r.status_code == 400 and "next link" in str(r.json()["offset"])


# --- query plans at size -------------------------------------------------------------------

FILLED = 30_000
"""Matches in the plan tests' table: enough that a scan and sort would cost more than walking an
index for the planner, with statistics from ANALYZE (match_table.extend runs it)."""


@pytest.fixture
def filled() -> tuple[match_table.Cast, int, int]:
    """A match table of ``FILLED`` rows, analyzed, in the test's transaction (rolled back with
    it, statistics included), and a ladder and a season nothing was played in (rare filters)."""
    the_cast = match_table.cast("plans")
    with connection.cursor() as cur:
        # ANALYZE reads every row rather than a random sample (300 x this target rows), so the
        # statistics, and the plans asserted, are the same on every run: from a sample, the
        # bot's list was once planned from its seats instead (a fresh clone's CI run).
        cur.execute("SET LOCAL default_statistics_target = 10000")
    match_table.extend(the_cast, 0, FILLED)
    empty_ladder = Ladder.objects.create(name="plans empty", game="brexit", seats=4)
    empty_season = Season.objects.create(name="plans empty", game="brexit", seats=3)
    return the_cast, empty_ladder.pk, empty_season.pk


def _match_scans(plan: dict[str, Any]) -> list[tuple[str, str | None]]:
    """(node type, index) of every scan of tournaments_match in the plan's main tree, and the
    types of every node, subplans (the deal's correlated test) left out."""
    found = []
    if plan.get("Relation Name") == "tournaments_match":
        found.append((plan["Node Type"], plan.get("Index Name")))
    if plan["Node Type"] == "Sort":
        found.append(("Sort", None))
    for child in plan.get("Plans", []):
        if child.get("Parent Relationship") != "SubPlan":
            found += _match_scans(child)
    return found


def _table_scans(plan: dict[str, Any]) -> list[str]:
    """Every sequential scan of tournaments_match anywhere in the plan, subplans included (the
    deal's test hashed the deals of every match, once per page, before match_deal_playing)."""
    found = [plan["Node Type"]] if plan.get("Relation Name") == "tournaments_match" else []
    found = [kind for kind in found if "Seq Scan" in kind]
    for child in plan.get("Plans", []):
        found += _table_scans(child)
    return found


def _plan(qs: Any) -> list[tuple[str, str | None]]:
    sql, params = qs.query.sql_with_params()
    with connection.cursor() as cur:
        cur.execute(f"EXPLAIN (FORMAT JSON) {sql}", params)
        raw = cur.fetchone()[0]
    plan = (json.loads(raw) if isinstance(raw, str) else raw)[0]["Plan"]
    return _match_scans(plan) + [(kind, None) for kind in _table_scans(plan)]


def _wrong_plans(cases: list[tuple[dict[str, Any], set[str]]]) -> list[Any]:
    """The cases whose first or later page is not read from one of the indexes named for it."""
    wrong = []
    for filters, indexes in cases:
        matches = selectors.matches(user=None, **filters)
        first = keyset.page(matches, None, 25)
        later = first.older or keyset.cursor(keyset.OLDER, Match.objects.order_by("-created_at")[0])
        for qs in (
            matches.order_by(*keyset.NEWEST_FIRST)[:26],
            keyset.after(matches, later)[0][:26],
        ):
            scans = _plan(qs)
            if "match_deal_playing" in indexes:
                # Matches not over: as few as the workers leave queued, whatever the table's
                # size; read through that partial index and sorted, as Postgres may choose.
                if any("Seq Scan" in kind for kind, _ in scans):
                    wrong.append((filters, scans))
                continue
            index_scans = {i for kind, i in scans if kind in ("Index Scan", "Index Only Scan")}
            if not scans or any(i is None for _, i in scans) or not index_scans <= indexes:
                wrong.append((filters, scans))
    return wrong


def test_every_list_page_is_read_from_a_list_index(filled: Any) -> None:
    the_cast, empty_ladder, empty_season = filled
    cases: list[tuple[dict[str, Any], set[str]]] = [
        ({}, {"match_newest"}),
        ({"game": "brasilis"}, {"match_newest"}),
        ({"status": "finished"}, {"match_newest", "match_status_newest"}),
        ({"status": "running"}, {"match_status_newest", "match_deal_playing"}),
        ({"ladder": the_cast.ladders[0]}, {"match_newest", "match_ladder_newest"}),
        ({"ladder": empty_ladder}, {"match_ladder_newest"}),
        ({"season": the_cast.seasons[1]}, {"match_newest", "match_season_newest"}),
        ({"season": empty_season}, {"match_season_newest"}),
        ({"game": "brexit", "status": "aborted"}, {"match_newest", "match_status_newest"}),
    ]
    assert _wrong_plans(cases) == []


RARE = 5_000
"""A bot seated in one match in this many: its matches are read from its seats' index as a
frequent bot's are (walking match_newest would read 5,000 matches a row shown)."""


@pytest.fixture
def bots_seated(filled: Any) -> dict[str, Bot]:
    """A bot of the filled table seated in one match in 40, and one seated in one in ``RARE``
    (seat 0 of those matches given to its version: the trigger copies the new bot onto it)."""
    the_cast, _, _ = filled
    rare: Any = BotVersionFactory(bot__game="brexit", bot__is_public=True)
    with connection.cursor() as cur:
        cur.execute(
            "UPDATE tournaments_seat s SET bot_version_id = %s FROM tournaments_match m"
            " WHERE m.id = s.match_id AND s.number = 0 AND m.seed %% %s = 0",
            [rare.pk, RARE],
        )
        assert cur.rowcount == FILLED // RARE
        cur.execute("ANALYZE tournaments_seat")
    return {"frequent": Bot.objects.get(pk=the_cast.bots[0]), "rare": rare.bot}


FEW = 50
"""Rows a plan may sort: when a bot has no more seats in all than two pages, Postgres may read
them all from its index and sort them (the rare bot's 6 here), which costs what walking the
index in order would; past that, it walks the index in order (a sort of more is wrong)."""
INDEX_SCANS = ("Index Scan", "Index Only Scan")
LISTED = ("tournaments_seat", "tournaments_match")


def _nodes(plan: dict[str, Any], subplans: bool) -> list[tuple[str, str | None, str | None]]:
    """(node type, relation, index) of every node of the plan, subplans (the deal's test, as
    in every list: ``_wrong_plans``) only if ``subplans``."""
    if plan["Node Type"] == "Sort" and plan["Plan Rows"] <= FEW:
        found = []  # the whole of a bot's few seats: no more than an index walk would read
    else:
        found = [(plan["Node Type"], plan.get("Relation Name"), plan.get("Index Name"))]
    for child in plan.get("Plans", []):
        if subplans or child.get("Parent Relationship") != "SubPlan":
            found += _nodes(child, subplans)
    return found


def _explain(sql: str, params: Any, *, subplans: bool = True) -> list[Any]:
    with connection.cursor() as cur:
        cur.execute(f"EXPLAIN (FORMAT JSON) {sql}", params)
        raw = cur.fetchone()[0]
    return _nodes((json.loads(raw) if isinstance(raw, str) else raw)[0]["Plan"], subplans)


def _read_from_the_bot_s_seats(qs: Any) -> list[Any]:
    """What is wrong with the plan of a query of a bot's matches: any sort (but of a bot's few
    seats), any scan of seats or matches but from the bot's seats' index and the matches'
    primary key (one match a seat), and anywhere (the deal's test included) a sequential scan
    of either."""
    sql, params = qs.query.sql_with_params()
    nodes = _explain(sql, params, subplans=False)
    allowed = {
        *((kind, "tournaments_seat", "seat_bot_newest") for kind in INDEX_SCANS),
        ("Index Scan", "tournaments_match", "tournaments_match_pkey"),
        ("Bitmap Heap Scan", "tournaments_seat", None),  # a bot's few seats, from its index
    }
    wrong = [node for node in nodes if "Sort" in node[0]]
    wrong += [node for node in nodes if node[1] in LISTED and node not in allowed]
    wrong += [node for node in _explain(sql, params) if node[1] in LISTED and "Seq" in node[0]]
    if not any(index == "seat_bot_newest" for _, _, index in nodes):
        wrong.append(("seat_bot_newest not used", None, None))
    return wrong


@pytest.mark.parametrize("seated", ["frequent", "rare"])
def test_a_bot_s_matches_are_read_from_its_seats_newest_first(
    bots_seated: dict[str, Bot], seated: str
) -> None:
    """The lists' bot filter, first and later pages, and a bot's page's latest matches: a walk
    of the bot's seats' index (seat_bot_newest) in the lists' order, each match looked up by its
    key; no sort and no scan of the table, whether the bot is in one match in 40 or in 5,000."""
    bot = bots_seated[seated]
    matches = selectors.matches(user=None, bot=bot.pk)
    first = keyset.page(matches, None, 25)
    assert first.matches and first.matches == sorted(
        first.matches, key=lambda m: (m.created_at, m.pk), reverse=True
    )
    later = keyset.cursor(keyset.OLDER, first.matches[len(first.matches) // 2])
    for qs in (keyset.after(matches, None)[0][:26], keyset.after(matches, later)[0][:26]):
        assert _read_from_the_bot_s_seats(qs) == [], seated
    assert _read_from_the_bot_s_seats(selectors.bot_seats(None, bot)[:20]) == [], seated
    user = UserFactory()
    assert _read_from_the_bot_s_seats(selectors.bot_seats(user, bot)[:20]) == [], seated


def test_my_bots_last_errors_are_one_query_from_the_bots_seats_and_faults(
    bots_seated: dict[str, Bot],
) -> None:
    """The last errors of every bot of a page in one query: each bot's newest seats from
    seat_bot_newest, their faults from fault_per_decision; no scan of seats or faults."""
    bots = [bot.pk for bot in bots_seated.values()]
    nodes = _explain(selectors._RECENT_FAULTS, {"bots": bots, "recent": selectors.RECENT_SEATS})
    scans = {(kind, relation, index) for kind, relation, index in nodes if relation}
    walks = {(kind, "tournaments_seat", "seat_bot_newest") for kind in INDEX_SCANS}
    faults = {(kind, "tournaments_fault", "fault_per_decision") for kind in INDEX_SCANS}
    assert scans <= walks | faults and scans & walks and scans & faults, scans
    assert not [node for node in nodes if "Sort" in node[0]], nodes
    # The frequent bot received a timeout in one seat in 101: its 20 newest seats count them.
    errors = selectors.recent_errors_of(bots)
    assert set(errors) == set(bots)
    frequent = bots_seated["frequent"]
    newest = selectors.bot_seats(frequent.owner, frequent)[: selectors.RECENT_SEATS]
    assert errors[frequent.pk] == (
        {"timeout": sum(1 for s in newest if s.verdicts)} if any(s.verdicts for s in newest) else {}
    )


def _smoke_plan_faults(uid: int) -> list[Any]:
    """What is wrong with the plan of ``newest_smoke_matches_of(uid)``, as the token lists ask it:
    any read of tournaments_match but from match_smoke_newest."""
    with CaptureQueriesContext(connection) as asked:
        selectors.newest_smoke_matches_of(uid)
    (query,) = asked.captured_queries
    nodes = _explain(query["sql"], None)
    wrong = [n for n in nodes if n[1] == "tournaments_match" and n[2] != "match_smoke_newest"]
    if not any(index == "match_smoke_newest" for _, _, index in nodes):
        wrong.append(("match_smoke_newest not used", None, None))
    return wrong


def test_an_account_s_newest_smoke_match_is_read_from_the_smoke_index(filled: Any) -> None:
    """The token lists' smoke marker, on a miss (tournaments/site/token_lists.py): an account's
    newest smoke match is read from match_smoke_newest, a probe per version of its bots, whether
    it has smoke matches (the filled table's owner) or none (whose walk of match_newest read
    every match), and the answer is the newest one."""
    the_cast = filled[0]
    nobody: Any = BotVersionFactory(bot__owner=UserFactory()).bot.owner
    # Per the game of the smoke match's bot, which is the match's own game when an upload makes
    # it (services.smoke_match_for); the filled table's are not always, so its bot's is asked.
    smoke = (
        Match.objects.filter(validation_of__bot__owner=the_cast.owner)
        .order_by("created_at")
        .values_list("validation_of__bot__game", "created_at")
    )
    newest = dict(smoke)  # the newest of each game last
    assert newest and selectors.newest_smoke_matches_of(the_cast.owner.pk) == newest
    assert selectors.newest_smoke_matches_of(nobody.pk) == {}
    assert _smoke_plan_faults(the_cast.owner.pk) == []
    assert _smoke_plan_faults(nobody.pk) == []
