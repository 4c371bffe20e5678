"""Challenge from the page in a real headless Chromium, on a phone (390 px) and a laptop
(1280 px): the form fits without sideways scrolling, a refusal keeps what was chosen, and a
match lands on its live viewer."""

from __future__ import annotations

import re
from typing import Any

import pytest

from tests.e2e.test_screens_browser import STICKING_OUT
from tests.e2e.test_viewer_browser import (  # noqa: F401 (fixtures)
    _chromium_installed,
    browser,
    log_in,
)
from tests.factories import BotVersionFactory, UserFactory
from tournaments.play.models import Match

pytestmark = pytest.mark.e2e


@pytest.mark.parametrize("width", [390, 1280])
def test_challenge_from_the_page_lands_on_the_viewer(
    browser: Any,  # noqa: F811 (the fixture imported above)
    live_server: Any,
    transactional_db: None,
    width: int,
) -> None:
    author = UserFactory(username=f"author-{width}")
    mine = BotVersionFactory(bot__owner=author, bot__name="a-bot-with-a-long-enough-name")
    context = browser.new_context(
        viewport={"width": width, "height": 844 if width < 500 else 900},
        base_url=live_server.url,
    )
    try:
        tab = context.new_page()
        log_in(tab, author, live_server)
        tab.goto("/")
        tab.get_by_role("navigation", name="Site").get_by_role("link", name="Challenge").click()
        tab.wait_for_url(re.compile(r"/challenge/$"))
        tab.get_by_label("Seat 1", exact=True).select_option(f"version:{mine.pk}")
        tab.get_by_label("Seat 2", exact=True).select_option("builtin:greedy")
        tab.get_by_label("Seed").fill("7")
        tab.get_by_label("Options").fill('{"max_rounds": ')
        tab.get_by_role("button", name="Start the match").click()
        tab.wait_for_load_state("load")
        assert tab.get_by_text("not JSON: ").is_visible()
        assert tab.get_by_label("Seat 1", exact=True).input_value() == f"version:{mine.pk}"
        scroll, inner = tab.evaluate(
            "() => [document.documentElement.scrollWidth, window.innerWidth]"
        )
        assert scroll <= inner, tab.evaluate(STICKING_OUT)
        assert tab.get_by_label("Seed").input_value() == "7"
        tab.get_by_label("Options").fill('{"max_rounds": 4}')
        tab.get_by_role("button", name="Start the match").click()
        tab.wait_for_url(re.compile(r"/matches/[0-9a-f-]{36}/"))
        match = Match.objects.get()
        assert f"/matches/{match.pk}/" in tab.url  # the viewer adds its step and view
        assert tab.locator("#viewer").is_visible()
        assert match.seed == 7 and match.options["max_rounds"] == 4
        assert match.seats.get(number=0).bot_version_id == mine.pk
    finally:
        context.close()
