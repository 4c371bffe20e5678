"""Plays legal actions, then writes NUL to stderr in end(), once the match (its loss) is decided:
the log of its end must not be able to void the result."""

import sys


def act(observation, legal):
    return legal["actions"][0] if legal["actions"] else {"place": []}


def end(outcome):
    print("game over\x00", file=sys.stderr)
