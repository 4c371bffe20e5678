"""docs/bots.md and the README show the three ways in (the site, the API, the `backroom`
command): every page, request and command they show exists, and each command is one docs/cli.md
shows, which tests/cli/test_live_server.py runs against a live server."""

from __future__ import annotations

import re
import shlex
from pathlib import Path
from typing import Any

import pytest
from django.urls import Resolver404, resolve

from tests.deploy.docs import commands

ROOT = Path(__file__).resolve().parents[2]
BOTS = (ROOT / "docs" / "bots.md").read_text()
README = (ROOT / "README.md").read_text()
RUN_BY = ("tests/cli/test_live_server.py", "test_the_documented_loop_then_what_scripts_see")
MATCH = "01234567-89ab-cdef-0123-456789abcdef"


def section(text: str, heading: str) -> str:
    return text.split(f"\n## {heading}\n", 1)[1].split("\n## ", 1)[0]


def shell_lines(text: str) -> list[str]:
    return [
        line
        for block in re.findall(r"```sh\n(.*?)```", text, re.S)
        for line in block.replace("\\\n", " ").splitlines()
        if line.strip() and not line.startswith("#")
    ]


def concrete(path: str) -> str:
    """A documented path with its placeholders filled in, and no query."""
    path = path.split("?")[0]
    path = re.sub(r"/matches/\{id\}/", f"/matches/{MATCH}/", path)
    return re.sub(r"\{\w+\}|<\w+>", "1", path)


def accepts(path: str, method: str) -> bool:
    func: Any = resolve(concrete(path)).func
    actions = getattr(func, "actions", None)  # a router's viewset: its method -> action map
    if actions is not None:
        return method.lower() in actions
    view = getattr(func, "view_class", None) or getattr(func, "cls", None)
    if view is not None:
        return hasattr(view, method.lower())
    return True  # a function view: its own decorators say which methods (the pages' tests)


def test_bots_md_starts_with_the_site_then_the_api_then_the_command() -> None:
    headings = re.findall(r"^## (.+)$", BOTS, re.M)
    assert headings[:3] == ["On the site", "With the API", "With the `backroom` command"]
    assert "(cli.md)" in section(BOTS, "With the `backroom` command")
    assert "(api.md)" in section(BOTS, "With the API")


def test_every_site_page_bots_md_names_exists() -> None:
    pages = re.findall(r"`(/[a-z/<>]*/)`", section(BOTS, "On the site"))
    assert {"/accounts/signup/", "/challenge/", "/bots/<id>/errors/"} <= set(pages)
    for page in pages:
        resolve(concrete(page))  # Resolver404 otherwise


@pytest.mark.parametrize(
    ("method", "path"),
    re.findall(r"`(GET|POST|PATCH|PUT|DELETE) (/api/[^` ]+)`", section(BOTS, "With the API")),
)
def test_every_request_bots_md_shows_is_an_endpoint_for_that_method(method: str, path: str) -> None:
    assert accepts(path, method), (method, path)


def test_every_api_path_the_readme_shows_exists() -> None:
    paths = re.findall(r"`(?:POST )?(/api/[^` ]+)`", README)
    assert "/api/bots/{id}/versions/" in paths
    for path in paths:
        try:
            resolve(concrete(path))
        except Resolver404:
            pytest.fail(f"the README shows {path}, which is no endpoint")


@pytest.mark.parametrize("doc", ["README.md", "docs/bots.md"])
def test_every_backroom_command_shown_is_one_docs_cli_md_runs(doc: str) -> None:
    shown = [line for line in shell_lines((ROOT / doc).read_text()) if line.startswith("backroom ")]
    assert {shlex.split(line)[1] for line in shown} >= {"login", "upload", "challenge"}
    run = commands("cli.md")
    assert all(line in run for line in shown), [line for line in shown if line not in run]
    path, test = RUN_BY
    assert f"def {test}(" in (ROOT / path).read_text()
    assert "doc_commands(" in (ROOT / path).read_text()
