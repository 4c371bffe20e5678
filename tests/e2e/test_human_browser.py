"""A person plays a whole game on the site in a real headless Chromium, against built-in bots.

Only the page's controls are used (buttons, selects, a number field, the keyboard), with a
real Celery worker playing the bots between the person's decisions, until the final ranking
shows; on a phone (390 px wide) and on a laptop (1280 px). At every decision the page is
checked as a person reads it: each choice is a sentence without ids, each card in hand shows
its value, the board shows the decision's step, the turn is told (title, highlight, focus, a
ticking clock) and nothing scrolls sideways.

BACKROOM_SCREENSHOTS=docs writes the screenshots of the README (docs/person-<game>-<width>.png).
"""

from __future__ import annotations

import os
import random
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.conftest import Worker
from tests.e2e.test_viewer_browser import (  # noqa: F401 (fixtures)
    _chromium_installed,
    browser,
    log_in,
)
from tests.factories import UserFactory
from tournaments import tasks
from tournaments.play import services

assert tasks  # registered here: the services send them by name (tournaments/play/dispatch.py)

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[2]
PANEL = "#your-seat .play-state"
READY = f'{PANEL}[data-waiting="1"], {PANEL}[data-over="1"]'
RAW_ID = re.compile(
    r"\bP_\d+|\b[A-Z]{1,2}\d{1,2}\b|\bEV\d+\b|\b[A-Z]+_[A-Z0-9_]+\b"  # card, news, agenda ids
    r"|\b(?:seat|target|slot|destination|neighbour|deal|give_to|play)\s*:?\s*\d"  # bare numbers
    r"|[{}\[\]\"]"  # JSON
)
"""What an action's label must never show: an engine id, a bare seat number, raw JSON."""
SENTENCE = re.compile(r"^[A-Z][^\n]*[a-z]")

GAMES = [
    ("brexit", {"max_rounds": 3}),
    # Two rounds (the aids' auction starts in round 2) of short hands; Media Control lets the
    # revealer see two news before either is in dispute.
    ("brasilis", {"more_your_way": {"rounds": 2, "hand_size": 3}, "media_control": True}),
]


def check_the_page(tab: Any, width: int) -> None:
    """What a person reads at a decision: sentences, card values, the turn, the same step."""
    form = tab.locator("#your-seat form.act-form").first
    # The board shows the step the decision is asked at (the panel waits for it, never
    # announcing a decision over an older board; only a board that cannot load within 8 s is
    # caught up with after the decision shows, as on a loaded machine: so waited for).
    tab.wait_for_function(
        "s => document.querySelector('#board .frame')?.dataset.step === s",
        arg=form.get_attribute("data-step"),
        timeout=30_000,
    )
    sentences = [b.inner_text() for b in form.locator("button.choice").all()]
    sentences.append(form.locator(".play-title").inner_text())
    for sentence in sentences:
        assert SENTENCE.match(sentence) and not RAW_ID.search(sentence), sentence
    for option in form.locator("select[data-card] option").all():  # "beside Japan (Asia, Money)"
        assert not RAW_ID.search(option.inner_text()), option.inner_text()
    # Every card in hand, on the board and in the placement, shows its value.
    for where in ("#board .hand [data-card]", "#your-seat .place-card"):
        for card in tab.locator(where).all():
            value = card.locator(".card-value")
            assert value.count() == 1 and value.inner_text().strip(), card.inner_html()
    # The turn is told without a sound: title, highlight, focus on the decision, the clock.
    assert tab.title().startswith("Your move")
    assert "your-turn" in (tab.locator("#your-seat").get_attribute("class") or "")
    assert tab.evaluate("() => !!document.activeElement.closest('#your-seat form.act-form')")
    assert re.fullmatch(r"\d+:\d\d left", tab.locator("#your-seat .clock").first.inner_text())
    # The seats go by the game's names, even on a page opened before the game named them.
    you = re.match(r"You play (.+?) ·", form.locator(".play-clock").inner_text())
    assert you and tab.locator('.seat-name[data-seat="0"]').inner_text() == you.group(1)
    assert tab.locator('#view option[data-seat="0"]').inner_text() == f"{you.group(1)} (seat 0)"
    # A person's seat is a person's, never "England's bot: ok" under "Your bot at this step".
    assert tab.locator(".owner-tools").count() == 0
    assert "'s bot" not in tab.locator("#log").inner_text()
    assert tab.evaluate("() => document.documentElement.scrollWidth") <= width


def explains_on_focus(tab: Any) -> None:
    """Hovering a card shows its title; focusing it (the keyboard) shows the same in a tip."""
    card = tab.locator("#board .hand [data-card]").first
    title = card.get_attribute("title") or ""
    text = card.locator(".card-text").inner_text()
    assert text and text in title and card.locator(".card-value").inner_text() in title
    card.focus()
    tip = tab.locator(".tip")
    assert tip.is_visible() and tip.inner_text() == title
    box, width = tip.bounding_box(), tab.viewport_size["width"]
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= width
    tab.locator("#your-seat .play-title").focus()  # back to the decision


def keeps_its_place_when_polled(tab: Any) -> None:
    """The panel is polled while it waits for the person: the same decision, fetched again,
    keeps the focus and what has been chosen so far (a poll used to replace it, every 5 s)."""
    form = tab.locator("#your-seat form.act-form").first
    chosen = form.locator("select[data-card], input[name='bid']").first
    if chosen.count() and chosen.evaluate("e => e.tagName") == "SELECT":
        chosen.select_option(index=chosen.locator("option").count() - 1)
    typed = chosen.input_value() if chosen.count() else None
    tab.locator("#your-seat .play-title").focus()
    with tab.expect_response(lambda r: r.url.endswith("/play/"), timeout=20_000):
        pass  # the panel's next poll
    assert tab.evaluate("() => !!document.activeElement.closest('#your-seat form.act-form')")
    if typed is not None:
        assert chosen.input_value() == typed


def answer(tab: Any, decisions: int, rng: random.Random) -> None:
    """Answer the decision on the page with its controls; alternate mouse and keyboard."""
    form = tab.locator("#your-seat form.act-form").first
    kind = form.get_attribute("data-kind")
    by_keyboard = decisions % 2 == 0
    choices = form.locator("button.choice")
    if choices.count():
        choice = choices.nth(rng.randrange(choices.count()))
        if by_keyboard:
            choice.focus()
            tab.keyboard.press("Enter")
        else:
            choice.click()
    elif kind == "placement":
        selects = form.locator("select[data-card]")
        for i in range(selects.count()):  # each card kept (the first option) or placed, evenly
            options = selects.nth(i).locator("option").count()
            keep = rng.random() < 0.5
            selects.nth(i).select_option(index=0 if keep else rng.randrange(1, options))
        form.locator("button.confirm").click()
    elif kind == "bid":
        field = form.locator('input[name="bid"]')
        most = int(field.get_attribute("max") or 0)
        field.fill(str(rng.randrange(0, most + 1, 100)))
        field.press("Enter")  # submitted from the field
    else:
        pytest.fail(f"no controls for a {kind} decision:\n{form.inner_html()}")


def play_to_the_end(tab: Any, worker: Worker, seed: int, shot: Path | None) -> int:
    width = tab.viewport_size["width"]
    rng = random.Random(seed)
    decisions = 0
    for _ in range(400):
        tab.wait_for_selector(READY, timeout=60_000)
        if tab.locator(PANEL).get_attribute("data-over") == "1":
            break
        check_the_page(tab, width)
        if decisions == 0:
            explains_on_focus(tab)
            keeps_its_place_when_polled(tab)
        form = tab.locator("#your-seat form.act-form").first
        step, kind = form.get_attribute("data-step"), form.get_attribute("data-kind")
        if shot is not None and kind in ("placement", "dispute") and decisions >= 1:
            tab.locator("#your-seat").scroll_into_view_if_needed()
            shot.write_bytes(tab.screenshot(full_page=False))
            if os.environ.get("BACKROOM_FULL_PAGES"):  # a look at the whole page, not kept
                tab.screenshot(path=str(shot.with_suffix(".full.png")), full_page=True)
            shot = None
        answer(tab, decisions, rng)
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


@pytest.fixture
def tab(request: pytest.FixtureRequest, live_server: Any, width: int) -> Iterator[Any]:
    """A tab ``width`` px wide (a phone's height at 390), closed after the test even if it
    failed: a tab left open would go on polling the next test's server."""
    context = request.getfixturevalue("browser").new_context(
        viewport={"width": width, "height": 900 if width > 500 else 844},
        base_url=live_server.url,
    )
    page = context.new_page()
    page.set_default_timeout(15_000)
    yield page
    context.close()


@pytest.mark.parametrize("width", [390, 1280])
@pytest.mark.parametrize(("game", "options"), GAMES)
def test_a_person_plays_a_whole_game_through_the_page(
    tab: Any,
    live_server: Any,
    transactional_db: None,
    start_worker: Callable[..., Worker],
    game: str,
    options: dict[str, Any],
    width: int,
) -> None:
    person = UserFactory()
    log_in(tab, person, live_server)
    match = services.create_challenge(
        user=person,
        game=game,
        seats=[{"human": True}, {"builtin": "random"}, {"builtin": "random"}],
        options=options,
        seed=11,
    )
    # Opened before the game has begun (no worker yet), as right after creating it: the page
    # knows no seat's name and no decision, and must catch up with both.
    tab.goto(f"/matches/{match.pk}/")
    assert tab.locator("#viewer").get_attribute("data-view") == "seat0"  # the person's seat
    assert tab.locator("#viewer").get_attribute("data-last") == "0"  # Brexit's seats: "Seat 0"...
    worker = start_worker()
    target = os.environ.get("BACKROOM_SCREENSHOTS")
    shot = ROOT / target / f"person-{game}-{width}.png" if target else None
    decisions = play_to_the_end(tab, worker, match.seed, shot)
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
    assert not tab.title().startswith("Your move")  # no longer the person's turn
    log = tab.locator("#log").inner_text()
    assert "(a person) decides." in log and "'s bot" not in log
    verdicts = [v for s in match.seats.all() for v in (s.verdicts or {})]
    assert "timeout" not in verdicts  # every decision was the person's own
