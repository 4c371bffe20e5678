"""Matches ready to be played by the runner."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tests.factories import MatchFactory, SeatFactory
from tournaments.play.models import Match

MakeMatch = Callable[..., Match]


@pytest.fixture
def builtin_match() -> MakeMatch:
    """A queued match whose seats are all built-in bots."""

    def make(
        game: str = "brexit", bots: tuple[str, ...] = ("random", "random", "random"), **kw: object
    ) -> Match:
        match = MatchFactory(game=game, **kw)
        for number, name in enumerate(bots):
            SeatFactory(match=match, number=number, bot_version=None, builtin=name)
        return match

    return make


Seen = list[tuple[str, bool, bool]]


@pytest.fixture
def seen_while_played(monkeypatch: pytest.MonkeyPatch) -> Seen:
    """What the match's row says as the runner starts playing it, for each match played in
    this process: (status, has a start, has an end). The runner's own play is unchanged."""
    from tournaments.play import runner

    seen: Seen = []
    play = runner._run_claimed

    def watched(match: Match, *args: object, **kw: object) -> runner.RunResult:
        row = Match.objects.get(id=match.id)
        seen.append((row.status, row.started_at is not None, row.finished_at is not None))
        return play(match, *args, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(runner, "_run_claimed", watched)
    return seen


def assert_true_times(match: Match) -> None:
    """A match played to its end started once claimed and ended later, its lease let go."""
    assert match.started_at is not None and match.finished_at is not None
    assert match.created_at <= match.started_at < match.finished_at
    assert (match.lease_owner, match.lease_expires_at, match.attempts) == ("", None, 1)
