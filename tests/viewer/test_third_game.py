"""The tests' own game (tests/support/games/highcard) on the site: board, sentences, controls, rules.

The site names no game: the board's template, the sentences, the seat labels, a person's
controls and the rules page all come from the game's package, through the registry.
"""

from __future__ import annotations

import re
import uuid
from typing import Any

import pytest
from django.test import Client

from tests.factories import UserFactory
from tests.viewer.conftest import play, running_copy
from tournaments.play import runner, services
from tournaments.play.models import Match

pytestmark = pytest.mark.django_db


@pytest.fixture
def highcard_match(owner: Any) -> Match:
    return play("highcard", 3, owner)


def test_a_finished_match_shows_the_games_board_and_sentences(
    client: Client, highcard_match: Match
) -> None:
    html = client.get(f"/matches/{highcard_match.pk}/?view=all").content.decode()
    assert "High Card" in html
    assert html.count('class="player highcard') == 3  # the game's own template
    assert len(re.findall(r'data-card="c\d"', html)) == 3  # every card up, the match is over
    assert "A game of High Card for 3." in html
    assert "Player 1 is dealt c" in html and "Cards up: Player 1 c" in html
    assert re.search(r"Player \d( and Player \d)* wins\.", html)
    board = client.get(f"/matches/{highcard_match.pk}/board/?step=2").content.decode()
    assert 'class="player highcard' in board


def test_a_running_match_hides_each_card_from_those_who_may_not_see_it(
    client: Client, highcard_match: Match, owner: Any
) -> None:
    running = running_copy(highcard_match, upto=4, owner=owner)  # dealt, nobody has decided
    public = client.get(f"/matches/{running.pk}/").content.decode()
    assert "data-card" not in public and public.count("▮") == 3
    assert "Player 2 is dealt a card." in public and not re.search(r"dealt c\d", public)
    client.force_login(owner)  # seat 0 is the owner's bot
    seat0 = client.get(f"/matches/{running.pk}/?view=seat0").content.decode()
    assert len(re.findall(r'data-card="c\d"', seat0)) == 1
    assert re.search(r"Player 1 is dealt c\d\.", seat0) and "Player 2 is dealt a card." in seat0


def test_a_person_plays_the_tests_game_with_its_own_controls(client: Client) -> None:
    person: Any = UserFactory()
    seats: list[dict[str, Any]] = [{"human": True}, {"builtin": "greedy"}]
    match = services.create_challenge(
        user=person, game="highcard", seats=seats, seed=1, queue=False
    )
    runner.run_match(uuid.UUID(str(match.pk)))
    match.refresh_from_db()
    assert match.status == Match.Status.WAITING
    client.force_login(person)
    html = client.get(f"/matches/{match.pk}/").content.decode()
    assert "Your move: Keep your card or swap it" in html
    assert "Keep your card</button>" in html and "Swap your card for a random one</button>" in html
    assert 'data-action="{&quot;swap&quot;: true}"' in html


def test_the_games_rules_page_comes_from_its_package(client: Client) -> None:
    r = client.get("/docs/highcard/")
    assert r.status_code == 200
    html = r.content.decode()
    assert "<h1>High Card</h1>" in html and "<code>swap</code>" in html
    nav = client.get("/docs/bots/").content.decode().split('class="doc-nav"')[1].split("</nav>")[0]
    assert 'href="/docs/highcard/">High Card rules</a>' in nav
    assert 'href="/docs/brexit/">Brexit: The Real Deal rules</a>' in nav


def test_the_home_page_lists_the_tests_game(client: Client) -> None:
    assert "High Card" in client.get("/").content.decode()
