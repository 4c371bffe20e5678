"""A person's game on the site: their seat is a person's, the Rules panel and its key, the clock.

The browser tests (tests/e2e/test_human_browser.py) play whole games through the page; these
read the pages a person is served, with the runner playing the bots in-process.
"""

from __future__ import annotations

import re
import uuid
from typing import Any

import pytest
from django.test import Client, RequestFactory

from games.engine.registry import GAMES
from tests.factories import UserFactory
from tournaments.play import runner, selectors, services
from tournaments.play.models import Match
from tournaments.play.selectors import replay
from tournaments.site.pages import views
from tournaments.site.pages.views import clock

pytestmark = pytest.mark.django_db


def waiting(game: str, person: Any, **options: Any) -> Match:
    """A match of ``person`` against two random bots, waiting for the person's first move."""
    match = services.create_challenge(
        user=person,
        game=game,
        seats=[{"human": True}, {"builtin": "random"}, {"builtin": "random"}],
        options=options,
        seed=4,
        queue=False,
    )
    runner.run_match(uuid.UUID(str(match.pk)))
    match.refresh_from_db()
    assert match.status == Match.Status.WAITING
    return match


def move_once(person: Any, match: Match) -> Match:
    """The person's first legal action, then the bots' reply."""
    (decision,) = selectors.person_decisions(person, match.pk)
    legal = decision.legal or {}
    action = legal["actions"][0] if legal.get("actions") else {"place": []}
    if "bid" in (legal.get("space") or {}):
        action = {"bid": 0}
    services.submit_action(user=person, match_id=match.pk, action=action, step=decision.step)
    runner.run_match(uuid.UUID(str(match.pk)))
    match.refresh_from_db()
    return match


@pytest.mark.parametrize("game", ["brexit", "brasilis"])
def test_a_persons_seat_is_a_persons_not_a_bots(client: Client, game: str) -> None:
    person: Any = UserFactory(username="ada")
    match = move_once(person, waiting(game, person))
    client.force_login(person)
    html = client.get(f"/matches/{match.pk}/").content.decode()
    assert 'ada <span class="person">(a person)</span>' in html
    assert "human:ada" not in html
    assert "(a person) decides." in html and "'s bot: ok" not in html
    # No bot, so no stderr or act message: the owner's tools are not shown for this seat.
    assert "Your bot at this step" not in html and "owner-tools" not in html
    # Anyone reading the log reads the same.
    log = Client().get(f"/matches/{match.pk}/log/?after=0").json()["lines"]
    assert any(line["text"].endswith("(a person) decides.") for line in log)


@pytest.mark.parametrize("game", ["brexit", "brasilis"])
def test_the_rules_panel_summarises_the_rules_doc_and_keys_every_abbreviation(
    client: Client, game: str
) -> None:
    person: Any = UserFactory()
    match = waiting(game, person)
    client.force_login(person)
    html = client.get(f"/matches/{match.pk}/").content.decode()
    panel = html.split('class="rules-panel"')[1].split("</details>")[0]
    first_words = " ".join(GAMES[game].rules_summary.split()[:6])
    assert first_words in " ".join(panel.split())
    assert f'href="/docs/{game}/"' in panel
    # Every abbreviation or card the board explains points at an entry of the key.
    targets = set(re.findall(r'aria-describedby="(term-[\w-]+)"', html))
    keyed = set(re.findall(r'id="(term-[\w-]+)"', panel))
    assert targets and targets <= keyed, targets - keyed
    if game == "brexit":
        for abbr in ("AS", "CW", "AM"):
            assert f'<span class="abbr">{abbr}</span>' in panel


def test_a_decision_shows_a_ticking_clock_and_whom_you_play(client: Client) -> None:
    person: Any = UserFactory()
    match = waiting("brasilis", person)
    client.force_login(person)
    html = client.get(f"/matches/{match.pk}/play/").content.decode()
    left = int(re.search(r'data-seconds-left="(\d+)"', html).group(1))  # type: ignore[union-attr]
    assert 590 <= left <= 600  # ten minutes a decision, counted by the server
    assert f"{clock(left)} left" in html and "You play Politician 1" in html
    assert clock(5) == "0:05" and clock(600) == "10:00" and clock(3723) == "1:02:03"


def test_a_bid_says_what_is_auctioned(client: Client) -> None:
    """Bra$ilis' auctions start in round 2: a 1-round-per-politician game reaches one fast."""
    person: Any = UserFactory()
    match = waiting("brasilis", person, more_your_way={"rounds": 2, "hand_size": 1})
    client.force_login(person)
    for _ in range(60):
        page = client.get(f"/matches/{match.pk}/play/").content.decode()
        if 'data-kind="bid"' in page:
            lot = re.search(r"Your sealed bid for the (\w+)", page)
            assert lot and lot.group(1) in {
                "Marketeer",
                "Lawyer",
                "Advertiser",
                "Colonel",
                "Palanque",
            }
            assert 'class="about"' in page and "card-text" in page
            return
        match = move_once(person, match)
        if match.status != Match.Status.WAITING:
            break
    pytest.fail("the person was never asked to bid")


def test_a_panel_read_before_the_game_began_names_the_seat_as_the_game_does() -> None:
    """The match was read before its opening event, the decisions after it (a race the panel's
    first poll can lose): the seat is named as the game names it, not "seat 0"."""
    person: Any = UserFactory()
    match = waiting("brexit", person)
    before = Match.objects.get(pk=match.pk)
    before.last_version = 0  # as read an instant before the runner dealt
    request = RequestFactory().get(f"/matches/{match.pk}/play/")
    request.user = person
    panel = views._play(request, before, ["seat 0", "seat 1", "seat 2"])
    assert panel is not None
    (decision,) = panel["decisions"]
    nation = replay.labels(match, 3)[0]
    assert decision["name"] == nation and nation != "seat 0"
    assert before.last_version == match.last_version > 0
