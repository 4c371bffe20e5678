"""Exit codes scripts can rely on (docs/cli.md lists them)."""

from __future__ import annotations

from enum import IntEnum


class Exit(IntEnum):
    OK = 0
    FAILED = 1
    """The work ran and failed: the match was aborted, the version was rejected."""
    USAGE = 2
    """Bad arguments or files on this side (argparse's own code for bad arguments)."""
    REFUSED = 3
    """The server refused the request (400, 409, 413, 429): the message says why."""
    AUTH = 4
    """No token for this server (run ``backroom login``), or the server refused it (401, 403)."""
    NOT_FOUND = 5
    """No such bot, version or match, or one you may not see (404)."""
    UNAVAILABLE = 6
    """The server could not be reached or failed (a 5xx)."""
    TIMED_OUT = 7
    """``--timeout`` passed before the match ended or the version was validated."""


class Failure(Exception):
    """Ends the command with ``code``; ``message`` is printed for people (or as JSON)."""

    def __init__(self, code: Exit, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
