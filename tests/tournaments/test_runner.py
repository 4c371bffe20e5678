"""The runner plays stored matches: claim, lease, resume, result written once."""

from __future__ import annotations

import io
import os
import shutil
import tempfile
import uuid
import zipfile
from collections.abc import Sequence
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.utils import timezone

from games.engine import driver as driver_module
from games.engine.driver import Flush, InProcess, MatchDriver, SeatStats
from games.engine.match import replay
from games.engine.platform_events import MATCH_FINISHED, game_events
from games.engine.registry import get
from games.engine.types import Event
from replays import store
from replays.store import NewEvent
from tests.factories import BotVersionFactory, MatchFactory, SeatFactory
from tests.games.sandbox.conftest import modes, unreadable_by
from tests.tournaments.conftest import MakeMatch
from tournaments.play import lifecycle, runner
from tournaments.play.models import Match
from tournaments.play.players import bot_dir, builtin_player
from tournaments.play.runner import RunResult
from tournaments.play.selectors import match_to_play

pytestmark = pytest.mark.django_db


def stream_of(match: Match) -> list[dict]:
    return [ev.as_engine_event() for ev in store.read(match.id)]


@pytest.mark.parametrize("game,bots", [("brexit", ("random",) * 4), ("brasilis", ("random",) * 4)])
def test_a_builtin_match_is_played_stored_and_scored(
    builtin_match: MakeMatch, game: str, bots: tuple
) -> None:
    match = builtin_match(game=game, bots=bots)
    assert runner.run_match(match.id) is RunResult.FINISHED

    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED and match.finished_at is not None
    events = store.read(match.id)
    assert [e.version for e in events] == list(range(1, len(events) + 1))
    assert match.last_version == len(events)
    assert [e.type for e in events].count(MATCH_FINISHED) == 1
    assert events[-1].type == MATCH_FINISHED
    assert events[-1].payload["seed"] == match.seed

    rules = get(game).rules
    state = replay(rules, game_events(e.as_engine_event() for e in events))
    outcome = rules.outcome(state)
    assert outcome is not None and match.outcome == outcome
    seats = list(match.seats.order_by("number"))
    assert [s.rank for s in seats] == outcome["ranks"]
    assert [s.score for s in seats] == outcome["scores"]


def test_the_same_match_replayed_from_its_seed_draws_the_same(builtin_match: MakeMatch) -> None:
    first = builtin_match(seed=42)
    second = builtin_match(seed=42)
    runner.run_match(first.id)
    runner.run_match(second.id)
    strip = lambda evs: [(e["type"], e["payload"]) for e in evs]  # noqa: E731
    assert strip(stream_of(first)) == strip(stream_of(second))


def test_a_finished_match_is_not_played_again(builtin_match: MakeMatch) -> None:
    match = builtin_match()
    runner.run_match(match.id)
    version = store.current_version(match.id)
    assert runner.run_match(match.id) is RunResult.ALREADY_FINISHED
    assert store.current_version(match.id) == version


def test_a_match_leased_by_a_live_worker_is_busy(builtin_match: MakeMatch) -> None:
    match = builtin_match()
    assert lifecycle.do_claim(match.id, "worker-a")
    assert not lifecycle.do_claim(match.id, "worker-b")
    assert runner.run_match(match.id, owner="worker-b") is RunResult.BUSY
    assert store.current_version(match.id) == 0


def test_an_expired_lease_can_be_claimed_and_the_old_worker_writes_nothing(
    builtin_match: MakeMatch,
) -> None:
    match = builtin_match()
    assert lifecycle.do_claim(match.id, "worker-a")
    Match.objects.filter(id=match.id).update(lease_expires_at=timezone.now() - timedelta(seconds=1))
    assert lifecycle.do_claim(match.id, "worker-b")
    sink = lifecycle.DatabaseSink(match, "worker-a", list(match.seats.all()))
    with pytest.raises(lifecycle.LeaseLost):
        sink(
            Flush(
                events=[
                    {
                        "type": "x",
                        "actor": None,
                        "payload": {},
                        "visible_to": None,
                        "redacted": None,
                    }
                ],
                expected_version=0,
                logs=[],
                stats=[SeatStats() for _ in range(3)],
                outcome=None,
            )
        )
    assert store.current_version(match.id) == 0


class Crash(Exception):
    pass


def test_a_match_interrupted_after_some_flushes_resumes_to_the_same_end(
    builtin_match: MakeMatch,
) -> None:
    """Play part of a match, 'crash', resume from the stored events: same stream as uninterrupted."""
    reference = builtin_match(seed=7)
    runner.run_match(reference.id)

    match = builtin_match(seed=7)
    owner = "crashing-worker"
    assert lifecycle.do_claim(match.id, owner)
    sink = lifecycle.DatabaseSink(match, owner, list(match.seats.order_by("number")))

    class CrashAfterTwo:
        flushes = 0

        def stage(self, events: Sequence[Event], after_version: int) -> None:
            sink.stage(events, after_version)

        def abort(self) -> None:
            sink.abort()

        def __call__(self, flush: Flush) -> None:
            if self.flushes == 2:
                raise Crash
            self.flushes += 1
            sink(flush)

    info = get(match.game)
    driver = MatchDriver(
        info.rules,
        seats=3,
        seed=7,
        options={},
        players=[builtin_player(match.game, "random", seed=7 + s) for s in range(3)],
        sink=CrashAfterTwo(),
        flush_every=20,
    )
    with pytest.raises(Crash):
        driver.run()
    partial = store.current_version(match.id)
    assert partial > 0

    Match.objects.filter(id=match.id).update(lease_expires_at=timezone.now() - timedelta(seconds=1))
    assert runner.run_match(match.id) is RunResult.FINISHED
    strip = lambda evs: [(e["type"], e["payload"]) for e in evs]  # noqa: E731
    assert strip(stream_of(match)) == strip(stream_of(reference))
    match.refresh_from_db()
    assert match.attempts == 2


def test_a_builtin_match_that_crashes_mid_copy_writes_only_whole_flushes(
    builtin_match: MakeMatch, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Built-in matches stream their events into an open COPY: a crash writes none of it."""
    # Every decision's events go down the COPY at once, so that a crash finds it open.
    monkeypatch.setattr(store, "SEND_AT", 1)
    monkeypatch.setattr(driver_module, "STAGE_EVERY", 1)
    reference = builtin_match(seed=11)
    runner.run_match(reference.id)

    match = builtin_match(seed=11)
    match_row, seats = match_to_play(match.id)  # type: ignore[misc]
    sink = lifecycle.DatabaseSink(match_row, "crashing-worker", seats, leased=False)
    crash_at = 30
    players = [builtin_player(match.game, "random", seed=11 + s) for s in range(3)]
    moves = 0

    def crash_later(state: Any, seat: int, rng: Any) -> Any:
        nonlocal moves
        moves += 1
        mid_copy = sink._appender is not None and sink._appender.is_open
        if moves >= crash_at and mid_copy:
            raise Crash
        return players[0].act(state, seat, rng)

    driver = MatchDriver(
        get(match.game).rules,
        seats=3,
        seed=11,
        options={},
        players=[InProcess(crash_later)] * 3,
        sink=sink,
        flush_every=32,
    )
    with pytest.raises(Crash):
        driver.run()
    written = store.current_version(
        match.id
    )  # the connection is free again: the COPY was cancelled
    assert written == driver.flushed_version > 0
    assert written < driver.version

    assert runner.run_match(match.id) is RunResult.FINISHED
    strip = lambda evs: [(e["type"], e["payload"]) for e in evs]  # noqa: E731
    assert strip(stream_of(match))[:written] == strip(stream_of(reference))[:written]
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED
    assert match.last_version == len(stream_of(match))


def test_events_of_other_streams_touch_no_match(builtin_match: MakeMatch) -> None:
    match = builtin_match()
    # A stream that is no match's, written straight to the store: no lifecycle writes one.
    store.append(uuid.uuid4(), [NewEvent(type="x", payload={})], 0)
    match.refresh_from_db()
    assert (match.status, match.last_version) == ("queued", 0)


def test_a_second_worker_on_a_builtin_match_writes_nothing(builtin_match: MakeMatch) -> None:
    """A redelivered message: the built-in match has no lease, the expected version stops the copy."""
    match = builtin_match(seed=5)
    match_row, seats = match_to_play(match.id)  # type: ignore[misc]
    late_sink = lifecycle.DatabaseSink(match_row, "late-worker", seats, leased=False)
    assert runner.run_match(match.id) is RunResult.FINISHED
    written = store.current_version(match.id)
    opening = get("brexit").rules.setup(3, 5, {})
    with pytest.raises(lifecycle.LeaseLost):
        late_sink(
            Flush(
                events=opening, expected_version=0, logs=[], stats=[SeatStats()] * 3, outcome=None
            )
        )
    assert store.current_version(match.id) == written


def test_a_worker_that_cannot_isolate_bots_leaves_their_matches_queued(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    match = MatchFactory(game="brexit")
    SeatFactory(match=match, number=0)  # an uploaded bot
    SeatFactory(match=match, number=1, bot_version=None, builtin="random")
    monkeypatch.setenv("BACKROOM_SANDBOX", "no-such-mode")
    assert runner.run_match(match.id) is RunResult.REFUSED
    match.refresh_from_db()
    assert (match.status, match.attempts, store.current_version(match.id)) == ("queued", 0, 0)


def test_each_sandboxed_seat_resumes_with_its_own_strikes_and_time_bank() -> None:
    class Controller:
        def resume(self, strikes: int, bank_seconds: float | None) -> None:
            self.got = (strikes, bank_seconds)

    class Sandboxed:
        def __init__(self) -> None:
            self.controller = Controller()

    players: list[Any] = [Sandboxed(), builtin_player("brexit", "random", 1), Sandboxed()]
    stats = [SeatStats(strikes=1, bank_ms=2500), SeatStats(), SeatStats(strikes=2)]
    runner.resume_seats(players, stats)
    assert players[0].controller.got == (1, 2.5)
    assert players[2].controller.got == (2, None)


def test_a_versions_files_on_disk_are_the_platform_users_alone(settings: Any) -> None:
    # MEDIA_ROOT as a deployment has it: a folder any local account may pass through.
    media = Path(tempfile.mkdtemp(prefix="backroom-media-"))
    media.chmod(0o755)
    settings.MEDIA_ROOT = media
    try:
        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w") as archive:
            archive.writestr("bot.py", "from lib.helper import PICK\n")
            archive.writestr("lib/helper.py", "PICK = 0\n")
        version = BotVersionFactory(filename="private.zip", upload=buf.getvalue())
        folder = bot_dir(version)  # type: ignore[arg-type]
        assert modes(media / "bots")[media / "bots"] == 0o700
        unpacked = modes(folder)
        assert unpacked == {
            folder: 0o700,
            folder / "bot.py": 0o600,
            folder / "lib": 0o700,
            folder / "lib" / "helper.py": 0o600,
        }, {p: oct(m) for p, m in unpacked.items()}
        if os.geteuid() == 0:
            assert unreadable_by("nobody", folder / "lib" / "helper.py")
        # What the storage itself writes under MEDIA_ROOT is kept the same way.
        default_storage.save("uploads/x.txt", ContentFile(b"x"))
        assert modes(media / "uploads") == {
            media / "uploads": 0o700,
            media / "uploads/x.txt": 0o600,
        }
    finally:
        shutil.rmtree(media)
