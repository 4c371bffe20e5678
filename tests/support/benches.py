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
