"""The README's quick example runs as shown: its bot, its `play` command, and B-31 with `play`."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import pytest
from django.core.management import call_command

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text()


def readme_bot() -> str:
    [code] = [b for b in re.findall(r"```python\n(.*?)```", README, re.S) if "# bot.py" in b]
    return code


def readme_play_args() -> list[str]:
    """The arguments after `manage.py play` in the README's shell example."""
    for block in re.findall(r"```sh\n(.*?)```", README, re.S):
        command = block.replace("\\\n", " ")
        for line in command.splitlines():
            words = shlex.split(line)
            if "manage.py" in words and "play" in words:
                return words[words.index("play") + 1 :]
    raise AssertionError("the README shows no `manage.py play` command")


@pytest.fixture
def in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "bot.py").write_text(readme_bot())
    return tmp_path


def test_the_readme_play_command_runs_as_shown(in_tmp: Path) -> None:
    args = readme_play_args()
    call_command("play", *args)
    out = in_tmp / args[args.index("--out") + 1]
    doc = json.loads(out.read_text())
    assert doc["match"]["status"] == "finished" and doc["match"]["outcome"] is not None


def test_three_readme_bots_end_by_the_round_limit_with_play(in_tmp: Path) -> None:
    """B-31: the example bot never wins a deal; against itself the game ends after round 60."""
    call_command("play", "--game", "brexit", *["--seat", "bot.py"] * 3, "--out", "m.json")
    doc = json.loads((in_tmp / "m.json").read_text())
    assert doc["match"]["status"] == "finished"
    ended = [e for e in doc["events"] if e["type"] == "game_ended"]
    assert len(ended) == 1 and ended[0]["payload"]["reason"] == "round_limit"
    rounds = [e["payload"]["round"] for e in doc["events"] if e["type"] == "round_started"]
    assert max(rounds) == 60
