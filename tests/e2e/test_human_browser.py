"""A person plays a whole game on the site in a real headless Chromium, against built-in bots.

Only the page's controls are used (buttons, selects, the keyboard), with a real Celery
worker playing the bots between the person's decisions, until the final ranking shows.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

import pytest

from tests.e2e.conftest import Worker
from tests.e2e.test_viewer_browser import (  # noqa: F401 (fixtures)
    _chromium_installed,
    browser,
    log_in,
    page,
)
from tests.factories import UserFactory
from tournaments import tasks
from tournaments.play import services
from tournaments.play.models import Match

assert tasks  # registered here: the services send them by name (tournaments/play/dispatch.py)

pytestmark = pytest.mark.e2e

PANEL = "#your-seat .play-state"
READY = f'{PANEL}[data-waiting="1"], {PANEL}[data-over="1"]'


def answer(tab: Any, decisions: int) -> None:
    """Answer the decision on the page with its controls; alternate mouse and keyboard."""
    form = tab.locator("#your-seat form.act-form").first
    kind = form.get_attribute("data-kind")
    by_keyboard = decisions % 2 == 0
    if form.locator("button.choice").count():
        choices = form.locator("button.choice")
        if by_keyboard:  # the title takes the focus; Tab reaches the first action, Enter plays it
            form.locator(".play-title").focus()
            tab.keyboard.press("Tab")
            tab.keyboard.press("Enter")
        else:
            choices.nth(decisions % choices.count()).click()
    elif kind == "placement":
        selects = form.locator("select[data-card]")
        if selects.count() and not by_keyboard:
            selects.first.select_option(index=1)  # the first card beside the first country
        form.locator("button.confirm").click()
    elif kind == "bid":
        form.locator('input[name="bid"]').press("Enter")  # the minimum: submitted from the field
    else:
        pytest.fail(f"no controls for a {kind} decision:\n{form.inner_html()}")


def play_to_the_end(tab: Any, match: Match, worker: Worker) -> int:
    tab.goto(f"/matches/{match.pk}/")
    assert tab.locator("#viewer").get_attribute("data-view") == "seat0"  # the person's seat
    decisions = 0
    for _ in range(400):
        tab.wait_for_selector(READY, timeout=60_000)
        panel = tab.locator(PANEL)
        if panel.get_attribute("data-over") == "1":
            break
        step = tab.locator("#your-seat form.act-form").first.get_attribute("data-step")
        if decisions == 2 and os.environ.get("BACKROOM_SCREENSHOTS"):
            tab.screenshot(path=f"/tmp/human-{match.game}.png", full_page=True)
        answer(tab, decisions)
        decisions += 1
        tab.wait_for_function(
            "s => { const f = document.querySelector('#your-seat form.act-form');"
            " const e = document.querySelector('#your-seat .play-error:not([hidden])');"
            " return e || !f || f.dataset.step !== s; }",
            arg=step,
            timeout=60_000,
        )
        error = tab.locator("#your-seat .play-error:not([hidden])")
        assert error.count() == 0, error.inner_text()
    else:
        pytest.fail(f"the game did not end\n{worker.log[-3000:]}")
    return decisions


@pytest.mark.parametrize(("game", "options"), [("brexit", {"max_rounds": 3}), ("brasilis", {})])
def test_a_person_plays_a_whole_game_through_the_page(
    request: pytest.FixtureRequest,
    live_server: Any,
    transactional_db: None,
    start_worker: Callable[..., Worker],
    game: str,
    options: dict[str, Any],
) -> None:
    tab = request.getfixturevalue("page")  # the viewer tests' tab (imported above)
    worker = start_worker()
    person = UserFactory()
    log_in(tab, person, live_server)
    match = services.create_challenge(
        user=person,
        game=game,
        seats=[{"human": True}, {"builtin": "greedy"}, {"builtin": "random"}],
        options=options,
        seed=11,
    )
    decisions = play_to_the_end(tab, match, worker)
    match.refresh_from_db()
    assert match.status == "finished" and decisions > 0
    ranking = tab.locator("#ranking li")
    assert ranking.count() == 3
    ranks = {
        int(li.get_attribute("data-seat")): int(li.get_attribute("data-rank"))
        for li in ranking.all()
    }
    assert ranks == {s.number: s.rank for s in match.seats.all()}
    assert "(you)" in tab.locator('#ranking li[data-seat="0"]').inner_text()
    verdicts = [v for s in match.seats.all() for v in (s.verdicts or {})]
    assert "timeout" not in verdicts  # every decision was the person's own
