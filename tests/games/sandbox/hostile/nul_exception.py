"""Raises an exception whose message holds a NUL: the verdict's detail quotes it."""


def act(observation, legal):
    raise RuntimeError("a NUL \x00 in my message")
