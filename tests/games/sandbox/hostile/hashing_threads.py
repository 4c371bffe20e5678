"""Answers every move at once, but its first one starts 8 threads that hash without pause.

hashlib releases the GIL on large blocks, so the threads keep several cores busy at once, and
they go on between the bot's decisions, while the other seats think.
"""

import hashlib
import threading

threads = []


def _hash():
    block = b"x" * (1 << 20)
    while True:
        hashlib.sha256(block).digest()


def act(observation, legal):
    threading.stack_size(256 * 1024)  # eight default stacks would not fit in its address space
    while len(threads) < 8:
        thread = threading.Thread(target=_hash, daemon=True)
        thread.start()
        threads.append(thread)
    return legal["actions"][0]
