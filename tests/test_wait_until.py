"""tests/support/processes.py's wait_until: a wait of seconds polls its condition a few times
a second, not ten (each poll is often ORM queries, traced by coverage), and still fails with
what it waited for and, when told how, what it saw."""

from __future__ import annotations

import pytest

from tests.support.processes import wait_until


def test_a_long_wait_polls_less_and_less_often() -> None:
    polls: list[None] = []

    def never() -> bool:
        polls.append(None)
        return False

    with pytest.raises(pytest.fail.Exception, match="timed out waiting for the sky"):
        wait_until(never, 1.0, "the sky")
    # At a fixed 100 ms a second holds ten or eleven polls; 50 ms growing to 250 ms, seven.
    # A busy machine only makes fewer.
    assert 2 <= len(polls) <= 8, len(polls)


def test_a_condition_that_holds_returns_at_once() -> None:
    polls: list[None] = []

    def holds() -> bool:
        polls.append(None)
        return True

    wait_until(holds, 1.0, "anything")
    assert len(polls) == 1


def test_a_wait_that_fails_says_what_it_saw_last() -> None:
    looks: list[int] = []

    def count() -> bool:
        looks.append(len(looks))
        return False

    with pytest.raises(pytest.fail.Exception, match=r"the sky \(0 s\); saw 'looked \d+ times'"):
        wait_until(count, 0.2, "the sky", seen=lambda: f"looked {len(looks)} times")
