"""A bench's JSON, run once per test process for the same arguments: the bench's own tests and
the docs' commands ask for the same quick runs (group their modules on one xdist worker with
``pytest.mark.xdist_group``, or each worker runs it again)."""

from __future__ import annotations

import functools
import json
from io import StringIO
from typing import Any

from django.core.management import call_command


@functools.cache
def _printed(*args: str) -> str:
    out = StringIO()
    call_command(*args, stdout=out)
    return out.getvalue()


def bench_json(*args: str) -> dict[str, Any]:
    """``manage.py <args>``'s printed JSON, a fresh copy each call (callers may change it)."""
    figures: dict[str, Any] = json.loads(_printed(*args))
    return figures


def is_quotient(
    printed: float,
    numerator: float,
    denominator: float,
    places: tuple[int | None, int | None, int | None],
    scale: float = 1,
) -> bool:
    """Whether ``printed`` is ``scale * numerator / denominator`` to the precision the bench
    printed each with: ``places`` are their decimals (None: an exact count), in that order.

    The figures are rounded before they are printed, so the quotient of two printed figures
    is known only within the interval their roundings leave; ``printed`` must lie in it, give
    or take its own rounding."""
    half = [0.0 if p is None else 0.5 * 10.0**-p for p in places]
    low = scale * (numerator - half[1]) / (denominator + half[2])
    high = scale * (numerator + half[1]) / (denominator - half[2])
    slack = half[0] + 1e-9 * max(1.0, abs(printed))
    return low - slack <= printed <= high + slack
