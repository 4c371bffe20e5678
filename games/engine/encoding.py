"""The one JSON encoder for what leaves the engine: messages to bots, observations, events.

orjson rather than the json module: encoding each observation was a fifth of
a Bra$ilis game's time. Non-string keys are written as strings, as json does.
"""

from __future__ import annotations

from typing import Any

import orjson

_LINE = orjson.OPT_NON_STR_KEYS | orjson.OPT_APPEND_NEWLINE


def json_line(value: Any) -> bytes:
    """``value`` as one line of compact UTF-8 JSON, newline included."""
    return orjson.dumps(value, option=_LINE)
