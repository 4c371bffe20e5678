"""Prints without end (stdout goes to stderr under the bot kit)."""


def act(observation, legal):
    while True:
        print("flood " * 100)
