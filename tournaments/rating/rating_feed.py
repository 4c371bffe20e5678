"""Ratings as a read model of the event store: fed by ``match_finished`` events in global order.

The consumer takes the next batch of ``match_finished`` events the global feed
(:mod:`replays.feed`) has settled, folds them into the ratings (:class:`ratings.Book`), and
writes the rating-history rows, the ratings they moved and its checkpoint in one
transaction. Each result counts once: a global lock serialises every writer of ratings
(two consumers, a consumer and a rebuild), and a match that already has history rows is
skipped, so the same event consumed twice, by a reset checkpoint or a second consumer,
changes nothing (the (match, player) history primary key is the backstop). ``rebuild``
replays every stored result through the same code and must arrive at exactly the stored
ratings.

The statements themselves (the batch read, the upsert, the history's binary COPY) are
:mod:`tournaments.rating.storage`'s.
"""

from __future__ import annotations

import gc
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass

import orjson
from django.db import transaction

from games.engine.platform_events import MATCH_FINISHED
from replays import feed, upcasting
from tournaments.rating import keys, ratings, selectors, storage
from tournaments.rating.storage import ResultRow

CONSUMER = "ratings"


def consume(consumer: str = CONSUMER, limit: int = 5000) -> int:
    """Rate everything the feed has settled; returns how many match_finished events were read."""
    total = 0
    while True:
        n = consume_batch(consumer, limit)
        total += n
        if n < limit:
            return total


def consume_batch(consumer: str = CONSUMER, limit: int = 5000) -> int:
    """Rate the next batch the feed has settled, in one transaction with its checkpoint.

    Returns how many match_finished events it read (0: none settled yet).
    """

    def step(position: int) -> tuple[int | None, int]:
        # The global lock first: whether a match is rated already is read after it.
        storage.lock_ratings()
        storage.plan_as_lookups()
        rows = storage.settled_results(position, limit)
        if not rows:
            return None, 0
        storage.commit_without_waiting_for_disk()
        with _without_cycle_collection():
            handle(rows)
        return rows[-1][0], len(rows)

    return feed.consume_step(consumer, step)


def handle(rows: Sequence[ResultRow]) -> int:
    """Rate a batch read with the global lock held; returns the history rows written."""
    found = results(rows)
    if not found:
        return 0
    return rate_and_write(ratings.Book(storage.skills_of(found)), found)


def rate_and_write(book: ratings.Book, found: Iterable[ratings.Result]) -> int:
    """Apply the results to ``book``, write their history rows and the ratings they moved.

    The history streams to the server while the results are rated; the ratings follow in
    one statement. Returns how many history rows it wrote.
    """
    with storage.history_copy() as history:
        for result in found:
            history.add(result.match, result.position, book.apply(result))
    storage.upsert(book.skills, history.touched)
    return history.rows


# Reading results


def results(
    rows: Sequence[ResultRow], *, skip_rated: bool = True, seen: set[str] | None = None
) -> list[ratings.Result]:
    """The rated results among the rows, in feed order (unrated and already-rated left out).

    A match rated once is not rated again: one finishing twice (a retry) counts its first
    result; ``seen`` carries the matches already taken across batches of one pass.
    """
    seen = set() if seen is None else seen
    versions = {p for row in rows if row[7] for p in row[7].split(",") if p.startswith("v:")}
    earlier = selectors.predecessors(versions) if versions else {}
    out: list[ratings.Result] = []
    for position, match, schema, ranks_text, game, ladder, season, players, rated in rows:
        if players is None or game is None or (skip_rated and rated) or match in seen:
            continue
        seen.add(match)
        ranks = _ranks(position, schema, ranks_text)
        seats = tuple(players.split(","))
        if ranks is None or len(seats) != len(ranks):
            continue
        out.append(
            ratings.Result(
                position,
                match,
                keys.pool_of(ladder_id=ladder, season_id=season, game=game, seats=len(seats)),
                seats,
                tuple(int(r) for r in ranks),
                tuple(earlier.get(p, ()) for p in seats) if earlier else (),
            )
        )
    return out


def _ranks(position: int, schema_version: int, ranks: str | None) -> list[int] | None:
    if upcasting.current(MATCH_FINISHED, schema_version):
        return None if ranks is None else orjson.loads(ranks)
    # An older payload: read it whole and upcast it, as every reader of the store does.
    _, upcast = upcasting.upcast(MATCH_FINISHED, schema_version, storage.payload(position))
    found = upcast.get("outcome", {}).get("ranks")
    return None if found is None else list(found)


@contextmanager
def _without_cycle_collection() -> Iterator[None]:
    """Pause Python's cycle collector while a batch is rated.

    A batch holds thousands of rows and results while it is rated; the collector
    would walk them again and again (a third of the rating time, measured), and
    nothing a batch builds forms a reference cycle: reference counting frees it all.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


# Rebuild


@dataclass(frozen=True)
class Rebuilt:
    results: int
    ratings: int
    history: int
    differences: list[str]


def rebuild(*, write: bool = True, consumer: str = CONSUMER, chunk: int = 5000) -> Rebuilt:
    """Recompute every rating from the stored events up to the consumer's checkpoint.

    Returns how the recomputed ratings differ from the stored ones (they must
    not); if ``write``, the stored ratings and history are replaced with them.
    """
    with transaction.atomic():
        # The consumer's lock, then the global one, in the order the consumer takes them
        # (the other order could deadlock with it): its checkpoint stays put meanwhile.
        feed.lock(consumer)
        storage.lock_ratings()
        up_to = feed.checkpoint(consumer)
        stored = storage.stored_ratings()
        if write:
            storage.truncate()
        storage.plan_as_lookups()
        book = ratings.Book()
        count = history = 0
        seen: set[str] = set()
        for rows in storage.stored_results(up_to, chunk):
            with _without_cycle_collection():
                found = results(rows, skip_rated=False, seen=seen)
                count += len(found)
                if write:
                    history += rate_and_write(book, found)
                else:
                    history += sum(len(book.apply(result)) for result in found)
        differences = _differences(stored, book)
    return Rebuilt(count, len(book.skills), history, differences)


def _differences(
    stored: dict[tuple[str, str], tuple[float, float, float, int]], book: ratings.Book
) -> list[str]:
    computed = {key: (s.mu, s.sigma, s.elo, s.games) for key, s in book.skills.items()}
    diffs = []
    for key in sorted(stored.keys() | computed.keys()):
        if stored.get(key) != computed.get(key):
            diffs.append(
                f"{key[0]} {key[1]}: stored {stored.get(key)}, rebuilt {computed.get(key)}"
            )
    return diffs
