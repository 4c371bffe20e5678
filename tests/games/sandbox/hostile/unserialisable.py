"""Returns things that are not a JSON object action."""

moves = 0


def act(observation, legal):
    global moves
    moves += 1
    if moves == 1:
        return {"pick": {1, 2}}  # a set: not JSON
    return "pick 0"  # JSON, but not an object
