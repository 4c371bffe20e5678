"""``backroom`` against a live server (gunicorn and a real worker): an author's whole loop,
login -> upload -> challenge -> watch -> logs -> errors -> download, and its refusals."""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

import pytest

from tests import own_cache
from tests.cli.run import backroom
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


def test_an_author_logs_in_uploads_challenges_watches_and_downloads(
    server: str, tmp_path: Path
) -> None:
    UserFactory(username="ada")
    config = tmp_path / "config"

    def run(*args: str, stdin: str | None = None) -> tuple[int, str, str]:
        done = backroom(*args, config=config, cwd=tmp_path, stdin=stdin)
        return done.returncode, done.stdout, done.stderr

    rc, out, err = run(
        "login", "--server", server, "--username", "ada", "--password-stdin", stdin="wrong\n"
    )
    assert rc == 4 and "wrong username or password" in err, (out, err)

    rc, out, err = run(
        "login", "--server", server, "--username", "ada", "--password-stdin", stdin=PASSWORD + "\n"
    )
    assert rc == 0, err
    saved = config / "backroom" / "config.json"
    assert f"token saved in {saved}" in out
    assert saved.stat().st_mode & 0o777 == 0o600
    assert json.loads(saved.read_text())["server"] == server

    # The server is remembered: no --server from here on.
    bot_file = tmp_path / "bot.py"
    bot_file.write_text((BOTS / "chatty_bot.py").read_text())
    rc, out, err = run(
        "upload",
        str(bot_file),
        "--new",
        "chatty",
        "--game",
        "brexit",
        "--wait",
        "--timeout",
        "120",
        "--json",
    )
    assert rc == 0, err
    version = json.loads(out)
    assert version["status"] == "ready" and version["number"] == 1

    # A zip bundling a compiled extension is refused at once, with what a bot may import.
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("bot.py", bot_file.read_text())
        z.writestr("fast.cpython-311-x86_64-linux-gnu.so", b"\x7fELF")
    (tmp_path / "compiled.zip").write_bytes(buf.getvalue())
    rc, out, err = run("upload", str(tmp_path / "compiled.zip"), "--bot", str(version["bot"]))
    assert rc == 3 and "is a compiled extension" in err and "numpy" in err, err

    # Another author's private bot cannot be seated.
    private = BotFactory(is_public=False)
    rc, out, err = run(
        "challenge",
        "--game",
        "brexit",
        "--seat",
        f"bot:{private.pk}",
        "--seat",
        "builtin:random",
        "--seat",
        "builtin:random",
    )
    assert rc == 5, (out, err)

    rc, out, err = run(
        "challenge",
        "--game",
        "brexit",
        "--seat",
        f"bot:{version['bot']}",
        "--seat",
        "builtin:greedy",
        "--seat",
        "builtin:random",
        "--seed",
        "7",
        "--json",
    )
    assert rc == 0, err
    match_id = json.loads(out)["id"]

    rc, out, err = run("watch", match_id, "--timeout", "180")
    assert rc == 0, err
    lines = out.splitlines()
    assert any(line.startswith(">") and "step" in line and ": ok" in line for line in lines), out
    assert f"match {match_id}: finished" in out
    assert any(line.startswith("seat 0  rank ") for line in lines)

    rc, out, err = run("watch", match_id, "--json")
    assert rc == 0, err
    told = [json.loads(line) for line in out.splitlines()]
    assert told[-1]["status"] == "finished"
    assert any(t.get("verdict", {}).get("seat") == 0 for t in told[:-1])

    rc, out, err = run("logs", match_id)
    assert rc == 0 and "owner-only-trace: deciding" in out, err

    rc, out, err = run("errors", str(version["bot"]))
    # The errors list is another part of issue 23: tolerated, with its message, where absent.
    assert rc == 0 or (rc == 5 and "errors list" in err), (rc, out, err)

    rc, out, err = run("download", match_id, "-o", "match.json")
    assert rc == 0, err
    doc = json.loads((tmp_path / "match.json").read_text())
    assert doc["format"] == "backroom-match/1" and doc["match"]["status"] == "finished"
    assert f"match.json: {len(doc['events'])} events, finished" in out

    rc, out, err = run("watch", "00000000-0000-0000-0000-000000000000")
    assert rc == 5, (out, err)
