"""manage.py simulate with a bot on disk: it plays in the platform's sandbox, seats rotating."""

from __future__ import annotations

import json
import re
import shlex
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from tests.games.sandbox.conftest import sandbox_ready  # noqa: F401 (a fixture)
from tests.games.sandbox.test_examples import DOC, example


def simulate(*args: str) -> str:
    out = StringIO()
    call_command("simulate", *args, stdout=out)
    return out.getvalue()


@pytest.mark.usefixtures("sandbox_ready")
def test_an_uploaded_style_bot_is_measured_in_the_sandbox(tmp_path: Path) -> None:
    bot = tmp_path / "bot.py"
    bot.write_text(example("brasilis"))
    seats = ["--seat", str(bot), "--seat", "builtin:random", "--seat", "random"]
    out = simulate("--game", "brasilis", *seats, "--games", "3", "--no-progress", "--json")
    doc = json.loads(out.strip().splitlines()[-1])
    by_bot = {row["bot"]: row for row in doc["bots"]}
    assert set(by_bot) == {str(bot), "random"}
    assert by_bot[str(bot)]["seat_games"] == 3  # one seat in each game, rotating
    assert by_bot["random"]["seat_games"] == 6
    assert f"{bot}: 0 decisions with a verdict other than ok" in out


@pytest.mark.usefixtures("sandbox_ready")
def test_a_faulty_bot_s_faults_are_counted(tmp_path: Path) -> None:
    bot = tmp_path / "broken.py"
    bot.write_text("def act(observation, legal):\n    raise RuntimeError('no')\n")
    seats = ["--seat", str(bot), "--seat", "builtin:random", "--seat", "builtin:random"]
    out = simulate("--game", "brexit", *seats, "--games", "2", "--no-progress")
    faults = re.search(rf"{re.escape(str(bot))}: (\d+) decisions", out)
    assert faults is not None and int(faults.group(1)) >= 2 * 3  # three strikes a game, at least


def test_a_seat_that_is_no_bot_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(CommandError, match="no such file, and not builtin:NAME"):
        simulate("--game", "brexit", "--seat", str(tmp_path / "missing.py"), "--seat", "random")
    with pytest.raises(CommandError, match="unknown built-in bot 'nope'"):
        simulate("--game", "brexit", "--seat", "builtin:nope", "--seat", "random")


@pytest.mark.usefixtures("sandbox_ready")
def test_the_documented_simulate_command_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """docs/bots.md's command, as printed, with its example bot saved as bot.py."""
    [command] = re.findall(r"python manage.py (simulate .*?)\n```", DOC.read_text(), re.S)
    args = shlex.split(command.replace("\\\n", " "))
    assert "bot.py" in args
    (tmp_path / "bot.py").write_text(example("brexit"))
    monkeypatch.chdir(tmp_path)
    out = StringIO()
    call_command(*args, stdout=out)
    assert re.search(r"^bot\.py +\d+ ", out.getvalue(), re.M)  # its row in the table


NEW_BUILTINS = ("cautious", "bold", "quick")
BUILTIN_DOC = Path(__file__).resolve().parents[2] / "docs" / "builtin-bots.md"


def measured_commands() -> list[str]:
    """docs/builtin-bots.md's measuring commands that seat one of the newer built-ins."""
    found = re.findall(r"^\|[^|]*\| `(--game [^`]+)`", BUILTIN_DOC.read_text(), re.M)
    return [c for c in found if any(f"--seat {name} " in c for name in NEW_BUILTINS)]


def test_the_newer_builtins_are_measured_in_the_docs() -> None:
    # Each game's page shows a measured row for each of them.
    commands = measured_commands()
    for game in ("brexit", "brasilis"):
        for name in NEW_BUILTINS:
            assert any(f"--game {game} --seat {name} " in c for c in commands), (game, name)


@pytest.mark.parametrize(
    "command", measured_commands(), ids=lambda c: "-".join(shlex.split(c)[1:6:2])
)
def test_the_documented_builtin_measurements_run(command: str) -> None:
    """Each command as printed, cut to one game per seat rotation and searches to 2 rollouts
    a decision: the full runs are a bench, measured by hand (docs/builtin-bots.md)."""
    args = shlex.split(command)
    seats = args.count("--seat")
    args[args.index("--games") + 1] = str(seats)
    if "--iterations" not in args:
        args += ["--iterations", "2"]
    data = json.loads(simulate(*args).strip().splitlines()[-1])
    assert data["games"] == seats
    assert data["lineup"] == [args[i + 1] for i, a in enumerate(args) if a == "--seat"]
    assert sum(b["seat_games"] for b in data["bots"]) == seats * seats
