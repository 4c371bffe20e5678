"""``backroom`` against a live server (gunicorn and a real worker): an author's whole loop,
login -> upload -> challenge -> watch -> logs -> errors -> download, and its refusals."""

from __future__ import annotations

import io
import json
import re
import zipfile
from pathlib import Path

import pytest

from tests import own_cache
from tests.cli.run import backroom, doc_commands, documented
from tests.factories import BotFactory, UserFactory
from tests.support.processes import Processes, free_port, platform_env, wait_for_port

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.e2e]

BOTS = Path(__file__).parents[1] / "e2e" / "bots"
PASSWORD = "pass-word-123"  # tests/factories.py: UserFactory's


@pytest.fixture
def server(processes: Processes) -> str:
    own_cache.clear()  # throttle counters of earlier runs
    port = free_port()
    processes.web(platform_env(), port)
    wait_for_port(port, 30, "gunicorn")
    processes.worker(platform_env(), prefix="cli")
    return f"http://127.0.0.1:{port}"


def test_the_documented_loop_then_what_scripts_see(server: str, tmp_path: Path) -> None:
    """docs/cli.md's commands against a server, as shown (its ids and URL put in), then the
    refusals and the JSON a script reads."""
    UserFactory(username="ada")
    config = tmp_path / "config"
    (tmp_path / "password.txt").write_text(PASSWORD + "\n")
    (tmp_path / "bot.py").write_text((BOTS / "chatty_bot.py").read_text())
    found: dict[str, str] = {}

    def doc(line: str) -> str:
        for name, value in found.items():
            line = line.replace(name, value)
        done = documented(
            line.replace("http://127.0.0.1:8000", server), config=config, cwd=tmp_path
        )
        assert done.returncode == 0, (line, done.stdout, done.stderr)
        return done.stdout

    (login, upload, challenge, watch, logs, errors, download) = doc_commands(
        ("login", "upload", "challenge", "watch", "logs", "errors", "download")
    )
    saved = config / "backroom" / "config.json"
    assert f"logged in to {server} as ada; token saved in {saved}" in doc(login)
    assert saved.stat().st_mode & 0o777 == 0o600

    said = re.fullmatch(r"bot (\d+) version 1 \(bot\.py\): ready\n", doc(upload))
    assert said, "upload --wait"
    found["BOT_ID"] = said[1]
    out = doc(challenge)
    said = re.match(r"match ([0-9a-f-]{36}): (?:queued|running)\nwatch it live: (\S+)\n", out)
    assert said, ("challenge", out)
    found["MATCH_ID"] = said[1]
    assert said[2] == f"{server}/matches/{said[1]}/"

    lines = doc(watch).splitlines()
    assert any(line.startswith(">") and " step " in line and ": ok" in line for line in lines)
    assert f"match {found['MATCH_ID']}: finished" in lines
    assert any(line.startswith("seat 0  rank ") for line in lines)
    assert "owner-only-trace: deciding" in doc(logs)
    done = documented(errors.replace("BOT_ID", found["BOT_ID"]), config=config, cwd=tmp_path)
    assert done.returncode == 0, done
    printed = doc(download)
    document = json.loads((tmp_path / "match.json").read_text())
    assert document["format"] == "backroom-match/1" and document["match"]["status"] == "finished"
    assert printed == f"match.json: {len(document['events'])} events, finished\n"

    def run(*args: str, stdin: str | None = None) -> tuple[int, str, str]:
        done = backroom(*args, config=config, cwd=tmp_path, stdin=stdin)
        return done.returncode, done.stdout, done.stderr

    rc, out, err = run("watch", found["MATCH_ID"], "--json")
    assert rc == 0, err
    told = [json.loads(line) for line in out.splitlines()]
    assert told[-1]["status"] == "finished"
    assert any(t.get("verdict", {}).get("seat") == 0 for t in told[:-1])

    rc, out, err = run(
        "login", "--server", server, "--username", "ada", "--password-stdin", stdin="wrong\n"
    )
    assert rc == 4 and "wrong username or password" in err, (out, err)

    # A zip bundling a compiled extension is refused at once, with what a bot may import.
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("bot.py", (tmp_path / "bot.py").read_text())
        z.writestr("fast.cpython-311-x86_64-linux-gnu.so", b"\x7fELF")
    (tmp_path / "compiled.zip").write_bytes(buf.getvalue())
    rc, out, err = run("upload", "compiled.zip", "--bot", found["BOT_ID"], "--json")
    assert rc == 3 and "is a compiled extension" in err and "numpy" in err, err
    assert json.loads(out)["exit"] == 3

    # Another author's private bot cannot be seated; an unknown match is not found.
    private = BotFactory(is_public=False)
    seats = ["--seat", f"bot:{private.pk}", "--seat", "builtin:random", "--seat", "builtin:random"]
    assert run("challenge", "--game", "brexit", *seats)[0] == 5
    assert run("watch", "00000000-0000-0000-0000-000000000000")[0] == 5

    # A version validation rejects: exit 1, with the reason.
    (tmp_path / "broken.py").write_text("def act(observation, legal)\n")
    rc, out, err = run("upload", "broken.py", "--bot", found["BOT_ID"], "--wait", "--timeout", "60")
    assert rc == 1, (out, err)
    assert "version 2 (broken.py): rejected" in out and "syntax error in bot.py, line 1" in out
