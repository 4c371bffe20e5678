"""The admin's own scripts in a real headless Chromium (Debian's ``chromium``, as the viewer's
tests drive it): the season entrants' picker asks for the game the form shows."""

from __future__ import annotations

from typing import Any

import pytest

from tests.e2e.test_viewer_browser import (  # noqa: F401 (fixtures)
    _chromium_installed,
    browser,
    log_in,
    page,
)
from tests.factories import BotVersionFactory, UserFactory

pytestmark = pytest.mark.e2e


def offered(page: Any, row: int, term: str) -> list[str]:
    """Open entrant ``row``'s picker, type ``term``, and read what it offers."""
    page.locator(f"#entrants-{row} .select2-selection").click()
    search = page.locator(".select2-container--open .select2-search__field")
    search.fill(term)
    options = page.locator(".select2-container--open .select2-results__option")
    page.wait_for_function(
        "() => !document.querySelector('.select2-container--open .loading-results')"
        " && document.querySelector('.select2-container--open .select2-results__option')"
    )
    texts = [o.inner_text() for o in options.all()]
    search.press("Escape")
    return texts


def test_the_entrant_picker_offers_the_versions_of_the_game_chosen(
    page: Any, live_server: Any, transactional_db: None
) -> None:
    alice, bob = UserFactory(username="alice"), UserFactory(username="bob")
    BotVersionFactory(bot__name="clever", bot__owner=alice, bot__game="brexit")
    BotVersionFactory(bot__name="clever", bot__owner=bob, bot__game="brexit")
    BotVersionFactory(bot__name="clever-br", bot__owner=bob, bot__game="brasilis")
    log_in(page, UserFactory(is_staff=True, is_superuser=True), live_server)
    page.goto("/admin/tournaments/season/add/")
    page.locator("#id_game").select_option("brasilis")
    page.get_by_text("Add another Season entrant").click()
    assert offered(page, 0, "clev") == ["clever-br v1 by bob"]
    # The game changed after the row was added: the picker asks for the new one.
    page.locator("#id_game").select_option("brexit")
    assert sorted(offered(page, 0, "clev")) == ["clever v1 by alice", "clever v1 by bob"]
