"""A bot's errors page and the seasons page in a real headless Chromium: they fit a phone and a
laptop, and a fault's link opens the viewer at the verdict's step with the bot's stderr in view.
BACKROOM_SCREENSHOTS=docs writes their screenshots to docs/."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from django.utils import timezone

from tests.api.test_bot_errors import _played
from tests.e2e.test_viewer_browser import (  # noqa: F401 (fixtures)
    ROOT,
    _chromium_installed,
    browser,
    log_in,
    wait_board,
)
from tests.factories import UserFactory
from tests.viewer.test_competitions import _fixtures, _season
from tournaments.competition.models import Season
from tournaments.play import webhooks
from tournaments.play.models import Fault, Seat, WebhookDelivery

pytestmark = pytest.mark.e2e


def _shots() -> Path | None:
    out = os.environ.get("BACKROOM_SCREENSHOTS")
    return ROOT / out if out else None


@contextmanager
def _tab(chromium: Any, live_server: Any, width: int, owner: Any = None) -> Iterator[Any]:
    """A page at ``width`` px (a phone's height under 500), logged in as ``owner`` if given."""
    context = chromium.new_context(
        viewport={"width": width, "height": 844 if width < 500 else 900}, base_url=live_server.url
    )
    try:
        tab = context.new_page()
        tab.set_default_timeout(15_000)
        if owner is not None:
            log_in(tab, owner, live_server)
        yield tab
    finally:
        context.close()


@pytest.mark.parametrize("width", [390, 1280])
def test_an_errors_link_opens_its_step_with_the_stderr(
    request: pytest.FixtureRequest, live_server: Any, transactional_db: None, width: int
) -> None:
    chromium = request.getfixturevalue("browser")
    owner = UserFactory(username="an-author")
    match = _played(owner)
    bot = Seat.objects.select_related("bot_version__bot").get(match=match, number=0)
    bot_id = bot.bot_version.bot_id  # type: ignore[union-attr]
    crash = Fault.objects.get(match=match, verdict="crash")
    with _tab(chromium, live_server, width, owner) as tab:
        tab.goto(f"/bots/{bot_id}/")
        tab.locator("#errors-link").click()
        tab.wait_for_selector("#kind-crash")
        assert tab.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth")
        assert "ValueError: no idea what to do" in tab.locator("#kind-crash").inner_text()
        out = _shots()
        if out is not None:
            tab.screenshot(path=str(out / f"errors-{width}.png"), full_page=width < 500)
        tab.locator("#kind-crash a.fault-link").first.click()
        wait_board(tab, crash.step)
        stderr = tab.locator("#stderr")
        assert f"asked at step {crash.asked_step}" in stderr.inner_text()
        assert "decision 4" in stderr.inner_text()
        assert tab.evaluate(
            "() => { const r = document.getElementById('stderr').getBoundingClientRect();"
            " return r.top < window.innerHeight && r.bottom > 0; }"
        ), "the stderr is scrolled into view"


@pytest.mark.parametrize("width", [390, 1280])
def test_the_seasons_page_fits(
    request: pytest.FixtureRequest, live_server: Any, transactional_db: None, width: int
) -> None:
    chromium = request.getfixturevalue("browser")
    _season("Autumn cup of the long-named league", Season.State.OPEN, starts_at=timezone.now())
    running = _season("Winter league", Season.State.RUNNING, started_at=timezone.now())
    _fixtures(running, finished=3, waiting=5)
    _season("Spring open", Season.State.FINISHED, finished_at=timezone.now())
    with _tab(chromium, live_server, width) as tab:
        tab.goto("/")
        tab.locator("#seasons-link").click()
        tab.wait_for_selector("#seasons-finished")
        assert tab.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth")
        out = _shots()
        if out is not None:
            tab.screenshot(path=str(out / f"seasons-{width}.png"), full_page=width < 500)
        tab.get_by_role("link", name="Winter league").click()
        tab.wait_for_selector("#season-progress")
        assert tab.locator("#season-progress").inner_text() == "3 of 8 matches played"
        assert tab.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth")


@pytest.mark.parametrize("width", [390, 1280])
def test_the_errors_page_fits_with_a_webhook_set(
    request: pytest.FixtureRequest, live_server: Any, transactional_db: None, width: int
) -> None:
    """Its 64-character secret and its deliveries (a long error among them) fit a phone: the
    secret wraps, the deliveries are labelled lines, not a table squeezed to letters."""
    chromium = request.getfixturevalue("browser")
    owner = UserFactory(username="an-author")
    match = _played(owner)
    seat = Seat.objects.select_related("bot_version__bot").get(match=match, number=0)
    bot = seat.bot_version.bot  # type: ignore[union-attr]
    bot.webhook_url = "https://hooks.example.com/backroom/a-rather-long-path/for-this-bot"
    bot.webhook_secret = webhooks.new_secret()
    bot.save(update_fields=["webhook_url", "webhook_secret"])
    call = uuid.uuid4()
    WebhookDelivery.objects.create(
        bot=bot, event="crash", delivery=call, attempt=1, status_code=503
    )
    WebhookDelivery.objects.create(
        bot=bot,
        event="disqualified",
        delivery=call,
        attempt=2,
        error="the host name 'hooks.example.com.a-very-long-subdomain-name.invalid' does not resolve",
    )
    with _tab(chromium, live_server, width, owner) as tab:
        tab.goto(f"/bots/{bot.pk}/errors/")
        tab.wait_for_selector("#webhook-secret")
        assert tab.locator("#webhook-secret").inner_text() == bot.webhook_secret
        assert tab.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth")
        assert "does not resolve" in tab.locator("table.deliveries").inner_text()
        if width < 500:  # each delivery a card: its cells full width, each with its label
            cell = tab.locator("table.deliveries td[data-label='Answer']").last
            assert cell.evaluate("td => td.getBoundingClientRect().width") > width * 0.7
            assert (
                tab.evaluate(
                    "() => getComputedStyle(document.querySelector("
                    "'table.deliveries td[data-label=Answer]'), '::before').content"
                )
                == '"Answer"'
            )
