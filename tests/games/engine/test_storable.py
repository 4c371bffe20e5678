"""games.engine.storable: whatever a bot's text holds, the result is kept by Postgres, orjson and
a terminal alike, and nothing of it is lost."""

from __future__ import annotations

import json
import re

import orjson
import pytest
from django.db import connection
from hypothesis import given, settings
from hypothesis import strategies as st

from games.engine.storable import storable, unstorable

ANY_CHAR = st.characters(exclude_categories=())  # surrogates and controls included
ANY_TEXT = st.text(ANY_CHAR)
ESCAPED = {chr(c) for c in [*range(0x00, 0x09), *range(0x0B, 0x20), *range(0x7F, 0xA0)]}


def needs_escape(char: str) -> bool:
    return char in ESCAPED or 0xD800 <= ord(char) <= 0xDFFF


def read_back(text: str) -> str:
    """The escapes turned back into their characters (for text that had no backslash)."""
    return re.sub(
        r"\\x([0-9a-f]{2})|\\u([0-9a-f]{4})",
        lambda m: chr(int(m.group(1) or m.group(2), 16)),
        text,
    )


@pytest.mark.parametrize(
    ("text", "kept"),
    [
        ("\x00", "\\x00"),
        ("a\x00b", "a\\x00b"),
        ("\ud800", "\\ud800"),
        ("\udfff!", "\\udfff!"),
        ("line\r\n", "line\\x0d\n"),
        ("\x1b[31mred", "\\x1b[31mred"),
        ("\x7f\x80\x9f", "\\x7f\\x80\\x9f"),
        ("tab\tnew\nline", "tab\tnew\nline"),
        ("C:\\bot\\x00 é 😀 \u202e", "C:\\bot\\x00 é 😀 \u202e"),
        ("", ""),
    ],
)
def test_the_mapping(text: str, kept: str) -> None:
    assert storable(text) == kept


@given(ANY_TEXT)
def test_the_result_holds_nothing_to_escape_and_encodes(text: str) -> None:
    kept = storable(text)
    assert not any(needs_escape(c) for c in kept)
    assert unstorable(kept) is None
    kept.encode("utf-8")  # what psycopg sends; a lone surrogate raises here
    assert orjson.loads(orjson.dumps({"detail": kept})) == {"detail": kept}


@given(ANY_TEXT)
def test_storable_text_is_kept_as_it_is_and_a_second_pass_changes_nothing(text: str) -> None:
    kept = storable(text)
    assert storable(kept) == kept
    if not any(needs_escape(c) for c in text):
        assert kept == text
        assert unstorable(text) is None
    else:
        first = next(c for c in text if needs_escape(c))
        assert unstorable(text) == f"U+{ord(first):04X}"


@given(st.text(ANY_CHAR.filter(lambda c: c != "\\")))
def test_every_escape_reads_back_so_texts_without_a_backslash_never_collide(text: str) -> None:
    assert read_back(storable(text)) == text


@pytest.mark.django_db
@settings(max_examples=60, deadline=None)
@given(st.lists(ANY_TEXT, min_size=1, max_size=8))
def test_postgres_keeps_the_result_in_text_and_jsonb(texts: list[str]) -> None:
    kept = [storable(t) for t in texts]
    with connection.cursor() as cur:
        cur.execute("CREATE TEMP TABLE IF NOT EXISTS kept (t text, j jsonb)")
        cur.execute("TRUNCATE kept")
        for text in kept:
            cur.execute(
                "INSERT INTO kept VALUES (%s, %s::jsonb)", [text, json.dumps({"detail": text})]
            )
        cur.execute("SELECT t, j->>'detail' FROM kept")
        assert cur.fetchall() == [(text, text) for text in kept]
