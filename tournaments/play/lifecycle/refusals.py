"""What a check of the lifecycle refuses: raised before anything is written.

The API answers a ``Refused`` with 400 and a ``Conflict`` with 409 (tournaments.site.api);
both carry a sentence for the person who asked.
"""

from __future__ import annotations


class Refusal(Exception):
    """A check refused the change; nothing was written."""


class Refused(Refusal):
    """The action is malformed or illegal now (answered 400)."""


class Conflict(Refusal):
    """The decision was already answered, the seat is not being waited for, or the match
    moved on while the change was made (answered 409)."""
