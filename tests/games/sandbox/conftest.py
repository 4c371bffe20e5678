"""A tiny fake game and a driver, so the sandbox is tested without the real engines."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from games.engine import IllegalAction, Legal
from games.sandbox import Decision, Limits, SeatController, isolation_status

HOSTILE = Path(__file__).with_name("hostile")

# Short deadlines keep the hostile suite fast; the production defaults are in Limits().
FAST = Limits(move_seconds=0.5, bank_seconds=0.3, start_seconds=5.0, memory_bytes=256 << 20)


@dataclass
class FakeGame:
    """``turns`` decisions for one seat, each "pick one of 0, 1, 2"; default is pick 0."""

    turns: int = 4
    played: list[dict[str, Any]] = field(default_factory=list)

    def observation(self, turn: int) -> dict[str, Any]:
        return {"turn": turn, "picks": [a["pick"] for a in self.played]}

    def legal(self) -> Legal:
        return {"kind": "pick", "actions": [{"pick": i} for i in range(3)], "space": None}

    def check(self, action: dict[str, Any]) -> None:
        if action.get("pick") not in (0, 1, 2):
            raise IllegalAction(f"pick {action.get('pick')!r} is not one of 0, 1, 2")

    def default(self) -> dict[str, Any]:
        return {"pick": 0}


def bot_dir(tmp_path: Path, name: str) -> Path:
    """A bot folder holding hostile/<name>.py as bot.py, marked with the test's own folder: the
    sandbox's staging folder is the machine's, and another suite may stage the same bot."""
    folder = tmp_path / f"bot-{name}"
    folder.mkdir()
    shutil.copyfile(HOSTILE / f"{name}.py", folder / "bot.py")
    with (folder / "bot.py").open("a") as bot:
        bot.write(f"\n# staged for {tmp_path}\n")
    return folder


def play(controller: SeatController, game: FakeGame, *, end: bool = True) -> list[Decision]:
    """Drive one seat through the fake game: every decision yields a playable action.

    ``end``: tell the bot the match is over (else the caller does, to read what it logs).
    """
    decisions = []
    for turn in range(game.turns):
        got = controller.decide(
            game.observation(turn), game.legal(), default=game.default, check=game.check
        )
        game.check({"pick": got.action["pick"]})  # whatever happened, the game can go on
        game.played.append(got.action)
        decisions.append(got)
    if end:
        controller.end({"scores": [1.0], "ranks": [1]})
    return decisions


def modes(root: Path) -> dict[Path, int]:
    """Every path under ``root``, ``root`` included, with its permission bits."""
    found = {root: stat.S_IMODE(root.stat().st_mode)}
    for path in root.rglob("*"):
        found[path] = stat.S_IMODE(path.lstat().st_mode)
    return found


def unreadable_by(user: str, path: Path) -> bool:
    """Whether the local account ``user`` is refused reading ``path`` (the caller is root)."""
    done = subprocess.run(
        ["/usr/bin/head", "-c", "1", str(path)], user=user, capture_output=True, check=False
    )
    return done.returncode != 0 and b"Permission denied" in done.stderr


@pytest.fixture(scope="session")
def sandbox_ready() -> None:
    ok, reason = isolation_status()
    if not ok:
        if os.geteuid() == 0:
            pytest.fail(f"sandbox unavailable as root ({reason}); run deploy/sandbox/setup.sh")
        pytest.skip(f"sandbox unavailable: {reason}")


@pytest.fixture
def seat(tmp_path: Path, sandbox_ready: None) -> Iterator[Callable[..., SeatController]]:
    made: list[SeatController] = []

    def make(
        name: str, options: dict[str, Any] | None = None, limits: Limits = FAST
    ) -> SeatController:
        controller = SeatController(
            bot_dir(tmp_path, name), game="fake", seat=1, seats=2, options=options, limits=limits
        )
        made.append(controller)
        return controller

    yield make
    for controller in made:
        controller.close()
