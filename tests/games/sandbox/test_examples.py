"""The example bots of docs/bots.md play whole matches of the real games in the sandbox."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from .whole_match import play_sandboxed

DOC = Path(__file__).resolve().parents[3] / "docs" / "bots.md"


def example(game: str) -> str:
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(), re.S)
    [code] = [b for b in blocks if b.startswith(f"# example-bot: {game}\n")]
    return str(code)


@pytest.mark.parametrize(("game", "seats"), [("brexit", 3), ("brasilis", 4)])
def test_example_bot_plays_a_full_match(
    game: str, seats: int, tmp_path: Path, sandbox_ready: None
) -> None:
    (tmp_path / "bot.py").write_text(example(game))
    played = play_sandboxed(tmp_path, game, seats, seed=7)
    assert played.decisions > seats
