"""Allocates until something gives."""


def act(observation, legal):
    hoard = []
    while True:
        hoard.append(bytearray(32 * 1024 * 1024))
