"""The admin's own scripts in a real headless Chromium (Debian's ``chromium``, as the viewer's
tests drive it): the season entrants' picker asks for the game the form shows."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.e2e.test_viewer_browser import (  # noqa: F401 (the browser and its check are fixtures)
    _chromium_installed,
    browser,
    log_in,
)
from tests.factories import BotVersionFactory, UserFactory

pytestmark = pytest.mark.e2e


@pytest.fixture
def tab(browser: Any, live_server: Any) -> Iterator[Any]:  # noqa: F811 (the fixture above)
    context = browser.new_context(viewport={"width": 1280, "height": 900}, base_url=live_server.url)
    opened = context.new_page()
    opened.set_default_timeout(15_000)
    yield opened
    context.close()


def offered(tab: Any, row: int, term: str, game: str) -> list[str]:
    """Open entrant ``row``'s picker, type ``term``, and read what it offers once the answer
    to that term, asked for ``game``, has come and been drawn."""
    tab.locator(f"#entrants-{row} .select2-selection").click()
    search = tab.locator(".select2-container--open .select2-search__field")
    with tab.expect_response(
        lambda r: (
            "/entrant-versions/" in r.url and f"term={term}" in r.url and f"game={game}" in r.url
        )
    ):
        search.fill(term)
    tab.wait_for_function(
        "() => !document.querySelector('.select2-container--open .loading-results')"
        " && document.querySelector('.select2-container--open .select2-results__option')"
    )
    options = tab.locator(".select2-container--open .select2-results__option")
    texts = [o.inner_text() for o in options.all()]
    # Closed by a click elsewhere: select2 ignores the first search typed after an Escape.
    tab.locator("#content h1").click()
    return texts


def test_the_entrant_picker_offers_the_versions_of_the_game_chosen(
    tab: Any, live_server: Any, transactional_db: None
) -> None:
    alice, bob = UserFactory(username="alice"), UserFactory(username="bob")
    BotVersionFactory(bot__name="clever", bot__owner=alice, bot__game="brexit")
    BotVersionFactory(bot__name="clever", bot__owner=bob, bot__game="brexit")
    BotVersionFactory(bot__name="clever-br", bot__owner=bob, bot__game="brasilis")
    log_in(tab, UserFactory(is_staff=True, is_superuser=True), live_server)
    tab.goto("/admin/tournaments/season/add/")
    tab.locator("#id_game").select_option("brasilis")
    tab.get_by_text("Add another Season entrant").click()
    assert offered(tab, 0, "clev", "brasilis") == ["clever-br v1 by bob"]
    # The game changed after the row was added: the picker asks for the new one.
    tab.locator("#id_game").select_option("brexit")
    assert sorted(offered(tab, 0, "clev", "brexit")) == ["clever v1 by alice", "clever v1 by bob"]
