"""What happens next: the automatic steps of a match, as plain values.

A phase module (pizza, auction, dispute, attribution) never calls another
phase: it does its own part and returns the next step, or ``None`` when a
politician must now decide (it has emitted ``awaiting``) or the game is over.
:func:`games.brasilis.flow.proceed` is the one place that runs the steps, as
boardgame.io's flow processor and Brexit's ``proceed()`` do.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class RoundStart:
    """Steps 1-2 of a round: a new pizza slice, news set aside, salaries (S-1, S-8)."""

    number: int
    revealer: int | None = None
    """The first revealer; ``None`` for the Chief (S-3)."""


@dataclass(frozen=True, slots=True)
class AuctionStart:
    """Step 3 from round 2 on: draw X - 1 aids and auction them (S-2, S-21)."""


@dataclass(frozen=True, slots=True)
class NextLot:
    """The poorest eligible politician chooses the next aid, or the auction closes (S-21)."""


@dataclass(frozen=True, slots=True)
class BeforeReveal:
    """The refill check, then a random reveal or the Media Control offer (S-23, S-9, S-33)."""


@dataclass(frozen=True, slots=True)
class Reveal:
    """``card`` becomes the news in dispute (S-27 replaces the REVOLUTION card)."""

    card: str
    source: str
    """Where it comes from: ``pool``, ``deck`` (S-27) or ``offer`` (S-33)."""


@dataclass(frozen=True, slots=True)
class Turn:
    """The turn goes to the next politician from ``start`` who can act (S-10)."""

    start: int


@dataclass(frozen=True, slots=True)
class DisputeEnd:
    """Everyone has passed: reveal face-down cards and find the responsible one (S-28, S-22)."""


@dataclass(frozen=True, slots=True)
class Attribution:
    """The news goes to ``seat``'s secret pile; the Lawyer window may open (S-22, S-18)."""

    seat: int
    chooser: int | None = None
    totals: tuple[int, ...] | None = None


@dataclass(frozen=True, slots=True)
class Effects:
    """The attributed ``news`` changes ``seat``'s image and money and moves Fury (S-22, S-25)."""

    seat: int
    news: str


@dataclass(frozen=True, slots=True)
class Cleared:
    """The played Power cards go to the discard; the next reveal or the round's end follows."""


Step = (
    RoundStart
    | AuctionStart
    | NextLot
    | BeforeReveal
    | Reveal
    | Turn
    | DisputeEnd
    | Attribution
    | Effects
    | Cleared
)
Next = Step | None
"""What a phase returns: the next step, or None when a decision (or nothing) is awaited."""
