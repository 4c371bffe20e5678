"""Prints without end (stdout goes to stderr under the runner)."""


def act(observation, legal):
    while True:
        print("flood " * 100)
