"""A bot that plays with numpy, as an author of a search or learning bot would write one.

It scores the legal actions through a matrix product (BLAS) and a linear solve, builds Brexit
placements and Bra$ilis bids from ``space`` with numpy's generator, and says in its first
decision's log what it found in the sandbox: numpy's version against the ``start`` message's,
the BLAS threads OpenBLAS runs and the variables that set them. Anything unexpected raises (a
``crash`` verdict), so a match with only ``ok`` verdicts is a bot that had numpy throughout.
"""

SOURCE = b'''
import ctypes, glob, os
import numpy as np

rng = np.random.default_rng(0)
THREAD_VARIABLES = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")


def blas_threads():
    """What OpenBLAS itself says (numpy ships it in numpy.libs)."""
    [lib] = glob.glob(os.path.join(os.path.dirname(np.__file__) + ".libs", "libscipy_openblas*.so"))
    return ctypes.CDLL(lib).scipy_openblas_get_num_threads64_()


def start(info):
    global rng
    rng = np.random.default_rng(info["seat"])
    offered = info["packages"]["numpy"]
    if offered != np.__version__:
        raise ImportError(f"start says numpy {offered}, imported {np.__version__}")
    variables = " ".join(f"{name}={os.environ.get(name)}" for name in THREAD_VARIABLES)
    print(f"numpy {np.__version__} from {os.path.dirname(np.__file__)}, blas threads"
          f" {blas_threads()}, {variables}")


def scores(count):
    """One score per choice: features through a product and a solve (BLAS and LAPACK)."""
    features = rng.standard_normal((max(count, 8), 8))
    gram = features.T @ features + np.eye(8)
    weights = np.linalg.solve(gram, features.T @ rng.standard_normal(len(features)))
    return (features @ weights)[:count]


def act(observation, legal):
    actions = legal["actions"]
    if actions:
        return actions[int(np.argmax(scores(len(actions))))]
    space = legal["space"] or {}
    if "bid" in space:
        bid = space["bid"]
        steps = (bid["max"] - bid["min"]) // bid["step"]
        return {"bid": bid["min"] + bid["step"] * int(rng.integers(0, min(steps, 3) + 1))}
    if "cards" in space and "slots" in space:
        if not space["slots"]:
            return {"place": []}
        chosen = rng.random(len(space["cards"])) < 0.3
        return {
            "place": [
                {"card": card, "slot": space["slots"][int(rng.integers(len(space["slots"])))]}
                for card, take in zip(space["cards"], chosen)
                if take
            ]
        }
    raise ValueError(f"unknown decision {legal['kind']}: {legal}")
'''
