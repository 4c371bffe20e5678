"""/api/matches/: challenges (and each of their 400s), filters, detail with seats and results."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from games.engine.builtin import builtin_names
from games.engine.registry import get
from tests.api.conftest import Enqueued, throttle_rates
from tests.factories import BotVersionFactory, MatchFactory, SeatFactory, claim, finish
from tournaments.play.models import Match, Seat

pytestmark = pytest.mark.django_db


def challenge(api: APIClient, **body: Any) -> Any:
    body.setdefault("game", "brexit")
    return api.post("/api/matches/", body, format="json")


def test_challenge_creates_an_unrated_queued_match(
    api: APIClient,
    user: Any,
    other: Any,
    enqueued: Enqueued,
    django_capture_on_commit_callbacks: Any,
) -> None:
    mine = BotVersionFactory(bot__owner=user)
    theirs = BotVersionFactory(bot__owner=other)
    seats = [{"bot_version": mine.pk}, {"builtin": "greedy"}, {"bot_version": theirs.pk}]
    with django_capture_on_commit_callbacks(execute=True):
        r = challenge(api, seats=seats, seed=42)
    assert r.status_code == 201, r.content
    match = Match.objects.get(pk=r.data["id"])
    assert (match.rated, match.created_by, match.status, match.seed) == (False, user, "queued", 42)
    rows = list(Seat.objects.filter(match=match).order_by("number"))
    assert [(s.bot_version_id, s.builtin) for s in rows] == [
        (mine.pk, ""),
        (None, "greedy"),
        (theirs.pk, ""),
    ]
    assert enqueued.play_match == [str(match.pk)]
    assert r.data["seed"] is None  # not before the end
    assert [s["label"] for s in r.data["seats"]] == [str(mine), "builtin:greedy", str(theirs)]


def test_seed_is_random_when_omitted(api: APIClient, enqueued: Enqueued) -> None:
    seeds = set()
    for _ in range(3):
        r = challenge(api, seats=[{"builtin": "random"}] * 3)
        assert r.status_code == 201
        seeds.add(Match.objects.get(pk=r.data["id"]).seed)
    assert len(seeds) == 3
    assert all(0 <= s < 2**63 for s in seeds)


def test_options_are_validated_and_stored(api: APIClient, enqueued: Enqueued) -> None:
    r = challenge(
        api, game="brasilis", seats=[{"builtin": "random"}] * 3, options={"trading": True}
    )
    assert r.status_code == 201, r.content
    stored = Match.objects.get(pk=r.data["id"]).options
    # As the engine validated them: the choice made, and every default the match is played under.
    assert stored == get("brasilis").rules.options(3, {"trading": True})
    assert stored["trading"] is True and stored != get("brasilis").rules.options(3, {})


def test_unknown_option_is_a_400_on_options(api: APIClient, enqueued: Enqueued) -> None:
    r = challenge(api, seats=[{"builtin": "random"}] * 3, options={"no_such_option": 1})
    assert r.status_code == 400
    assert "no_such_option" in r.data["options"][0]
    assert not Match.objects.exists()
    assert enqueued.play_match == []


@pytest.mark.parametrize(
    "scenario",
    [
        {"wallet_order": [1.0, 0, 2]},  # was accepted, then aborted the match on the worker
        {"wallet_order": [True, 0, 2]},
        {"piles": [1, [], []]},  # these answered 500
        {"news_deck": [["x"]]},
        {"hands": [[["x"]], None, None]},
        {"auction_aids": {"²": ["lawyer", "colonel"]}},
        {"wallet_order": [0, "a", []]},
    ],
)
def test_options_the_game_cannot_start_with_are_a_400(
    api: APIClient, enqueued: Enqueued, scenario: dict[str, Any]
) -> None:
    seats = [{"builtin": "random"}] * 3
    r = challenge(api, game="brasilis", seats=seats, options={"scenario": scenario})
    assert r.status_code == 400, r.content
    assert "scenario" in r.data["options"][0]
    assert not Match.objects.exists() and enqueued.play_match == []


def test_options_a_games_check_misses_are_refused_before_any_match_exists(
    api: APIClient, enqueued: Enqueued, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The last line of defence: the setup the worker would run is run at the door.
    rules = get("brasilis").rules

    def broken_setup(*args: Any, **kwargs: Any) -> Any:
        raise TypeError("list indices must be integers or slices, not float")

    monkeypatch.setattr(rules, "setup", broken_setup)
    r = challenge(api, game="brasilis", seats=[{"builtin": "random"}] * 3)
    assert r.status_code == 400
    assert "cannot start with these options (TypeError" in r.data["options"][0]
    assert not Match.objects.exists() and enqueued.play_match == []


@pytest.mark.parametrize(
    ("game", "count"), [("brexit", 6), ("brexit", 1), ("brasilis", 2), ("brasilis", 7)]
)
def test_wrong_seat_count_is_a_400_on_seats(api: APIClient, game: str, count: int) -> None:
    r = challenge(api, game=game, seats=[{"builtin": "random"}] * count)
    assert r.status_code == 400
    assert "seats" in r.data
    assert not Match.objects.exists()


def test_bot_of_another_game_is_a_400(api: APIClient, user: Any) -> None:
    v = BotVersionFactory(bot__owner=user, bot__game="brasilis")
    r = challenge(api, seats=[{"bot_version": v.pk}, {"builtin": "random"}, {"builtin": "random"}])
    assert r.status_code == 400
    assert "not a brexit bot" in r.data["seats"][0]


def test_pending_version_is_still_being_validated(api: APIClient, user: Any) -> None:
    v = BotVersionFactory(bot__owner=user, status="pending")
    r = challenge(api, seats=[{"bot_version": v.pk}, {"builtin": "random"}, {"builtin": "random"}])
    assert r.status_code == 400
    assert "still being validated" in r.data["seats"][0]


def test_rejected_version_is_a_400(api: APIClient, user: Any) -> None:
    v = BotVersionFactory(bot__owner=user, status="rejected")
    r = challenge(api, seats=[{"bot_version": v.pk}, {"builtin": "random"}, {"builtin": "random"}])
    assert r.status_code == 400
    assert "rejected" in r.data["seats"][0]


@pytest.mark.parametrize("kind", ["others-private", "missing"])
def test_invisible_version_is_an_unknown_bot_version(api: APIClient, other: Any, kind: str) -> None:
    vid = (
        BotVersionFactory(bot__owner=other, bot__is_public=False).pk
        if kind != "missing"
        else 999999
    )
    r = challenge(api, seats=[{"bot_version": vid}, {"builtin": "random"}, {"builtin": "random"}])
    assert r.status_code == 400
    assert "unknown bot version" in r.data["seats"][0]


def test_unknown_builtin_is_a_400(api: APIClient) -> None:
    r = challenge(api, seats=[{"builtin": "alphago"}, {"builtin": "random"}, {"builtin": "random"}])
    assert r.status_code == 400
    assert "builtin" in r.data["seats"][0]


def test_seat_with_both_or_neither_is_a_400(api: APIClient, user: Any) -> None:
    v = BotVersionFactory(bot__owner=user)
    r = challenge(
        api, seats=[{"bot_version": v.pk, "builtin": "random"}, {}, {"builtin": "random"}]
    )
    assert r.status_code == 400
    assert "exactly one" in r.data["seats"][0]
    assert "exactly one" in r.data["seats"][1]


def test_unknown_game_is_a_400(api: APIClient) -> None:
    r = challenge(api, game="monopoly", seats=[{"builtin": "random"}] * 3)
    assert r.status_code == 400
    assert "game" in r.data


def test_anonymous_challenge_is_401(anon: APIClient) -> None:
    assert challenge(anon, seats=[{"builtin": "random"}] * 3).status_code == 401


def test_challenges_are_rate_limited_with_retry_after(api: APIClient, enqueued: Enqueued) -> None:
    with throttle_rates(challenges="1/minute"):
        assert challenge(api, seats=[{"builtin": "random"}] * 3).status_code == 201
        assert api.get("/api/matches/").status_code == 200
        r = challenge(api, seats=[{"builtin": "random"}] * 3)
    assert r.status_code == 429
    assert 0 < int(r["Retry-After"]) <= 60
    assert Match.objects.count() == 1


def test_rate_limit_is_per_user(api: APIClient, api_other: APIClient, enqueued: Enqueued) -> None:
    with throttle_rates(challenges="1/minute"):
        assert challenge(api, seats=[{"builtin": "random"}] * 3).status_code == 201
        assert challenge(api_other, seats=[{"builtin": "random"}] * 3).status_code == 201


def test_list_filters(anon: APIClient) -> None:
    v = BotVersionFactory()
    with_bot = MatchFactory()
    SeatFactory(match=with_bot, number=0, bot_version=v)
    finish(with_bot)
    brasilis = MatchFactory(game="brasilis")
    running = claim(MatchFactory())

    def ids(query: str) -> set[str]:
        r = anon.get(f"/api/matches/{query}")
        assert r.status_code == 200, r.content
        return {m["id"] for m in r.data["results"]}

    assert ids("") == {str(with_bot.pk), str(brasilis.pk), str(running.pk)}
    assert ids("?game=brasilis") == {str(brasilis.pk)}
    assert ids(f"?bot={v.bot_id}") == {str(with_bot.pk)}
    assert ids("?status=running") == {str(running.pk)}
    assert ids("?status=running&game=brasilis") == set()


def test_list_filters_by_season_and_ladder(anon: APIClient) -> None:
    from tournaments.competition.models import Ladder, Season

    season = Season.objects.create(name="S1", game="brexit")
    ladder = Ladder.objects.create(name="L1", game="brexit")
    in_season = MatchFactory(season=season)
    on_ladder = MatchFactory(ladder=ladder)
    MatchFactory()
    assert [m["id"] for m in anon.get(f"/api/matches/?season={season.pk}").data["results"]] == [
        str(in_season.pk)
    ]
    assert [m["id"] for m in anon.get(f"/api/matches/?ladder={ladder.pk}").data["results"]] == [
        str(on_ladder.pk)
    ]


@pytest.mark.parametrize("query", ["?bot=abc", "?status=bogus", "?game=chess", "?season=-1"])
def test_bad_filters_are_a_400(anon: APIClient, query: str) -> None:
    assert anon.get(f"/api/matches/{query}").status_code == 400


def test_detail_of_a_finished_match_has_results_and_seed(anon: APIClient) -> None:
    v = BotVersionFactory()
    m = MatchFactory(seed=1234, options={"start_seat": 1})
    SeatFactory(match=m, number=0, bot_version=v, verdicts={"ok": 10})
    SeatFactory(match=m, number=1, bot_version=None, builtin="random", disqualified=True)
    finish(m, {"scores": [3, 1], "ranks": [1, 2], "detail": {}})
    r = anon.get(f"/api/matches/{m.pk}/")
    assert r.status_code == 200
    d = r.data
    assert (d["status"], d["seed"], d["options"]) == ("finished", 1234, {"start_seat": 1})
    assert d["outcome"]["ranks"] == [1, 2]
    assert d["finished_at"] is not None
    s0, s1 = d["seats"]
    assert (s0["label"], s0["owner"], s0["rank"], s0["score"], s0["verdicts"]) == (
        f"{v.bot.name} v{v.number}",
        v.bot.owner.username,
        1,
        3,
        {"ok": 10},
    )
    assert (s1["label"], s1["owner"], s1["disqualified"]) == ("builtin:random", None, True)
    assert b"def act" not in r.content  # never the source


def test_detail_hides_seed_and_options_until_finished(anon: APIClient) -> None:
    m = claim(MatchFactory(seed=99, options={"hands": [["secret"]]}))
    d = anon.get(f"/api/matches/{m.pk}/").data
    assert d["seed"] is None and d["options"] is None
    assert b"secret" not in anon.get(f"/api/matches/{m.pk}/").content


@pytest.mark.parametrize("path", ["download/", "events/"])
def test_the_document_hides_seed_and_options_until_the_end(anon: APIClient, path: str) -> None:
    """Scenario options can stack decks: the match document keeps them back as it does the seed."""
    m = MatchFactory(seed=99, options={"hands": [["SECRET-HAND"]]})
    SeatFactory(match=m, number=0, bot_version=None, builtin="random")
    claim(m)
    r = anon.get(f"/api/matches/{m.pk}/{path}")
    assert r.status_code == 200, r.content
    assert (r.json()["match"]["options"], r.json()["match"]["seed"]) == (None, None)
    assert b"SECRET-HAND" not in r.content
    finish(m)
    ended = anon.get(f"/api/matches/{m.pk}/{path}").json()["match"]
    assert (ended["options"], ended["seed"]) == ({"hands": [["SECRET-HAND"]]}, 99)


def test_unknown_match_is_404(anon: APIClient) -> None:
    assert anon.get("/api/matches/00000000-0000-0000-0000-000000000000/").status_code == 404
    assert anon.get("/api/matches/not-a-uuid/").status_code == 404


@pytest.mark.parametrize("game", ["brexit", "brasilis"])
def test_every_builtin_of_the_game_can_be_challenged(
    api: APIClient, enqueued: Enqueued, game: str
) -> None:
    # The six built-ins docs/builtin-bots.md lists, three to a table (both games seat three).
    names = builtin_names(game)
    assert len(names) == 6
    for table in (names[:3], names[3:]):
        r = challenge(api, game=game, seats=[{"builtin": name} for name in table])
        assert r.status_code == 201, r.content
        assert [s["label"] for s in r.data["seats"]] == [f"builtin:{name}" for name in table]


def test_the_schema_offers_every_builtin_as_a_seat(anon: APIClient) -> None:
    r = anon.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    enums = [
        set(s["enum"]) - {""}
        for s in r.json()["components"]["schemas"].values()
        if "greedy" in s.get("enum", [])
    ]
    assert enums == [{name for game in ("brexit", "brasilis") for name in builtin_names(game)}]


def test_a_seat_is_written_as_drfs_own_field_by_field_path_would(user: Any, other: Any) -> None:
    """MatchSeatSerializer writes its fields by hand (speed): the same as DRF's generic path,
    for a bot of the viewer's, another user's private bot, a built-in and a person."""
    from rest_framework.serializers import ModelSerializer
    from rest_framework.test import APIRequestFactory

    from tests.factories import BotFactory
    from tournaments.site.api.serializers import MatchSeatSerializer

    match = finish(MatchFactory())  # its seats' results written below, as the trigger would
    for made in [
        SeatFactory(match=match, number=0, bot_version=BotVersionFactory(bot__owner=user)),
        SeatFactory(
            match=match,
            number=1,
            bot_version=BotVersionFactory(bot=BotFactory(owner=other, is_public=False)),
            rank=2,
            score=1.5,
            verdicts={"ok": 3, "timeout": 1},
            strikes=1,
        ),
        SeatFactory(match=match, number=2, bot_version=None, builtin="greedy", rank=1),
        SeatFactory(match=match, number=3, bot_version=None, builtin="", player=other),
    ]:
        assert made.pk
    seats = list(Seat.objects.filter(match=match).order_by("number"))
    request = APIRequestFactory().get("/api/matches/")
    request.user = user
    serializer = MatchSeatSerializer(context={"request": request})
    for seat in seats:
        by_hand = serializer.to_representation(seat)
        assert by_hand == ModelSerializer.to_representation(serializer, seat)
        assert list(by_hand) == MatchSeatSerializer.Meta.fields
    assert serializer.to_representation(seats[1])["label"] == "(private bot)"


def test_a_match_is_written_as_drfs_own_field_by_field_path_would(
    user: Any, other: Any, staff: Any
) -> None:
    """MatchSerializer writes its fields by hand (speed) too: the same as DRF's generic path for
    a queued, a running, a finished, a waiting and an aborted match, a smoke match and a ladder's,
    read by anonymous, a seated owner, another user and staff, as the list reads them."""
    from django.contrib.auth.models import AnonymousUser
    from rest_framework.serializers import ModelSerializer
    from rest_framework.test import APIRequestFactory

    from tests.factories import abort, suspend
    from tournaments.competition.models import Ladder
    from tournaments.play import selectors
    from tournaments.site.api.serializers import MatchSerializer

    def seated(**kwargs: Any) -> Any:
        match = MatchFactory(created_by=user, **kwargs)
        SeatFactory(match=match, number=0, bot_version=BotVersionFactory(bot__owner=user))
        SeatFactory(match=match, number=1, bot_version=None, builtin="greedy")
        return match

    claim(seated())
    finish(seated())
    suspend(seated(human_move_seconds=60))
    abort(seated(), "its bot could not start")
    version = BotVersionFactory(bot__owner=user)
    seated(validation_of=version)
    seated(ladder=Ladder.objects.create(name="l", game="brexit", seats=2), rated=True)
    for viewer in (None, user, other, staff):
        request = APIRequestFactory().get("/api/matches/")
        request.user = viewer or AnonymousUser()
        matches = list(selectors.matches(user=viewer))
        assert len(matches) == 6 - (viewer is None or viewer == other)
        serializer = MatchSerializer(context={"request": request})
        for match in matches:
            by_hand = serializer.to_representation(match)
            assert by_hand == ModelSerializer.to_representation(serializer, match)
            assert list(by_hand) == list(dict.fromkeys(MatchSerializer.Meta.fields))
        shown = {m["status"]: m for m in map(serializer.to_representation, matches)}
        waiting = shown["waiting"]
        assert waiting["deadline"] is not None
        assert waiting["deadline"][-1] == waiting["created_at"][-1] == "Z"  # one way of writing
        assert (shown["aborted"]["error"] is None) == (viewer is None or viewer == other)


@pytest.mark.parametrize("human", [False, True])
def test_a_challenges_answer_is_the_match_as_read_back(
    api: APIClient, user: Any, other: Any, enqueued: Enqueued, human: bool
) -> None:
    """The answer is serialized from the match just made, not read back: it must be what
    reading it back gives (the match's own read), for bots of either owner, built-ins and a
    person's seat."""
    mine = BotVersionFactory(bot__owner=user)
    theirs = BotVersionFactory(bot__owner=other)
    last: dict[str, Any] = {"human": True} if human else {"builtin": "greedy"}
    seats = [{"bot_version": mine.pk}, {"bot_version": theirs.pk}, last]
    made = challenge(api, seats=seats, seed=7)
    assert made.status_code == 201, made.content
    assert made.json() == api.get(f"/api/matches/{made.data['id']}/").json()
