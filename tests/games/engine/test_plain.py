"""A state's copy (games/engine/plain.py) is deep, equal and keeps the order of every dict."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from games.engine.plain import copied

plain = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner),
    max_leaves=20,
)


def _containers(value: Any) -> list[Any]:
    if isinstance(value, list):
        return [value, *(c for item in value for c in _containers(item))]
    if isinstance(value, dict):
        return [value, *(c for item in value.values() for c in _containers(item))]
    return []


@given(value=plain)
def test_a_copy_is_equal_in_order_and_shares_no_list_or_dict(value: Any) -> None:
    copy = copied(value)
    assert copy == value
    assert repr(copy) == repr(value)  # dict order too: observations list aids in key order
    originals = {id(c) for c in _containers(value)}
    assert not originals & {id(c) for c in _containers(copy)}
