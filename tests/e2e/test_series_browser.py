"""The series form in a real headless Chromium, on a phone (390 px) and a laptop (1280 px):
a person picks the game, then the players from the pickers (their versions, public bots,
built-ins), starts a series and an A/B test with the controls alone, and each page (the form,
the series, the test) shows names, not keys, without scrolling sideways."""

from __future__ import annotations

from typing import Any

import pytest

from tests.e2e.test_screens_browser import STICKING_OUT
from tests.e2e.test_viewer_browser import (  # noqa: F401 (fixtures)
    _chromium_installed,
    browser,
    log_in,
)
from tests.factories import BotVersionFactory, UserFactory
from tournaments.competition.models import Series
from tournaments.play.models import BotVersion

pytestmark = pytest.mark.e2e


def fits(tab: Any) -> None:
    scroll = tab.evaluate("() => document.documentElement.scrollWidth")
    inner = tab.evaluate("() => window.innerWidth")
    assert scroll <= inner, (tab.url, scroll, tab.evaluate(STICKING_OUT))


@pytest.mark.parametrize("width", [390, 1280])
def test_a_person_starts_a_series_and_an_ab_test_with_the_pickers(
    request: pytest.FixtureRequest, live_server: Any, transactional_db: None, width: int
) -> None:
    chromium = request.getfixturevalue("browser")  # the viewer tests' (imported above)
    me = UserFactory(username="an-author-with-a-long-enough-name")
    version: BotVersion = BotVersionFactory(  # type: ignore[assignment]
        bot__owner=me,
        bot__game="brasilis",
        bot__name="a-bot-with-a-name-long-enough-to-wrap",
        status=BotVersion.Status.READY,
    )
    BotVersionFactory(bot__name="someone-elses-public-bot", status=BotVersion.Status.READY)
    context = chromium.new_context(
        viewport={"width": width, "height": 844 if width < 500 else 900},
        base_url=live_server.url,
    )
    try:
        tab = context.new_page()
        tab.set_default_timeout(15_000)
        log_in(tab, me, live_server)
        tab.goto("/series/")
        assert "a-bot-with-a-name" not in tab.inner_text(".series-forms")  # a Bra$ilis bot
        fits(tab)
        with tab.expect_navigation():
            tab.select_option("select[name=game]", "brasilis")  # the page follows the game
        name = f"{version.bot.name} v1"
        series_form = tab.locator("form.series-form").first
        series_form.get_by_label(name).check()
        series_form.get_by_label("greedy (built-in)").check()
        series_form.get_by_label("random (built-in)").check()
        series_form.locator("input[name=deals]").fill("1")
        with tab.expect_navigation():
            series_form.get_by_role("button", name="Start the series").click()
        assert not tab.locator(".error").count(), tab.inner_text(".error")
        series = Series.objects.get(test__isnull=True)
        assert tab.url.endswith(f"/series/{series.pk}/")
        players = tab.inner_text("main").split("Players: ", 1)[1].split(";", 1)[0]
        assert sorted(players.split(", ")) == [name, "greedy (built-in)", "random (built-in)"]
        fits(tab)

        tab.goto("/series/?game=brasilis")
        test_form = tab.locator("form.series-form").nth(1)
        test_form.locator("select[name=candidate]").select_option(label=name)
        test_form.locator("select[name=baseline]").select_option(label="cautious (built-in)")
        test_form.get_by_label("greedy (built-in)").check()
        test_form.get_by_label("random (built-in)").check()
        test_form.locator("input[name=max_games]").fill("4")
        with tab.expect_navigation():
            test_form.get_by_role("button", name="Start the A/B test").click()
        test = Series.objects.get(test__isnull=False)
        assert test.test is not None and test.test["candidate"] == f"v:{version.pk}"
        text = tab.inner_text("main")
        assert f"{name} against cautious (built-in), with " in text and "v:" not in text
        fits(tab)
        tab.goto("/series/")
        assert f"{name} against cautious (built-in)" in tab.inner_text("main")
        fits(tab)
    finally:
        context.close()
