"""A client generated from the served schema works as generated: an author's whole loop through it.

openapi-python-client (a test dependency, pyproject.toml) generates a Python client from the
schema a live server serves, into a scratch folder, with no change to what it writes. Every
generated module must import, and the client drives what a bot author does: sign up, get the
token, create a bot, upload a version as a file (multipart) and one as source text (JSON),
challenge built-ins, follow the match's events while a real worker plays it, and download the
match document. Any answer the schema does not document fails the test (the client is told to
raise on them). Generation reads nothing but the schema: no network.
"""

from __future__ import annotations

import importlib
import io
import os
import pkgutil
import shlex
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any
from uuid import UUID

import pytest

from tests.support.processes import BIN, Processes, wait_until

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.e2e]

DOCS = Path(__file__).resolve().parents[2] / "docs" / "api.md"
PACKAGE = "backroom_client"
"""The generated package's name (the folder it is generated into)."""

BOT = '''"""Plays the first legal action, or places nothing (a Brexit placement)."""


def act(observation, legal):
    if legal["actions"]:
        return legal["actions"][0]
    return {"place": []}
'''


def documented_command() -> list[str]:
    """The `openapi-python-client generate` command that docs/api.md shows."""
    for line in DOCS.read_text().splitlines():
        if line.startswith("openapi-python-client generate "):
            return shlex.split(line)
    raise AssertionError("docs/api.md shows no `openapi-python-client generate` command")


def generate(base_url: str, into: Path) -> None:
    """The documented command, against ``base_url`` instead of a development server: a
    package in ``into``."""
    args = documented_command()
    at = args.index("--url") + 1
    assert args[at] == "http://127.0.0.1:8000/api/schema/"
    assert args[args.index("--output-path") + 1] == PACKAGE
    args[0], args[at] = str(BIN / args[0]), f"{base_url}/api/schema/"
    # Its post-generation hooks run ruff, found on the PATH: the venv's.
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"}
    done = subprocess.run(args, cwd=into, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    # It warns of every part of the schema it could not turn into code, and skips that part.
    assert "Warning" not in done.stdout + done.stderr, done.stdout + done.stderr


def import_all(into: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, ModuleType]:
    """Every module of the generated package, imported: name -> module."""
    monkeypatch.syspath_prepend(str(into))
    for name in [m for m in sys.modules if m == PACKAGE or m.startswith(f"{PACKAGE}.")]:
        monkeypatch.delitem(sys.modules, name)
    package = importlib.import_module(PACKAGE)
    modules = {PACKAGE: package}
    failed: dict[str, str] = {}
    for found in pkgutil.walk_packages(package.__path__, f"{PACKAGE}."):
        try:
            modules[found.name] = importlib.import_module(found.name)
        except Exception as exc:
            failed[found.name] = f"{type(exc).__name__}: {exc}"
    assert not failed, failed
    return modules


def parsed(response: Any, status: int) -> Any:
    assert response.status_code == status, (response.status_code, response.content[:2000])
    return response.parsed


class Generated:
    """The generated package: ``api("bots.bots_create")``, its models, types and clients."""

    def __init__(self, modules: dict[str, ModuleType], base_url: str) -> None:
        self.modules, self.base_url = modules, base_url
        self.models = modules[f"{PACKAGE}.models"]
        self.types = modules[f"{PACKAGE}.types"]
        self.clients: list[Any] = []

    def api(self, name: str) -> Any:
        return self.modules[f"{PACKAGE}.api.{name}"]

    def client(self, token: str | None = None) -> Any:
        """A client of the live server that raises on any answer the schema does not document."""
        module = self.modules[f"{PACKAGE}.client"]
        made = (
            module.Client(base_url=self.base_url, raise_on_unexpected_status=True)
            if token is None
            else module.AuthenticatedClient(
                base_url=self.base_url,
                token=token,
                prefix="Token",
                raise_on_unexpected_status=True,
            )
        )
        self.clients.append(made)
        return made

    def close(self) -> None:
        # Kept-alive connections would hold the live server's threads, and their database
        # connections, past the test (the test database could not be dropped).
        for made in self.clients:
            made.get_httpx_client().close()


@pytest.fixture
def generated(
    live_server: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Generated]:
    generate(live_server.url, tmp_path)
    package = Generated(import_all(tmp_path, monkeypatch), live_server.url)
    yield package
    package.close()


def sign_up(g: Generated, username: str) -> Any:
    """An account (an anonymous call), then its token from the username and password: a client."""
    password = "a-long-pass-phrase-9"
    anonymous = g.client()
    account = parsed(
        g.api("accounts.accounts_create").sync_detailed(
            client=anonymous,
            body=g.models.AccountCreateRequest(username=username, password=password),
        ),
        201,
    )
    login = g.models.LoginRequest(username=username, password=password)
    token = parsed(
        g.api("accounts.accounts_token_create").sync_detailed(client=anonymous, body=login), 200
    ).token
    assert token == account.token
    me = g.client(token)
    assert parsed(
        g.api("accounts.accounts_me_retrieve").sync_detailed(client=me), 200
    ).username == (username)
    return me


def upload_both_ways(g: Generated, me: Any, bot_id: int) -> tuple[Any, Any]:
    """Version 1 as a file (multipart), version 2 as source text (JSON)."""
    upload = g.api("bots.bots_versions_create")
    file = g.types.File(
        payload=io.BytesIO(BOT.encode()), file_name="bot.py", mime_type="text/x-python"
    )
    by_file = parsed(
        upload.sync_detailed(bot_id, client=me, body=g.models.VersionFileUploadRequest(file=file)),
        201,
    )
    text = g.models.VersionSourceUploadRequest(source=BOT + "# the second version\n")
    by_source = parsed(upload.sync_detailed(bot_id, client=me, body=text), 201)
    return by_file, by_source


def follow(g: Generated, me: Any, match_id: UUID, worker: Any) -> list[Any]:
    """The match's events, a page at a time, asking again after the last one, until it is over."""
    events: list[Any] = []
    page_of = g.api("matches.matches_events_retrieve")

    def more() -> bool:
        after = events[-1].version if events else 0
        page = parsed(page_of.sync_detailed(match_id, client=me, after=after), 200)
        assert page.format_ == "backroom-match/1"
        events.extend(page.events)
        return bool(events) and events[-1].type_ in ("match_finished", "match_aborted")

    wait_until(more, 180, "the match to finish", worker)
    return events


def test_a_generated_client_drives_the_authors_loop(
    generated: Generated, processes: Processes
) -> None:
    g = generated
    assert len(g.modules) > 50  # the package, its client, models, and a module per operation
    worker = processes.worker()
    me = sign_up(g, "generated")

    # A bot: what the request leaves out takes its default (public).
    new_bot = g.models.BotCreateRequest(game=g.models.GameEnum.BREXIT, name="generated")
    bot = parsed(g.api("bots.bots_create").sync_detailed(client=me, body=new_bot), 201)
    assert (bot.owner, bot.is_public, bot.is_active) == ("generated", True, True)

    by_file, by_source = upload_both_ways(g, me, bot.id)
    assert [(v.number, v.filename) for v in (by_file, by_source)] == [(1, "bot.py"), (2, "bot.py")]
    source = g.api("bots.bots_versions_source_retrieve").sync_detailed(bot.id, 1, client=me)
    assert parsed(source, 200).payload.read() == BOT.encode()

    version = g.api("bots.bots_versions_retrieve")

    def status_of(number: int) -> str:
        return str(parsed(version.sync_detailed(bot.id, number, client=me), 200).status.value)

    for number in (1, 2):
        wait_until(lambda n=number: status_of(n) != "pending", 120, f"version {number}", worker)
        assert status_of(number) == "ready"

    # A challenge: the version uploaded as text against two built-ins, on a seed of its own.
    seats = [
        g.models.SeatRequest(bot_version=by_source.id),
        g.models.SeatRequest(builtin=g.models.BuiltinEnum.GREEDY),
        g.models.SeatRequest(builtin=g.models.BuiltinEnum.RANDOM),
    ]
    challenge = g.models.ChallengeRequest(game=g.models.GameEnum.BREXIT, seats=seats, seed=11)
    match = parsed(g.api("matches.matches_create").sync_detailed(client=me, body=challenge), 201)
    assert isinstance(match.id, UUID) and match.status.value in ("queued", "running")

    events = follow(g, me, match.id, worker)
    assert events[-1].type_ == "match_finished"
    assert [e.version for e in events] == list(range(1, len(events) + 1))
    finished = parsed(g.api("matches.matches_retrieve").sync_detailed(match.id, client=me), 200)
    assert finished.status.value == "finished" and finished.seed == 11
    assert sorted(s.rank for s in finished.seats) == sorted(finished.outcome.to_dict()["ranks"])

    # The match document: the same events, now with the seed.
    download = g.api("matches.matches_download_retrieve").sync_detailed(match.id, client=me)
    document = parsed(download, 200).to_dict()
    assert document["format"] == "backroom-match/1" and document["match"]["seed"] == 11
    assert [e["version"] for e in document["events"]] == [e.version for e in events]
