"""A well-behaved bot: first legal action; counts its moves to show one process per match."""

import sys

moves = 0
info = {}


def start(start_info):
    info.update(start_info)


def act(observation, legal):
    global moves
    moves += 1
    print(f"thinking about move {moves}")  # print() must not corrupt the protocol
    print("to stderr", file=sys.stderr)
    action = dict(legal["actions"][0])
    action["moves_seen"] = moves
    action["seat"] = info.get("seat")
    return action
