"""``backroom``'s arguments, its exit codes and its stored token, with no server and no process
(tests/cli/test_live_server.py drives the same commands against a live one)."""

from __future__ import annotations

import json
import re
import socket
from pathlib import Path

import pytest

from backroom_cli import config
from backroom_cli.api import refusal
from backroom_cli.exits import Exit
from backroom_cli.main import main


@pytest.fixture(autouse=True)
def own_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    monkeypatch.delenv(config.SERVER_ENV, raising=False)
    return tmp_path / "xdg" / "backroom" / "config.json"


@pytest.mark.parametrize(
    "argv",
    [
        [],
        ["fly"],
        ["play", "--seat", "builtin:random"],
        ["play", "--game", "chess", "--seat", "builtin:random"],
        ["upload", "bot.py"],
        ["upload", "bot.py", "--bot", "1", "--new", "x"],
        ["upload", "bot.py", "--new", "x"],
        ["watch"],
        ["errors", "one"],
    ],
    ids=[
        "none",
        "unknown",
        "no-game",
        "no-such-game",
        "no-bot",
        "bot-and-new",
        "new-without-game",
        "no-match",
        "bot-not-a-number",
    ],
)
def test_bad_arguments_exit_2_with_usage(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as done:
        main(argv)
    assert done.value.code == Exit.USAGE == 2
    assert "usage: backroom" in capsys.readouterr().err


def test_help_lists_the_exit_codes(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as done:
        main(["--help"])
    assert done.value.code == 0
    out = " ".join(capsys.readouterr().out.split())
    for command in (
        "play",
        "simulate",
        "login",
        "upload",
        "challenge",
        "watch",
        "logs",
        "errors",
        "download",
    ):
        assert command in out
    assert "exit codes: 0 done; 1 the match was aborted" in out


def test_no_server_known_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["logs", "some-match"]) == Exit.USAGE
    assert "which server? give --server URL" in capsys.readouterr().err


def test_a_server_must_be_a_url(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["logs", "m", "--server", "localhost:8000"]) == Exit.USAGE
    assert "give a URL, such as http://127.0.0.1:8000" in capsys.readouterr().err


def test_no_token_for_the_server_says_to_log_in(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["download", "m", "--server", "http://127.0.0.1:9/", "--json"]) == Exit.AUTH
    out, err = capsys.readouterr()
    assert json.loads(out) == {
        "error": "not logged in to http://127.0.0.1:9: run backroom login --server http://127.0.0.1:9",
        "exit": 4,
    }
    assert err.startswith("backroom download: not logged in")


def test_the_token_is_stored_for_its_user_only_and_names_the_last_server(own_config: Path) -> None:
    config.save_token("http://a.example", "tok-a")
    config.save_token("http://b.example", "tok-b")
    assert own_config.stat().st_mode & 0o777 == 0o600
    assert own_config.parent.stat().st_mode & 0o777 == 0o700
    assert json.loads(own_config.read_text()) == {
        "server": "http://b.example",
        "tokens": {"http://a.example": "tok-a", "http://b.example": "tok-b"},
    }
    assert config.server(None) == "http://b.example"
    assert config.token("http://a.example") == "tok-a"


def test_backroom_server_env_chooses_the_server(monkeypatch: pytest.MonkeyPatch) -> None:
    config.save_token("http://a.example", "tok-a")
    monkeypatch.setenv(config.SERVER_ENV, "http://c.example/")
    assert config.server(None) == "http://c.example"
    assert config.server("http://d.example") == "http://d.example"


def test_an_unreachable_server_exits_6(capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as s:  # a port nothing listens on: bound, never listening
        s.bind(("127.0.0.1", 0))
        server = f"http://127.0.0.1:{s.getsockname()[1]}"
        config.save_token(server, "tok")
        assert main(["logs", "m"]) == Exit.UNAVAILABLE
    assert f"cannot reach {server}" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("status", "body", "code", "said"),
    [
        (
            400,
            {"file": ["x.so is a compiled extension"]},
            Exit.REFUSED,
            "file: x.so is a compiled extension",
        ),
        (
            400,
            {"seats": [{"bot_version": ["no such version"]}]},
            Exit.REFUSED,
            "seats: bot_version: no such version",
        ),
        (409, {"detail": "answered already"}, Exit.REFUSED, "answered already"),
        (429, {"detail": "Request was throttled."}, Exit.REFUSED, "Request was throttled."),
        (401, {"detail": "Invalid token."}, Exit.AUTH, "Invalid token. (run backroom login)"),
        (403, {"detail": "no"}, Exit.AUTH, "no (run backroom login)"),
        (404, {"detail": "Not found."}, Exit.NOT_FOUND, "Not found."),
        (
            502,
            "<html>Bad gateway</html>",
            Exit.UNAVAILABLE,
            "the server failed (502): <html>Bad gateway</html>",
        ),
    ],
)
def test_the_servers_refusals_become_exit_codes_with_its_message(
    status: int, body: object, code: Exit, said: str
) -> None:
    raw = body.encode() if isinstance(body, str) else json.dumps(body).encode()
    failure = refusal("POST", "/api/x/?a=1", status, raw)
    assert failure.code == code
    assert failure.message == f"POST /api/x/: {said}"


def test_the_documented_exit_codes_are_the_commands() -> None:
    from tests.deploy.docs import ROOT

    text = (ROOT / "docs" / "cli.md").read_text()
    rows = re.findall(r"^\| (\d) \| (.+) \|$", text, re.M)
    assert [int(code) for code, _ in rows] == [int(e) for e in Exit]
    from backroom_cli.main import EPILOG

    for code, _ in rows:
        assert f"{code} " in " ".join(EPILOG.split())


@pytest.mark.parametrize(
    "argv",
    [
        ["--json", "download", "m", "--server", "http://127.0.0.1:9/"],
        ["download", "m", "--server", "http://127.0.0.1:9/", "--json"],
    ],
    ids=["before-the-command", "after-it"],
)
def test_json_is_taken_before_the_command_as_after_it(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == Exit.AUTH
    assert json.loads(capsys.readouterr().out)["exit"] == Exit.AUTH


def test_a_server_without_the_errors_list_is_told_in_plain_words(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from backroom_cli import remote
    from backroom_cli.exits import Failure

    class NoList:
        def pages(self, path: str) -> list[object]:
            raise Failure(Exit.NOT_FOUND, f"GET {path}: Not found.")

    monkeypatch.setattr(remote, "api", lambda args: NoList())
    assert main(["errors", "1", "--server", "http://127.0.0.1:9/"]) == Exit.NOT_FOUND
    err = capsys.readouterr().err
    assert "this server has no errors list (GET /api/bots/1/errors/)" in err
    assert "issue" not in err
