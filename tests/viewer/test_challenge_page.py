"""Challenge from a page: the seats offered, a match made by the API's service and the live
viewer landed on; bad input shown with its message and nothing lost; another user's private
bot neither offered nor accepted; the API's challenge budget."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from games.engine.registry import GAMES
from tests.api.conftest import Enqueued, enqueued, throttle_rates
from tests.factories import BotFactory, BotVersionFactory, UserFactory
from tournaments.play.models import BotVersion, Match

pytestmark = pytest.mark.django_db
__all__ = ["enqueued"]  # the API tests' fixture: tasks sent to the broker are recorded instead

URL = "/challenge/"


@pytest.fixture
def author(owner: Any) -> Client:
    client = Client()
    client.force_login(owner)
    return client


def post(client: Client, **fields: str) -> Any:
    data = {"game": "brexit", "options": "{}", "seed": "", "human_move_seconds": ""}
    return client.post(URL, {**data, **fields})


def test_the_page_is_for_logged_in_users_and_linked_from_the_header(owner: Any) -> None:
    r = Client().get(URL)
    assert r.status_code == 302 and r["Location"].startswith("/accounts/login/?next=/challenge/")
    assert 'href="/challenge/"' not in Client().get("/").content.decode()
    client = Client()
    client.force_login(owner)
    home = client.get("/").content.decode()
    assert home.count('href="/challenge/"') == 2  # the header and the home page's buttons


def test_seats_offer_your_versions_public_bots_built_ins_and_yourself(
    author: Client, owner: Any
) -> None:
    mine = BotVersionFactory(bot__owner=owner, bot__name="my-bot")
    BotVersionFactory(bot__owner=owner, bot__name="my-pending", status=BotVersion.Status.PENDING)
    public_bot = BotFactory(name="their-bot", is_public=True)
    BotVersionFactory(bot=public_bot)
    newest = BotVersionFactory(bot=public_bot)
    BotVersionFactory(bot=public_bot, status=BotVersion.Status.REJECTED)
    private = BotVersionFactory(bot__name="secret-bot", bot__is_public=False)
    other_game = BotVersionFactory(bot__game="brasilis", bot__name="brasilis-bot")
    page = author.get(URL).content.decode()
    assert f'value="version:{mine.pk}"' in page and "my-bot v1" in page
    assert "my-pending" not in page
    assert (
        f'value="version:{newest.pk}"' in page
        and f"their-bot v2 ({public_bot.owner.username})" in page
    )
    seats = GAMES["brexit"].max_seats
    assert page.count("their-bot v") == seats  # once per seat, only its newest ready version
    assert f"version:{private.pk}" not in page and "secret-bot" not in page
    assert "brasilis-bot" not in page and f"version:{other_game.pk}" not in page
    assert 'value="builtin:greedy"' in page and 'value="human"' in page
    brasilis = author.get(URL + "?game=brasilis").content.decode()
    assert f'value="version:{other_game.pk}"' in brasilis and "my-bot" not in brasilis


def test_a_challenge_lands_on_the_live_viewer(
    author: Client, owner: Any, enqueued: Enqueued, django_capture_on_commit_callbacks: Any
) -> None:
    mine = BotVersionFactory(bot__owner=owner)
    with django_capture_on_commit_callbacks(execute=True):
        r = post(
            author,
            seat_0=f"version:{mine.pk}",
            seat_1="builtin:greedy",
            seat_2="human",
            seed="42",
            options='{"max_rounds": 5}',
            human_move_seconds="60",
        )
    assert r.status_code == 303, r.content.decode()
    match = Match.objects.get()
    assert r["Location"] == f"/matches/{match.pk}/"
    assert (match.seed, match.options["max_rounds"], match.human_move_seconds) == (42, 5, 60)
    seats = list(match.seats.order_by("number"))
    assert [s.bot_version_id for s in seats] == [mine.pk, None, None]
    assert [s.builtin for s in seats][:2] == ["", "greedy"] and seats[2].player_id == owner.pk
    assert enqueued.play_match == [str(match.pk)]
    assert author.get(r["Location"]).status_code == 200


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"options": "{not json"}, "not JSON: "),
        ({"options": "[1]"}, "give a JSON object"),
        ({"options": "[" * 5000 + "]" * 5000}, "JSON nested more than 32 levels deep"),
        ({"options": '{"a": ' + "[" * 32 + "]" * 32 + "}"}, "JSON nested more than 32 levels"),
        ({"options": '{"max_rounds": "many"}'}, "max_rounds"),
        ({"seed": "-1"}, "greater than or equal to 0"),
        ({"seed": str(2**63)}, "less than or equal to"),
        ({"human_move_seconds": "1"}, "greater than or equal to 5"),
        ({"seat_1": ""}, "This field is required."),
        ({"seat_1": "builtin:nobody"}, "Select a valid choice."),
    ],
    ids=[
        "bad-json",
        "not-an-object",
        "recursion-deep",
        "past-the-apis-depth",
        "bad-option",
        "negative-seed",
        "huge-seed",
        "short-clock",
        "missing-seat",
        "unknown-builtin",
    ],
)
def test_bad_input_is_a_400_with_its_message_and_nothing_lost(
    author: Client, enqueued: Enqueued, fields: dict[str, str], message: str
) -> None:
    chosen = {"seat_0": "builtin:cautious", "seat_1": "builtin:greedy", "seat_2": "builtin:bold"}
    r = post(author, **{**chosen, "seed": "7", **fields})
    page = r.content.decode()
    assert r.status_code == 400, page
    assert message in page
    assert not Match.objects.exists() and enqueued.play_match == []
    for name, value in {**chosen, **fields}.items():
        if name.startswith("seat_") and value in ("builtin:cautious", "builtin:bold"):
            assert f'<option value="{value}" selected>' in page  # the choices are kept
    if "seed" not in fields:
        assert 'value="7"' in page


def test_another_users_private_bot_is_not_accepted(author: Client, enqueued: Enqueued) -> None:
    private = BotVersionFactory(bot__is_public=False)
    r = post(
        author, seat_0=f"version:{private.pk}", seat_1="builtin:random", seat_2="builtin:random"
    )
    assert r.status_code == 400
    assert "Select a valid choice." in r.content.decode()
    assert not Match.objects.exists()


def test_the_services_refusal_is_shown_too(author: Client, owner: Any, enqueued: Enqueued) -> None:
    """Offered when the page was drawn, deactivated before the post: the service says so."""
    mine = BotVersionFactory(bot__owner=owner, bot__name="soon-off")
    page = author.get(URL).content.decode()
    assert f"version:{mine.pk}" in page
    BotVersionFactory._meta.model.objects.filter(pk=mine.pk).update(
        status=BotVersion.Status.PENDING
    )
    r = post(author, seat_0=f"version:{mine.pk}", seat_1="builtin:random", seat_2="builtin:random")
    assert r.status_code == 400 and not Match.objects.exists()


def test_challenges_from_the_page_use_the_apis_budget(author: Client, enqueued: Enqueued) -> None:
    seats = {"seat_0": "builtin:random", "seat_1": "builtin:random", "seat_2": "builtin:random"}
    with throttle_rates(challenges="2/hour"):
        assert post(author, **{**seats, "options": "{oops"}).status_code == 400  # not charged
        assert post(author, **seats).status_code == 303
        assert post(author, **seats).status_code == 303
        r = post(author, **seats)
    assert r.status_code == 429 and int(r["Retry-After"]) > 0
    assert "Too many challenges: try again in" in r.content.decode()
    assert Match.objects.count() == 2


def test_a_bot_page_links_to_a_challenge_seating_its_newest_ready_version(owner: Any) -> None:
    bot = BotFactory(is_public=True)
    ready = BotVersionFactory(bot=bot)
    BotVersionFactory(bot=bot, status=BotVersion.Status.PENDING)
    client = Client()
    client.force_login(owner)
    page = client.get(f"/bots/{bot.pk}/").content.decode()
    link = f'href="/challenge/?game=brexit&amp;seat=version%3A{ready.pk}"'
    assert link in page
    form = client.get(f"/challenge/?game=brexit&seat=version:{ready.pk}").content.decode()
    assert f'<option value="version:{ready.pk}" selected>' in form
    assert "Challenge it" not in Client().get(f"/bots/{bot.pk}/").content.decode()
    private = BotVersionFactory(bot__is_public=False, bot__owner=UserFactory())
    staff = Client()
    staff.force_login(UserFactory.create(is_staff=True))
    assert "Challenge it" not in staff.get(f"/bots/{private.bot.pk}/").content.decode()
