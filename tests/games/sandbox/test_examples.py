"""The example bots of docs/bots.md play whole matches of the real games in the sandbox."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from games.engine import step_rng
from games.engine.registry import get
from games.sandbox import SeatController, Verdict

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
    rules = get(game).rules
    seed = 7
    events = rules.setup(seats, seed)
    state = rules.new_state()
    for ev in events:
        rules.fold(state, ev)
    controllers = [
        SeatController(tmp_path, game=game, seat=s, seats=seats, options={}) for s in range(seats)
    ]
    verdicts: list[Verdict] = []
    try:
        for _ in range(5000):
            pending = rules.pending(state)
            if not pending:
                break
            for p in pending:
                seat = p["seat"]
                got = controllers[seat].decide(
                    rules.observe(state, seat),
                    rules.legal(state, seat),
                    default=lambda seat=seat: rules.default_action(state, seat),  # type: ignore[misc]
                    check=lambda a, seat=seat: rules.check(state, seat, a),  # type: ignore[misc]
                )
                verdicts.append(got.verdict)
                assert got.verdict is Verdict.OK, (got.verdict, got.detail, got.stderr)
                events += rules.decide(state, seat, got.action, step_rng(seed, len(events)))
        outcome = rules.outcome(state)
        assert outcome is not None
    finally:
        for c in controllers:
            c.end(None)
    assert len(verdicts) > seats
    assert all(c.restarts == 0 for c in controllers)
