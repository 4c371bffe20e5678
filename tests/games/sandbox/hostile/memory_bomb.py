"""Allocates a gigabyte at a time until something gives."""


def act(observation, legal):
    hoard = []
    while True:
        hoard.append(bytearray(1 << 30))
