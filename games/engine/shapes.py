"""The JSON shape of an action, declared as data and checked before any rule is.

A bot's action arrives as parsed JSON, so anything can be in it: ``true`` where
a seat is expected, ``1.0``, a list where a card id goes, keys nobody asked for.
Each game declares one shape per decision kind (``games/<name>/actions.py``)
and its ``check`` calls :func:`check_shape` first, so the rules only ever see
well-typed values and cannot fail halfway through ``decide`` on a bad type.
Shapes check types and keys; values (is that card in your hand?) stay the
rules' business, with their own messages.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from games.engine.errors import IllegalAction


class Shape:
    """A JSON shape: :meth:`problem` says what is wrong with a value, or ``None``."""

    def problem(self, value: Any, where: str) -> str | None:
        """What is wrong with ``value`` found at path ``where`` (``""`` for the action itself)."""
        raise NotImplementedError

    def describe(self) -> str:
        raise NotImplementedError

    def accepter(self) -> Callable[[Any], bool]:
        """A closure true exactly when :meth:`problem` finds nothing: the fast path for good actions."""
        raise NotImplementedError

    @cached_property
    def accepts(self) -> Callable[[Any], bool]:
        # Built once per shape: checking a well-formed action then costs no messages, paths or sets.
        return self.accepter()


@dataclass(frozen=True)
class Scalar(Shape):
    """A JSON string or boolean: never a look-alike (``true`` is not ``"true"``)."""

    name: str
    kind: type

    def problem(self, value: Any, where: str) -> str | None:
        if type(value) is not self.kind:
            return f"{_name(where)} must be {self.name}, not {show(value)}"
        return None

    def describe(self) -> str:
        return self.name

    def accepter(self) -> Callable[[Any], bool]:
        kind = self.kind
        return lambda value: type(value) is kind


INT_BOUND = 2**63
"""Integers are signed 64-bit at most: every accepted action becomes an event, and the event
store's JSON (orjson, Postgres' jsonb read by it) holds no larger integer. A bigger one, legal
to the rules where they set no upper bound (a Bra$ilis trade's ``ask_money``), would have failed
the match's write instead of being refused as the seat's illegal action."""


@dataclass(frozen=True)
class Integer(Shape):
    """A JSON integer that fits in 64 bits: ``1.0`` and ``true`` are not integers."""

    def problem(self, value: Any, where: str) -> str | None:
        if type(value) is not int:
            return f"{_name(where)} must be an integer, not {show(value)}"
        if not -INT_BOUND <= value < INT_BOUND:
            return f"{_name(where)} must fit in 64 bits (-2**63 to 2**63-1), not {show(value)}"
        return None

    def describe(self) -> str:
        return "an integer"

    def accepter(self) -> Callable[[Any], bool]:
        return lambda value: type(value) is int and -INT_BOUND <= value < INT_BOUND


INT = Integer()
"""A JSON integer without a fraction and within 64 bits: ``1.0`` and ``true`` are rejected."""
STR = Scalar("a string", str)
BOOL = Scalar("true or false", bool)


@dataclass(frozen=True)
class Const(Shape):
    """Exactly one JSON value (``{"pass": true}``)."""

    value: str | bool | int

    def problem(self, value: Any, where: str) -> str | None:
        if type(value) is not type(self.value) or value != self.value:
            return f"{_name(where)} must be {show(self.value)}, not {show(value)}"
        return None

    def describe(self) -> str:
        return show(self.value)

    def accepter(self) -> Callable[[Any], bool]:
        want, kind = self.value, type(self.value)
        return lambda value: type(value) is kind and value == want


@dataclass(frozen=True)
class Among(Shape):
    """A string from a fixed set, named for the message (``a Reposition card id``)."""

    name: str
    values: frozenset[str]

    def problem(self, value: Any, where: str) -> str | None:
        if type(value) is not str or value not in self.values:
            return f"{_name(where)} must be {self.name}, not {show(value)}"
        return None

    def describe(self) -> str:
        return self.name

    def accepter(self) -> Callable[[Any], bool]:
        values = self.values
        return lambda value: type(value) is str and value in values


@dataclass(frozen=True)
class ListOf(Shape):
    """A JSON array whose every item has the same shape."""

    item: Shape

    def problem(self, value: Any, where: str) -> str | None:
        if type(value) is not list:
            return f"{_name(where)} must be a list, not {show(value)}"
        for i, item in enumerate(value):
            found = self.item.problem(item, f"{where}[{i}]")
            if found:
                return found
        return None

    def describe(self) -> str:
        return f"[{self.item.describe()}, ...]"

    def accepter(self) -> Callable[[Any], bool]:
        shape = self.item
        if (
            type(shape) is Obj
            and not shape.optional
            and all(type(s) in (Scalar, Integer) for s in shape.required.values())
        ):
            # A list of flat records (Brexit's placements): one loop, no call per item.
            keys = frozenset(shape.required)
            scalars = [(k, s.kind) for k, s in shape.required.items() if type(s) is Scalar]
            ints = [k for k, s in shape.required.items() if type(s) is Integer]

            def records(value: Any) -> bool:
                if type(value) is not list:
                    return False
                for record in value:
                    if type(record) is not dict or record.keys() != keys:
                        return False
                    for key, kind in scalars:
                        if type(record[key]) is not kind:
                            return False
                    for key in ints:
                        number = record[key]
                        if type(number) is not int or not -INT_BOUND <= number < INT_BOUND:
                            return False
                return True

            return records
        item = shape.accepts
        return lambda value: type(value) is list and all(map(item, value))


@dataclass(frozen=True)
class Obj(Shape):
    """A JSON object with exactly these keys (``optional`` ones may be left out), no others."""

    required: Mapping[str, Shape]
    optional: Mapping[str, Shape] = field(default_factory=dict)

    def fits_keys(self, value: Any) -> bool:
        keys = set(value)
        return set(self.required) <= keys <= set(self.required) | set(self.optional)

    def problem(self, value: Any, where: str) -> str | None:
        if type(value) is not dict:
            return f"{_name(where)} must be a JSON object {self.describe()}, not {show(value)}"
        if not self.fits_keys(value):
            return (
                f"{_name(where)} must be {self.describe()}, not an object with keys {_keys(value)}"
            )
        for key, shape in (*self.required.items(), *self.optional.items()):
            if key in value:
                found = shape.problem(value[key], f"{where}.{key}" if where else key)
                if found:
                    return found
        return None

    def describe(self) -> str:
        parts = [f'"{k}": {s.describe()}' for k, s in self.required.items()]
        parts += [f'"{k}" (optional): {s.describe()}' for k, s in self.optional.items()]
        return "{" + ", ".join(parts) + "}"

    def accepter(self) -> Callable[[Any], bool]:
        required = frozenset(self.required)
        allowed = required | frozenset(self.optional)
        fields = [
            (key, shape.accepts) for key, shape in (*self.required.items(), *self.optional.items())
        ]
        if not self.optional:  # the common case: exactly these keys, each then present
            # A scalar field is one type test, done here rather than through its closure.
            scalars = [(k, s.kind) for k, s in self.required.items() if type(s) is Scalar]
            ints = [k for k, s in self.required.items() if type(s) is Integer]
            others = [
                (k, s.accepts)
                for k, s in self.required.items()
                if type(s) is not Scalar and type(s) is not Integer
            ]

            def exact(value: Any) -> bool:
                if type(value) is not dict or value.keys() != required:
                    return False
                for key, kind in scalars:
                    if type(value[key]) is not kind:
                        return False
                for key in ints:
                    number = value[key]
                    if type(number) is not int or not -INT_BOUND <= number < INT_BOUND:
                        return False
                for key, fits in others:  # noqa: SIM110 (a loop: no generator per action)
                    if not fits(value[key]):
                        return False
                return True

            return exact

        def accepts(value: Any) -> bool:
            if type(value) is not dict:
                return False
            keys = value.keys()
            if not (required <= keys and keys <= allowed):
                return False
            for key, fits in fields:  # noqa: SIM110 (a loop: no generator per action)
                if key in value and not fits(value[key]):
                    return False
            return True

        return accepts


@dataclass(frozen=True)
class OneOf(Shape):
    """One of several object shapes, told apart by their keys (then by their constants)."""

    alternatives: tuple[Obj, ...]

    def problem(self, value: Any, where: str) -> str | None:
        if type(value) is not dict:
            return f"{_name(where)} must be a JSON object, not {show(value)}"
        fitting = [alt for alt in self.alternatives if alt.fits_keys(value)]
        if not fitting:
            return f"{_name(where)} must be one of {self.describe()}; got an object with keys {_keys(value)}"
        first = None
        for alt in fitting:
            found = alt.problem(value, where)
            if found is None:
                return None
            first = first or f"(as {alt.describe()}) {found}"
        return first

    def describe(self) -> str:
        return " or ".join(alt.describe() for alt in self.alternatives)

    def accepter(self) -> Callable[[Any], bool]:
        # Alternatives without optional keys are found by the action's exact key set.
        by_keys: dict[frozenset[str], list[Callable[[Any], bool]]] = {}
        others: list[Callable[[Any], bool]] = []
        for alt in self.alternatives:
            if alt.optional:
                others.append(alt.accepts)
            else:
                by_keys.setdefault(frozenset(alt.required), []).append(alt.accepts)

        def accepts(value: Any) -> bool:
            if type(value) is not dict:
                return False
            for fits in by_keys.get(frozenset(value), ()):
                if fits(value):
                    return True
            return any(fits(value) for fits in others)

        return accepts


def check_shape(shape: Shape, action: Any, kind: str) -> None:
    """Raise :class:`IllegalAction` saying how ``action`` misses the ``kind`` decision's shape."""
    if shape.accepts(action):
        return
    found = shape.problem(action, "")
    if found:
        raise IllegalAction(f"malformed {kind} action: {found}")


def _name(where: str) -> str:
    return f'"{where}"' if where else "the action"


def _keys(value: dict[Any, Any]) -> str:
    return "[" + ", ".join(show(k) for k in sorted(value, key=str)[:8]) + "]"


def show(value: Any, depth: int = 0) -> str:
    """A short JSON rendering for messages: bounded however large or deep the value is."""
    if value is None or type(value) is bool or type(value) is str:
        text = json.dumps(value)
        return text if len(text) <= 40 else text[:37] + '..."'
    if type(value) is int:
        return str(value) if abs(value) < 10**18 else "a huge integer"
    if type(value) is float:
        return repr(value) if math.isfinite(value) else json.dumps(value)
    if type(value) is list:
        if depth >= 1 or not value:
            return "[...]" if value else "[]"
        inner = ", ".join(show(v, depth + 1) for v in value[:3])
        return f"[{inner}{', ...' if len(value) > 3 else ''}]"
    if type(value) is dict:
        if depth >= 1 or not value:
            return "{...}" if value else "{}"
        items = list(value.items())[:3]
        inner = ", ".join(f"{show(k, depth + 1)}: {show(v, depth + 1)}" for k, v in items)
        return "{" + inner + (", ..." if len(value) > 3 else "") + "}"
    return type(value).__name__
