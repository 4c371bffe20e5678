"""Each game's styles live in its package and reach the pages through the registry.

replays/game_static.py finds ``<game>/<file>`` in the game's ``static/`` folder, as
replays/game_templates.py finds its templates; the viewer links its match's game's stylesheet
and the home page every game's (their accents), after the site's own.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from django.contrib.staticfiles import finders
from django.core.exceptions import SuspiciousFileOperation
from django.test import Client

from games.engine.registry import GAMES, get
from tests.viewer.conftest import play


def test_each_game_s_styles_are_found_in_its_own_package() -> None:
    for name in ("brexit", "brasilis"):
        info = get(name)
        assert info.styles == f"{name}/styles.css"
        assert finders.find(info.styles) == str(info.folder / "static" / "styles.css")
    # High Card draws its board with the site's styles alone: it has none, and none is found.
    assert get("highcard").styles == ""
    assert finders.find("highcard/styles.css") is None
    # A name climbing out of a game's folder is refused, as Django refuses it in STATICFILES_DIRS.
    with pytest.raises(SuspiciousFileOperation):
        finders.find("brexit/../rules.py")
    # The site's own stylesheet is the site's, not a game's.
    found = finders.find("site/site.css")
    assert isinstance(found, str) and found.endswith("tournaments/static/site/site.css")


def test_the_site_s_stylesheet_names_no_game_s_board() -> None:
    # Each class a game's stylesheet styles first in a rule is that game's alone.
    site = Path(str(finders.find("site/site.css"))).read_text(encoding="utf-8")
    for name in ("brexit", "brasilis"):
        styles = Path(str(finders.find(f"{name}/styles.css"))).read_text(encoding="utf-8")
        classes = set(re.findall(r"^\s*\.([\w-]+)", styles, re.M))
        assert {"game-" + name, "country" if name == "brexit" else "politician"} <= classes
        named = {c for c in classes if re.search(rf"\.{re.escape(c)}(?![\w-])", site)}
        assert named == set(), name


def _stylesheets(html: str) -> list[str]:
    return re.findall(r'<link rel="stylesheet" href="/static/([^"]+)">', html)


@pytest.mark.django_db
@pytest.mark.parametrize("game", ["brexit", "brasilis", "highcard"])
def test_the_viewer_links_its_game_s_styles_after_the_site_s(
    client: Client, owner: Any, game: str
) -> None:
    match = play(game, 3, owner)
    html = client.get(f"/matches/{match.pk}/").content.decode()
    expected = ["site/site.css", *([get(game).styles] if get(game).styles else [])]
    assert _stylesheets(html) == expected


@pytest.mark.django_db
def test_the_home_page_links_every_game_s_styles_after_the_site_s(client: Client) -> None:
    html = client.get("/").content.decode()
    styles = [info.styles for info in GAMES.values() if info.styles]
    assert _stylesheets(html) == ["site/site.css", *styles]
    assert set(styles) == {"brexit/styles.css", "brasilis/styles.css"}


@pytest.mark.django_db
def test_the_site_s_footer_names_every_registered_game(client: Client) -> None:
    footer = (
        client.get("/").content.decode().split('<footer class="foot">')[1].split("</footer>")[0]
    )
    for game in GAMES.values():
        assert game.title in footer
