"""Raises an exception whose message holds a lone surrogate, which has no UTF-8 form: the bot
kit sends it as the JSON escape "\\ud800", and the verdict's detail quotes it."""


def act(observation, legal):
    raise RuntimeError("a lone \ud800 surrogate")
