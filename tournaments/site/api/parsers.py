"""Request bodies: JSON bounded in depth, so a hostile body is a 400, never a crash.

The standard library's parser recurses once per level: about 100,000 brackets (200 kB, far
under the body limit) raise RecursionError, which DRF does not turn into a 400. Nothing the API
takes is nested deeper than a few levels, so anything past ``MAX_DEPTH`` is refused.
"""

from __future__ import annotations

import json
from typing import Any

from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser

MAX_DEPTH = 32
TOO_DEEP = f"JSON nested more than {MAX_DEPTH} levels deep"


class TooDeep(ValueError):
    """JSON nested past ``MAX_DEPTH`` (or deep enough to exhaust the parser's recursion)."""

    def __init__(self) -> None:
        super().__init__(TOO_DEEP)


def depth(value: Any) -> int:
    """How deeply lists and objects nest in ``value`` (a scalar is 0), without recursion."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, level = stack.pop()
        children = item.values() if isinstance(item, dict) else item
        if isinstance(item, (dict, list)):
            deepest = max(deepest, level)
            stack.extend((child, level + 1) for child in children)
    return deepest


def loads(text: str) -> Any:
    """``json.loads`` bounded in depth, for the site's forms: raises json.JSONDecodeError or
    TooDeep, never RecursionError."""
    try:
        data = json.loads(text)
    except RecursionError:
        raise TooDeep from None
    if depth(data) > MAX_DEPTH:
        raise TooDeep
    return data


class BoundedJSONParser(JSONParser):
    def parse(self, stream: Any, media_type: Any = None, parser_context: Any = None) -> Any:
        try:
            data = super().parse(stream, media_type, parser_context)
        except RecursionError:
            raise ParseError(TOO_DEEP) from None
        if depth(data) > MAX_DEPTH:
            raise ParseError(TOO_DEEP)
        return data
