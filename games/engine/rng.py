"""Per-step random generators derived from the match seed and the stream version.

The generator is never carried across steps in memory: a match resumed after a
crash, or re-run from its seed, draws exactly what an uninterrupted one draws.
Only deciding consults it; folding never does, because every outcome is
already written in the events.
"""

from __future__ import annotations

import hashlib
import random


def step_rng(seed: int, version: int) -> random.Random:
    """The generator for the step taken when the stream stands at ``version``."""
    digest = hashlib.sha256(f"backroom:{seed}:{version}".encode()).digest()
    return random.Random(int.from_bytes(digest[:16], "big"))
