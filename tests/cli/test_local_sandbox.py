"""``backroom play`` seats a bot on disk in the platform's sandbox, with no Django and no service,
and writes the very document ``manage.py play`` writes (they share games.sandbox.local)."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.management import call_command
from django.test import override_settings

from games.sandbox.limits import Limits
from tests.cli.run import backroom, doc_bot, doc_commands, documented
from tests.support import untimed

pytestmark = pytest.mark.services

FIRST_LEGAL = """
import sys
def act(observation, legal):
    print("thinking", file=sys.stderr)
    if legal["actions"]:
        return legal["actions"][0]
    return {"place": []}
"""
LINEUP = [
    "--game",
    "brexit",
    "--seat",
    "bot.py",
    "--seat",
    "builtin:greedy",
    "--seat",
    "builtin:random",
]


def test_backroom_play_is_manage_py_play_without_django(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "bot.py").write_text(FIRST_LEGAL)
    done = backroom(
        "play", *LINEUP, "--seed", "11", "--out", "cli.json", config=tmp_path, cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr
    assert "seat 0  rank " in done.stdout
    assert "[seat 0 step " in done.stderr and "] thinking" in done.stderr

    # The platform's default limits (the test settings shorten them): the same as the command's.
    defaults = Limits()
    limits = {
        "BOT_MOVE_SECONDS": defaults.move_seconds,
        "BOT_BANK_SECONDS": defaults.bank_seconds,
        "BOT_START_SECONDS": defaults.start_seconds,
    }
    monkeypatch.chdir(tmp_path)
    with override_settings(**limits):
        call_command(
            "play",
            *LINEUP,
            "--seed",
            "11",
            "--out",
            "manage.json",
            stdout=io.StringIO(),
            stderr=io.StringIO(),
        )
    cli, manage = (json.loads((tmp_path / f).read_text()) for f in ("cli.json", "manage.json"))
    for doc in (cli, manage):
        for event in doc["events"]:
            event["payload"] = untimed(event["payload"])
    assert cli == manage


def test_the_command_imports_no_django_nor_a_database_driver(tmp_path: Path) -> None:
    code = (
        "import sys; from backroom_cli.main import main\n"
        "rc = main(['play', '--game', 'brexit', '--seat', 'builtin:random', '--seat', 'builtin:greedy'])\n"
        "print(sorted({m.split('.')[0] for m in sys.modules} & {'django', 'psycopg', 'celery', 'redis', 'tournaments', 'config'}))\n"
        "sys.exit(rc)"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("DJANGO_")}
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == "[]"


def test_the_documented_local_commands_run(tmp_path: Path) -> None:
    (tmp_path / "bot.py").write_text(doc_bot())
    play, simulate = doc_commands(("play", "simulate"))
    done = documented(play, config=tmp_path, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert json.loads((tmp_path / "match.json").read_text())["match"]["status"] == "finished"
    done = documented(simulate, config=tmp_path, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "brexit: 20 games, seats bot.py greedy random (rotating)" in done.stdout
    assert "20/20" in done.stderr  # the progress bar
    assert "bot.py: 0 decisions with a verdict other than ok" in done.stdout
