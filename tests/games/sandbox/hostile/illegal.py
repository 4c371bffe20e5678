"""Answers well-formed actions that the game does not allow."""


def act(observation, legal):
    return {"pick": 99}
