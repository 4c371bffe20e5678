"""Every page of the site on any screen, in a real headless Chromium: a phone (390 px wide),
a laptop (1280 px) and a desktop (1920 px) never scroll sideways.

Each page is filled the way a busy site fills it (long names, many seats, a running ladder
and season, a person's game waiting for them), then measured:
``document.documentElement.scrollWidth <= innerWidth``. A failure names the elements that
stick out past the window's right edge.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from tests.e2e.test_viewer_browser import (  # noqa: F401 (fixtures)
    _chromium_installed,
    browser,
    log_in,
)
from tests.factories import RatingFactory, UserFactory
from tests.viewer.conftest import play
from tournaments.competition.models import Ladder, Season
from tournaments.play import runner, services
from tournaments.play.models import Bot, Match

pytestmark = pytest.mark.e2e

WIDTHS = (390, 1280, 1920)
STICKING_OUT = """() => Array.from(document.querySelectorAll('body *'))
  .filter(e => e.getBoundingClientRect().right > window.innerWidth + 1)
  .slice(0, 6)
  .map(e => e.tagName.toLowerCase() + (e.id ? '#' + e.id : '') +
    (e.className && e.className.baseVal === undefined ? '.' + e.className.split(' ').join('.') : '') +
    ' ' + Math.round(e.getBoundingClientRect().right))"""


@pytest.fixture
def pages(transactional_db: None) -> Iterator[dict[str, Any]]:
    """One page of each kind, and the user to see it as (None: a visitor)."""
    owner = UserFactory(username="an-owner-with-a-rather-long-username")
    finished = play("brasilis", 6, owner, seed=8)
    Bot.objects.filter(owner=owner).update(name="a-bot-with-a-name-long-enough-to-wrap-twice")
    bot = Bot.objects.get(owner=owner)
    ladder = Ladder.objects.create(name="Brexit ladder for four", game="brasilis", seats=6)
    season = Season.objects.create(
        name="Spring season", game="brasilis", seats=6, state=Season.State.RUNNING
    )
    Match.objects.filter(pk=finished.pk).update(ladder=ladder)
    other = play("brasilis", 6, owner, seed=9)
    Match.objects.filter(pk=other.pk).update(season=season)
    for k, name in enumerate(("greedy", "random", "cautious", "bold")):
        RatingFactory(ladder=ladder, player=f"builtin:{name}", rating=1500.0 + 40 * k)
    person = UserFactory(username="a-person-playing-with-a-long-name")
    game = services.create_challenge(
        user=person,
        game="brexit",
        seats=[{"human": True}, *[{"builtin": "random"}] * 4],
        options={"max_rounds": 3},
        seed=3,
        queue=False,  # played here, by the runner: no worker to wake
    )
    runner.run_match(uuid.UUID(str(game.pk)))  # the bots play until the person must act
    assert Match.objects.get(pk=game.pk).status == Match.Status.WAITING
    yield {
        "home": ("/", None),
        "match list": ("/matches/", None),
        "viewer": (f"/matches/{finished.pk}/?step={finished.last_version // 2}", None),
        "viewer, the bot's owner": (f"/matches/{finished.pk}/?view=all", owner),
        "person's game": (f"/matches/{game.pk}/", person),
        "bot page": (f"/bots/{bot.pk}/", owner),
        "challenge": ("/challenge/?game=brasilis", owner),
        "ladder": (f"/ladders/{ladder.pk}/", None),
        "season": (f"/seasons/{season.pk}/", None),
        "login": ("/accounts/login/", None),
    }


def test_every_page_fits_a_phone_a_laptop_and_a_desktop(
    request: pytest.FixtureRequest, live_server: Any, pages: dict[str, Any]
) -> None:
    chromium = request.getfixturevalue("browser")  # the viewer tests' (imported above)
    wide: dict[str, Any] = {}
    for width in WIDTHS:
        context = chromium.new_context(
            viewport={"width": width, "height": 844 if width < 500 else 900},
            base_url=live_server.url,
        )
        try:
            for name, (url, user) in pages.items():
                context.clear_cookies()
                tab = context.new_page()
                if user is not None:
                    log_in(tab, user, live_server)
                tab.goto(url)
                tab.wait_for_load_state("load")
                # What opens must fit too: the fork panel, the Rules panel, the discards.
                tab.evaluate(
                    "() => document.querySelectorAll('details').forEach(d => d.open = true)"
                )
                scroll = tab.evaluate("() => document.documentElement.scrollWidth")
                inner = tab.evaluate("() => window.innerWidth")
                if scroll > inner:
                    wide[f"{name} at {width}"] = (scroll, tab.evaluate(STICKING_OUT))
                tab.close()
        finally:
            context.close()
    assert not wide, wide
