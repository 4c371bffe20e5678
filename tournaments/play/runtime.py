"""Process-wide tuning of a worker, applied once when a worker process starts.

Playing a match allocates many small dicts (events, observations), which sets
off Python's cyclic garbage collector every few hundred allocations; each
full collection then walks every object Django and the engines loaded at
start-up. Freezing those start-up objects and collecting the young generation
less often took about a sixth off a short match's time on a worker.
"""

from __future__ import annotations

import gc

YOUNG_THRESHOLD = 100_000


def tune_gc() -> None:
    """Keep start-up objects out of collections and collect young objects less often."""
    gc.collect()
    gc.freeze()
    _, older, oldest = gc.get_threshold()
    gc.set_threshold(YOUNG_THRESHOLD, older, oldest)
