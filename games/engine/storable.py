r"""A bot's text made storable: the one door every text a bot chose goes through to be kept.

A bot chooses its stderr, the messages of its exceptions (tracebacks quote them), what it
sends back instead of an action (a refusal quotes it), its bot's name and its files' names.
Postgres refuses NUL in text and in jsonb, and a lone surrogate (JSON's ``"\ud800"`` decodes
to one) has no UTF-8 form, so orjson and psycopg refuse it: either in a flush made the whole
match fail. :func:`storable` escapes what cannot be kept as it is and keeps the rest:

* a control character (Unicode category Cc) other than tab and newline becomes ``\xHH``:
  NUL ``\x00``, carriage return ``\x0d``, ESC ``\x1b``, DEL ``\x7f``, the C1 controls
  ``\x80`` to ``\x9f``; those would also move a terminal's cursor or hide text when a log is
  printed;
* a surrogate code point (U+D800 to U+DFFF, only ever lone in a Python string) becomes
  ``\uHHHH``, e.g. ``\ud800``;

in lower-case hex, as Python's ``repr`` writes them. Every other character, the backslash
included, is kept as it is: text that was storable already (a traceback, a ``print``) reads
exactly as written, and storable() changes nothing in its own output, so a second door on the
same text is harmless. Each escape reads back to its character, so no two texts without a
backslash give the same result; a text with one may (a bot printing the four characters
``\x00`` is logged as a bot printing NUL is).
"""

from __future__ import annotations

import re

_ESCAPED = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff]")
"""Cc but tab (09) and newline (0a), and the surrogates."""


def _escape(found: re.Match[str]) -> str:
    code = ord(found.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def storable(text: str) -> str:
    """``text`` with its control characters and lone surrogates escaped (see the module)."""
    return _ESCAPED.sub(_escape, text)


def unstorable(text: str) -> str | None:
    """The first character storable() would escape, as ``U+XXXX``; None if there is none.

    For what a person types (a bot's description): refused with this, rather than escaped.
    """
    found = _ESCAPED.search(text)
    return None if found is None else f"U+{ord(found.group()):04X}"
