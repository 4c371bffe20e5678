"""Writes NUL and other control characters to stderr, at its start and in every act(), then
plays a legal action: what Postgres refuses in text must not void the match."""

import sys


def start(info):
    print("starting\x00", file=sys.stderr)


def act(observation, legal):
    sys.stderr.write("NUL\x00 ESC\x1b[2J BEL\x07 CR\r\n")
    sys.stderr.flush()
    sys.stderr.buffer.write(b"raw \x00 and \xff bytes\n")
    sys.stderr.buffer.flush()
    return legal["actions"][0] if legal["actions"] else {"place": []}
