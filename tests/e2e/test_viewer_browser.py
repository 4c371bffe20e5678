"""The replay viewer in a real headless Chromium (Debian's, driven by Playwright).

The browser talks to pytest-django's live server over HTTP; the pages, their
script and stylesheet are exactly what a visitor gets. No browser is downloaded:
Playwright drives Debian's /usr/bin/chromium-headless-shell, Chromium's own build for
automation (the same engine and version as Debian's ``chromium``, without the desktop
browser around it: the one Playwright runs headless by default), which cost 40% less CPU than
``chromium --headless`` on the screens test (2026-12-04). One test drives the full
/usr/bin/chromium too. ``make browser`` installs both.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from subprocess import run
from typing import Any

import pytest
from django.conf import settings
from django.test import Client

from replays import store
from tests.factories import UserFactory, flush
from tests.viewer.conftest import play, running_copy
from tests.viewer.test_owner_tools import SECRET, with_a_timeout
from tournaments import tasks
from tournaments.play.models import Match

CHROMIUM = os.environ.get("BACKROOM_CHROMIUM", "/usr/bin/chromium-headless-shell")
FULL_CHROMIUM = "/usr/bin/chromium"
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.e2e

try:
    from playwright import sync_api
except ImportError:  # checked by the fixture below, which fails under CI
    sync_api = None  # type: ignore[assignment]


@pytest.fixture(scope="module", autouse=True)
def _chromium_installed() -> None:
    # CI must run these: a missing browser or driver fails there instead of skipping quietly.
    missing = []
    if sync_api is None:
        missing.append("the playwright package (pyproject.toml, dev extra)")
    missing += [
        f"a browser at {b} (make browser)"
        for b in (CHROMIUM, FULL_CHROMIUM)
        if not Path(b).exists()
    ]
    if missing:
        message = "browser tests need " + " and ".join(missing)
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)


@contextmanager
def launched(executable: str) -> Iterator[Any]:
    """A headless browser from ``executable``, closed on the way out."""
    # Playwright's sync API runs an event loop in this thread; the ORM calls the tests
    # make around it are ordinary blocking ones. Only for these tests: left in os.environ it
    # reached every later subprocess (production's check --deploy refuses it, async.E001).
    with pytest.MonkeyPatch.context() as mp, sync_api.sync_playwright() as pw:
        mp.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
        chromium = pw.chromium.launch(executable_path=executable, args=ARGS, headless=True)
        try:
            yield chromium
        finally:
            chromium.close()


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with launched(CHROMIUM) as chromium:
        yield chromium


@pytest.fixture
def page(browser: Any, live_server: Any) -> Iterator[Any]:
    context = browser.new_context(
        viewport={"width": 1440, "height": 1000}, base_url=live_server.url
    )
    tab = context.new_page()
    tab.set_default_timeout(15_000)
    yield tab
    context.close()


def test_the_full_browser_steps_and_switches_views(
    live_server: Any, transactional_db: None
) -> None:
    """The same pages in Debian's full ``chromium``, headless, as the rest use its shell."""
    match = play("brexit", 4, UserFactory(), seed=21)
    with launched(FULL_CHROMIUM) as full:
        assert "HeadlessChrome" in full.new_page().evaluate("() => navigator.userAgent")
        tab = full.new_page(base_url=live_server.url)
        tab.goto(f"/matches/{match.pk}/?step=10")
        wait_board(tab, 10)
        tab.keyboard.press("ArrowRight")
        wait_board(tab, 11)
        tab.locator("#view").select_option("all")
        tab.wait_for_selector('#viewer[data-view="all"]')
        wait_board(tab, 11)
        assert tab.locator("#board .hand").count() == 4


def test_the_shell_is_the_same_chromium_build_as_the_browser() -> None:
    """The tests' headless shell and Debian's chromium come from one source package: the same
    version, so what the shell renders is what the browser renders."""
    versions = [
        re.search(r"\d+(\.\d+){3}", run([b, "--version"], capture_output=True, text=True).stdout)
        for b in (CHROMIUM, FULL_CHROMIUM)
    ]
    assert all(versions) and versions[0][0] == versions[1][0], versions  # type: ignore[index]


def log_in(page: Any, user: Any, live_server: Any) -> None:
    client = Client()
    client.force_login(user)
    cookie = client.cookies[settings.SESSION_COOKIE_NAME]
    page.context.add_cookies(
        [{"name": settings.SESSION_COOKIE_NAME, "value": cookie.value, "url": live_server.url}]
    )


def step_of(page: Any) -> int:
    return int(page.locator("#viewer").get_attribute("data-step"))


def board_step(page: Any) -> int:
    return int(page.locator("#board .frame").get_attribute("data-step"))


def wait_board(page: Any, step: int) -> None:
    page.wait_for_selector(f'#board .frame[data-step="{step}"]')


@pytest.mark.parametrize("game", ["brexit", "brasilis"])
def test_step_scrub_switch_views_and_follow_a_link(
    page: Any, live_server: Any, transactional_db: None, game: str
) -> None:
    owner = UserFactory()
    match = play(game, 4, owner, seed=21)
    page.goto(f"/matches/{match.pk}/?step=10")
    wait_board(page, 10)
    assert page.locator("#log li.current").get_attribute("data-step") == "10"

    page.keyboard.press("ArrowRight")
    wait_board(page, 11)
    assert "step=11" in page.url and step_of(page) == 11
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("ArrowLeft")
    wait_board(page, 9)
    page.keyboard.press("End")
    wait_board(page, match.last_version)
    page.keyboard.press("Home")
    wait_board(page, 0)

    middle = match.last_version // 2
    page.locator("#scrubber").fill(str(middle))
    wait_board(page, middle)
    assert page.locator("#step-num").inner_text() == str(middle)

    # Clicking a log line jumps there.
    page.locator(f'#log button[data-step="{middle + 3}"]').click()
    wait_board(page, middle + 3)

    # Play advances by itself; Space pauses.
    page.locator("#speed").select_option("8")
    page.locator("#play").click()
    # A function, not an expression: Playwright evals an expression in the page, which the
    # site's CSP (no 'unsafe-eval') refuses.
    page.wait_for_function(
        "(after) => Number(document.getElementById('viewer').dataset.step) > after",
        arg=middle + 6,
    )
    page.locator("body").press("Space")
    paused = step_of(page)
    page.wait_for_timeout(600)
    assert step_of(page) == paused

    # Views: a finished match opens every one; "all" shows every hand.
    page.locator("#view").select_option("all")
    page.wait_for_selector('#viewer[data-view="all"]')
    wait_board(page, paused)
    hands = page.locator("#board .hand")
    assert hands.count() == 4

    # The copied link opens the same step and view in a fresh tab.
    page.locator("#copy-link").click()
    link = page.locator("#copy-link").get_attribute("data-link")
    assert f"step={paused}" in link and "view=all" in link
    other = page.context.new_page()
    other.goto(link)
    wait_board(other, paused)
    assert other.locator("#view").input_value() == "all"
    assert other.locator("#log li.current").get_attribute("data-step") == str(paused)
    assert other.locator("#board .hand").count() == 4

    # The spectator's view of the same step shows no hand at all.
    other.goto(f"/matches/{match.pk}/?step={paused}&view=public")
    wait_board(other, paused)
    assert other.locator("#board .hand").count() == 0


def test_a_running_match_shows_new_events_as_they_arrive(
    page: Any, live_server: Any, transactional_db: None
) -> None:
    finished = play("brexit", 3, None, seed=4)
    running = running_copy(finished, 40)
    page.goto(f"/matches/{running.pk}/")
    wait_board(page, 40)
    assert page.locator("#live-badge").is_visible()
    more = store.read(finished.id, from_version=41, to_version=60)
    flush(running, [e.as_engine_event() for e in more])  # its worker's next flush
    # The viewer sat on the last step, so it follows the new ones.
    page.wait_for_selector('#log li[data-step="60"]')
    wait_board(page, 60)
    assert page.locator("#last-num").inner_text() == "60"


def test_fork_a_match_at_a_step_and_open_the_fork(
    page: Any, live_server: Any, transactional_db: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    sent: list[str] = []
    monkeypatch.setattr(tasks.play_match, "delay", sent.append)  # no worker: the page is the point
    owner = UserFactory()
    match = play("brasilis", 4, owner, seed=8)
    log_in(page, owner, live_server)
    step = match.last_version // 3
    page.goto(f"/matches/{match.pk}/?step={step}")
    wait_board(page, step)
    page.locator(".fork-box summary").click()
    page.locator('select[data-seat="0"]').select_option("builtin:greedy")
    page.locator("#fork").click()
    # A fork replays the match up to its step on the server before the page moves on: longer
    # than the page's 15 s when another suite shared the two cores (load 18, 2026-12-03).
    page.wait_for_url(re.compile(rf"/matches/(?!{match.pk})[0-9a-f-]+/"), timeout=60_000)
    fork = Match.objects.get(forked_from=match)
    assert sent == [str(fork.pk)]
    assert fork.seats.get(number=0).builtin == "greedy"  # the seat given another player
    assert fork.seats.get(number=1).builtin == "random"  # the others keep theirs
    assert str(fork.pk) in page.url
    assert page.locator(f'a[href="/matches/{match.pk}/?step={fork.forked_at}"]').count() == 1
    assert page.locator("#last-num").inner_text() == str(fork.forked_at)
    page.goto(f"/matches/{match.pk}/")
    assert page.locator(f'a[href="/matches/{fork.pk}/"]').count() == 1


def test_screenshots(page: Any, live_server: Any, transactional_db: None) -> None:
    """Desktop screenshots of both games' viewers; BACKROOM_SCREENSHOTS=docs writes them to docs/."""
    out = (
        Path(os.environ.get("BACKROOM_SCREENSHOTS", ""))
        if os.environ.get("BACKROOM_SCREENSHOTS")
        else None
    )
    owner = UserFactory()
    for game, seed in (("brexit", 21), ("brasilis", 8)):
        match = play(game, 4, owner, seed=seed)
        steps = [
            e.version for e in store.read(match.id) if e.type in ("cards_placed", "card_played")
        ]
        step = steps[len(steps) // 2]
        page.goto(f"/matches/{match.pk}/?step={step}&view=all")
        wait_board(page, step)
        shot = page.screenshot(full_page=False)
        assert len(shot) > 10_000
        if out is not None:
            target = ROOT / out / f"viewer-{game}.png"
            target.write_bytes(shot)


def test_phone_width_has_no_sideways_scroll(
    browser: Any, live_server: Any, transactional_db: None
) -> None:
    match = play("brasilis", 4, None, seed=8)
    context = browser.new_context(viewport={"width": 390, "height": 844}, base_url=live_server.url)
    tab = context.new_page()
    tab.goto(f"/matches/{match.pk}/?step={match.last_version // 2}&view=all")
    wait_board(tab, match.last_version // 2)
    width = tab.evaluate("document.documentElement.scrollWidth")
    if os.environ.get("BACKROOM_SCREENSHOTS"):
        tab.screenshot(path="/tmp/viewer-phone.png", full_page=False)
    context.close()
    assert width <= 390


def test_the_content_security_policy_blocks_nothing_the_site_uses(
    page: Any, live_server: Any, transactional_db: None
) -> None:
    # Chromium reports each blocked script, style or image on the console; none may be ours.
    refused: list[str] = []
    page.on(
        "console", lambda msg: refused.append(msg.text) if "Content Security" in msg.text else None
    )
    match = play("brexit", 3, UserFactory(), seed=5)
    page.goto(f"/matches/{match.pk}/?step=5")
    wait_board(page, 5)
    page.keyboard.press("ArrowRight")
    wait_board(page, 6)  # the viewer's script runs
    page.goto("/")
    page.goto("/admin/login/")
    page.wait_for_selector("#login-form")
    page.goto("/api/docs/")
    page.wait_for_selector(".swagger-ui .opblock")  # Swagger UI started and read the schema
    assert page.locator("#viewer").count() == 0 and not refused, refused
    # The same policy does refuse an inline script: the check above can fail.
    page.goto("/")
    # Waited for, up to 30 s: the console reports the refusal after the script is added.
    with page.expect_console_message(lambda msg: "Content Security" in msg.text, timeout=30_000):
        page.evaluate(
            "() => { const s = document.createElement('script'); s.textContent = 'window.ran = 1';"
            " document.body.appendChild(s); }"
        )
    assert page.evaluate("() => window.ran") is None
    assert refused


def _box_within(tab: Any, selector: str) -> tuple[dict[str, float], int]:
    """``selector``'s bounding box and the viewport's width, as the page lays them out."""
    box = tab.locator(selector).bounding_box()
    assert box is not None, f"{selector} is not shown"
    return box, tab.viewport_size["width"]


@pytest.mark.parametrize("width", [1280, 1400, 1920, 390])
def test_the_fork_panel_opens_within_the_screen(
    browser: Any, live_server: Any, transactional_db: None, width: int
) -> None:
    # It once hung from the right edge of its button: wherever the toolbar wrapped that button
    # near the left, the panel started left of the window (x = -53 at 1280 and 1400 px).
    owner = UserFactory()
    match = play("brexit", 4, owner, seed=21)
    context = browser.new_context(
        viewport={"width": width, "height": 900}, base_url=live_server.url
    )
    tab = context.new_page()
    log_in(tab, owner, live_server)
    tab.goto(f"/matches/{match.pk}/?step=10")
    wait_board(tab, 10)
    tab.locator(".fork-box summary").click()
    box, viewport = _box_within(tab, "#fork-form")
    scroll_width = tab.evaluate("document.documentElement.scrollWidth")
    context.close()
    assert box["x"] >= 0 and box["x"] + box["width"] <= viewport, (box, viewport)
    assert scroll_width <= viewport


def test_clicking_a_verdict_shows_the_stderr_of_its_decision(
    page: Any, live_server: Any, transactional_db: None
) -> None:
    owner = UserFactory()
    match, verdict_version = with_a_timeout(owner)
    log_in(page, owner, live_server)
    page.goto(f"/matches/{match.pk}/?step=1")
    wait_board(page, 1)
    assert page.locator("#stderr").inner_text() == "No stderr at this step."
    page.locator(".timeline .mark").click()
    wait_board(page, verdict_version)
    asked = verdict_version - 2
    assert page.locator("#stderr").inner_text() == f"seat 0 (asked at step {asked}): {SECRET}"
    page.locator(f'#log button[data-step="{asked}"]').click()
    wait_board(page, asked)
    assert page.locator("#stderr").inner_text() == f"seat 0: {SECRET}"
    page.locator(f'#log button[data-step="{verdict_version}"]').click()  # the verdict's line
    wait_board(page, verdict_version)
    assert SECRET in page.locator("#stderr").inner_text()
