"""What became of one decision asked of a bot, and which outcomes count a strike."""

from __future__ import annotations

from enum import StrEnum


class Verdict(StrEnum):
    OK = "ok"
    TIMEOUT = "timeout"
    """No reply within the move's deadline plus the time bank (or CPU limit hit)."""
    CRASH = "crash"
    """act() raised, the import failed, or the process died."""
    BAD_OUTPUT = "bad_output"
    """The reply was not one JSON object with an action, or was over the size cap."""
    ILLEGAL_ACTION = "illegal_action"
    """A well-formed action that the game's check() rejected (judged by the caller)."""
    MEMORY = "memory"
    """The bot ran out of its address-space limit."""
    DISQUALIFIED = "disqualified"
    """The seat already has too many strikes: the game's default action is played."""


STRIKES = frozenset(
    {Verdict.TIMEOUT, Verdict.CRASH, Verdict.BAD_OUTPUT, Verdict.ILLEGAL_ACTION, Verdict.MEMORY}
)
"""Verdicts that replace the bot's action by the default and count one strike."""
