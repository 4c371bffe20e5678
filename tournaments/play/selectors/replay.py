"""Play's replay reads, for the site's viewer and the API's replay views: a match at step N
through one view, its events as sentences, its bots' logs by step, its whole document.

The state at a step comes from snapshots (``replays.snapshots.state_at_step``), so every step
costs about the same; what a view shows of it is decided by ``tournaments.play.visibility``
and drawn from observations only. The event store and the bots' logs are read here, not in
the site: the pages and the API import no model and not the event store (an import-linter
contract), so every read of a replay is one of these.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import orjson
import zstandard
from django.core.cache import cache

from games.engine.platform_events import BOT_VERDICT
from games.engine.registry import get
from games.engine.types import JSON
from replays import narrate, snapshots, store
from tournaments.play import read_cache, selectors, visibility
from tournaments.play.models import BotLog, Match
from tournaments.play.read_cache import CACHE_DOWN
from tournaments.play.visibility import Sight, View, event_as_seen


def seat_count(match: Match) -> int:
    return len(match.seats.all())


def clamp_step(match: Match, step: int | None) -> int:
    """A step between 0 (before the first event) and the last shown
    (``selectors.last_step_shown``); None is the last shown."""
    last = selectors.last_step_shown(match)
    return last if step is None else max(0, min(step, last))


FOLD_PASS = 1000
"""Steps a whole-match fold folds and keeps in one pass: a longer match is folded a pass at a
time, each when one of its steps is first read, so one read never folds an unbounded stream."""
FOLDED_BLOCK = 50
"""Steps whose states are kept together, compressed as one value (``FOLD_PASS`` is a multiple of
it). Consecutive states differ by one event, so a block compresses about fifty-fold where one
state alone compresses two-fold. A finished 693-step Bra$ilis match's fold kept 2.3 MB in Redis
for an hour (each step's state and the spectator's view of it, a value each) and keeps 27 KB in
14 blocks (tests/viewer/test_read_cache.py bounds it). A read of one step decompresses its block
(about 90 KB) and parses its own line alone."""
FOLDED_SECONDS = 3600.0
"""How long a finished match's folded steps stay: a viewing session's, not for good (what views
show of a step is kept apart, by ``read_cache``, once it is read)."""
FOLDING_SECONDS = 30.0
"""How long one process' claim to fold a pass holds off the others (they fold their one step
from its snapshot meanwhile, as a live match's reads do)."""
ZSTD_LEVEL = 3


def state_at(match: Match, step: int) -> Any:
    """The whole state at ``step``: a finished match's from its whole-match fold (``folded``),
    any other's folded from the nearest snapshot."""
    rules = get(match.game).rules
    if match.status == Match.Status.FINISHED:
        dumped = folded(match, step)
        if dumped is not None:
            return rules.load(dumped)
    state, _ = snapshots.state_at_step(rules, match.id, step)
    return state


def folded(match: Match, step: int) -> JSON | None:
    """A finished match's state at ``step`` as ``rules.dump`` writes it, from the whole-match fold.

    Its events never change, so the first read of a step folds the pass of ``FOLD_PASS`` steps
    around it once and keeps every step's state (in blocks of ``FOLDED_BLOCK``, compressed, for
    ``FOLDED_SECONDS``): the next reads of any step of it, by the viewer stepping through or by
    the API, are a cache read instead of a fold each from the nearest snapshot. None (fold the
    one step) when the cache is away or another process is folding the pass right now.
    """
    if not read_cache.usable():
        return None
    try:
        kept = cache.get(read_cache.folded_key(match, block_of(step)))
        claimed = kept is None and cache.add(_folding_key(match, step), 1, FOLDING_SECONDS)
    except CACHE_DOWN as exc:
        read_cache.failed(f"reading the folded step {step} of {match.pk}", exc)
        return None
    if kept is not None:
        return unpacked(kept, step)
    if not claimed:
        return None
    return _fold_pass(match, step)


def kept_observation(match: Match | read_cache.Keyed, step: int, view: View) -> JSON | None:
    """What ``view`` shows at ``step`` of a finished match, drawn from its kept whole-match fold;
    None when that block is not kept (nothing is folded or queried here: the settled reads draw
    a state read with it, tournaments/site/settled_reads.py)."""
    try:
        kept = cache.get(read_cache.folded_key(match, block_of(step)))
    except CACHE_DOWN:
        return None
    dumped = None if kept is None else unpacked(kept, step)
    if dumped is None:
        return None
    return observation(match, get(match.game).rules.load(dumped), view)


def block_of(step: int) -> int:
    """The first step of the block that keeps ``step``'s state."""
    return step - step % FOLDED_BLOCK


def packed(states: list[bytes]) -> bytes:
    """A block's states (``rules.dump`` as JSON, one a line: JSON as orjson writes it holds no
    newline), compressed."""
    return bytes(zstandard.compress(b"\n".join(states), ZSTD_LEVEL))


def unpacked(block: bytes, step: int) -> JSON | None:
    """``step``'s state from the block that keeps it (None if the stream ended before it)."""
    lines = zstandard.decompress(block).split(b"\n")
    at = step - block_of(step)
    return orjson.loads(lines[at]) if at < len(lines) else None


def _folding_key(match: Match, step: int) -> str:
    return f"{read_cache.folded_key(match, step - step % FOLD_PASS)}:folding"


def _fold_pass(match: Match, step: int) -> JSON | None:
    """Fold the pass that holds ``step`` once, keep its blocks, and give ``step``'s state (None
    if the stream ends before it)."""
    blocks = fold_pass(match, step)
    try:
        cache.set_many(blocks, FOLDED_SECONDS)
        cache.delete(_folding_key(match, step))
    except CACHE_DOWN as exc:
        read_cache.failed(f"keeping the folded steps of {match.pk}", exc)
    wanted = blocks.get(read_cache.folded_key(match, block_of(step)))
    return None if wanted is None else unpacked(wanted, step)


def fold_pass(match: Match, step: int) -> dict[str, bytes]:
    """What the pass of ``FOLD_PASS`` steps that holds ``step`` keeps, by key: each block of
    ``FOLDED_BLOCK`` steps' whole states (``packed``)."""
    rules = get(match.game).rules
    first = step - step % FOLD_PASS
    last = min(first + FOLD_PASS - 1, match.last_version)
    blocks: dict[str, bytes] = {}
    states: list[bytes] = []
    start = first
    # Every version from ``first`` on, one after another.
    for _, state in snapshots.fold_steps(rules, match.id, first, last):
        # Serialized at once: the next fold may change what the dump refers to.
        states.append(orjson.dumps(rules.dump(state)))
        if len(states) == FOLDED_BLOCK:
            blocks[read_cache.folded_key(match, start)] = packed(states)
            states, start = [], start + FOLDED_BLOCK
    if states:
        blocks[read_cache.folded_key(match, start)] = packed(states)
    return blocks


def observation(match: Match | read_cache.Keyed, state: Any, view: View) -> JSON:
    """The JSON a view shows: the spectator's or a seat's observation, or the whole state."""
    rules = get(match.game).rules
    if view.everything:
        return rules.dump(state)
    public = rules.observe(state, None)
    if view.seat is None or len(public.get("hand_sizes") or []) <= view.seat:
        # Before the opening events have seated anyone a seat knows what a spectator knows.
        return public
    return rules.observe(state, view.seat)


def observation_at(match: Match, step: int, view: View) -> JSON:
    """The view's observation at a stored step: fixed for good, so folded once (read_cache)."""
    return read_cache.remember(
        read_cache.state_key(match, step, view),
        lambda: observation(match, state_at(match, step), view),
    )


def _seat_observations(match: Match, state: Any, view: View, seats: int) -> dict[int, JSON]:
    rules = get(match.game).rules
    if view.everything:
        return {k: rules.observe(state, k) for k in range(seats)}
    if view.seat is not None:
        return {view.seat: rules.observe(state, view.seat)}
    return {}


def labels(match: Match, seats: int) -> list[str]:
    """The seats' names at the table, from the opening event (kept once it is stored)."""

    def read() -> list[str]:
        first = store.read(match.id, to_version=1)
        payload = first[0].payload if first else None
        return narrate.seat_labels(match.game, seats, payload)

    return read_cache.remember(
        read_cache.labels_key(match, seats), read, keep=lambda _: match.last_version > 0
    )


def board_at(match: Match, step: int, view: View, seats: int, names: list[str]) -> dict[str, Any]:
    """The board at a stored step through a view: fixed for good, so drawn once (read_cache)."""
    return read_cache.remember(
        read_cache.board_key(match, step, view),
        lambda: board(match, state_at(match, step), view, seats, names),
    )


def board(match: Match, state: Any, view: View, seats: int, names: list[str]) -> dict[str, Any]:
    game = get(match.game)
    if match.last_version == 0:
        return {}
    primary = game.rules.observe(state, None)
    if len(primary.get("hand_sizes") or []) < seats:
        return {}  # the opening events have not dealt yet: nothing to draw
    return game.view.board(primary, _seat_observations(match, state, view, seats), names)


@dataclass(frozen=True)
class LogLine:
    version: int
    type: str
    actor: int | None
    text: str
    verdict: str | None


def full_log(match: Match, seen_by: Sight, names: list[str]) -> list[LogLine]:
    """Every event as a sentence; a match that is over has its log narrated once (read_cache)."""
    if not visibility.is_over(match):
        return log(match, seen_by, names)
    return read_cache.remember(
        read_cache.log_key(match, seen_by), lambda: log(match, seen_by, names)
    )


def log(match: Match, seen_by: Sight, names: list[str], after: int = 0) -> list[LogLine]:
    """The events after ``after`` as sentences, each as ``seen_by`` sees it."""
    seen = []
    stored = store.read(match.id, from_version=after + 1)
    for ev in stored:
        shown = event_as_seen(ev.as_engine_event(), seen_by)
        seen.append((ev.version, shown))
    if after > 0:
        # The narrator needs the table's context (countries on the table): replay quietly.
        earlier = [
            (e.type, event_as_seen(e.as_engine_event(), seen_by)["payload"])
            for e in store.read(match.id, to_version=after)
        ]
    else:
        earlier = []
    people = {seat.number for seat in match.seats.all() if seat.player_id is not None}
    texts = narrate.sentences(
        match.game, names, [*earlier, *((s["type"], s["payload"]) for _, s in seen)], people
    )[len(earlier) :]
    return [
        LogLine(
            version=version,
            type=shown["type"],
            actor=shown["actor"],
            text=text,
            verdict=shown["payload"].get("verdict") if shown["type"] == "bot_verdict" else None,
        )
        for (version, shown), text in zip(seen, texts, strict=True)
    ]


def act_message(match: Match, step: int, seat: int) -> JSON | None:
    """What seat's bot was sent at ``step`` (None if it was not asked then).

    The message's id and clock are not stored; observation and legal actions are
    recomputed from the events, exactly as the runner computed them.
    """
    rules = get(match.game).rules
    state = state_at(match, step)
    if not any(p["seat"] == seat for p in rules.pending(state)):
        return None
    return {
        "type": "act",
        "match": str(match.id),
        "step": step,
        "seat": seat,
        "observation": rules.observe(state, seat),
        "legal": dict(rules.legal(state, seat)),
    }


def logs_by_step(match: Match, seats: set[int]) -> dict[int, list[dict[str, Any]]]:
    """stderr lines of ``seats``, by the step at which their bot was asked (what it wrote while
    deciding) and again at the step of the verdict on that decision: the timeline's mark and
    the log's verdict line lead there, and a crash's stderr must be read beside its verdict."""
    last = selectors.last_step_shown(match)
    logs = list(
        BotLog.objects.filter(match=match, seat__in=seats, version__lte=last).order_by(
            "version", "seat"
        )
    )
    judged = _verdict_steps(match, seats, logs[0].version + 1, last) if logs else {}
    out: dict[int, list[dict[str, Any]]] = {}
    for entry in logs:
        line = {"seat": entry.seat, "asked": entry.version, "text": entry.text}
        out.setdefault(entry.version, []).append(line)
        verdict_at = judged.get((entry.seat, entry.version))
        if verdict_at is not None:
            out.setdefault(verdict_at, []).append(line)
    return {step: sorted(lines, key=lambda ln: ln["seat"]) for step, lines in out.items()}


def _verdict_steps(
    match: Match, seats: set[int], first: int, last: int
) -> dict[tuple[int, int], int]:
    """(seat, step it was asked at) -> the step of the verdict on that decision."""
    return {
        (ev.payload["seat"], ev.payload["step"]): ev.version
        for ev in store.read(match.id, from_version=first, to_version=last)
        if ev.type == BOT_VERDICT and ev.payload.get("seat") in seats and "step" in ev.payload
    }


def document(match: Match, seen_by: Sight, user: Any = None) -> dict[str, Any]:
    """The whole match in the format ``manage.py play --out`` writes, as ``seen_by`` sees it.

    The header is the events API's (``selectors.document_header``): seed and options
    only once the match is over.
    """
    doc = selectors.document_header(match, user)
    doc["events"] = [
        {"version": ev.version, **event_as_seen(ev.as_engine_event(), seen_by)}
        for ev in store.read(match.id)
    ]
    return doc
