"""Finds every place it can store bytes and tries to fill each one, keeping what it wrote.

Walks the whole filesystem for directories where a new file can really be created
(os.access says so and a write succeeds), then fills each filesystem once, in 8 MiB
files (under RLIMIT_FSIZE), up to ``target`` bytes. It also tries the stores that are
not directories: anonymous memory files (memfd_create) and System V shared memory and
message queues, whose memory RLIMIT_AS does not count. Everything stays allocated until
the match ends, so the test can look at the host's shared memory meanwhile.
"""

import ctypes
import os

CHUNK = 1 << 20
FILE_BYTES = 8 << 20
target = 0
held = []  # open descriptors (memfds) must stay open to keep their memory


def writable_dirs():
    found = []
    for root, dirs, _files in os.walk("/", onerror=lambda exc: None):
        dirs[:] = [d for d in dirs if not os.path.islink(os.path.join(root, d))]
        if root.startswith(("/proc", "/sys")) or not os.access(root, os.W_OK):
            continue
        probe = os.path.join(root, ".probe")
        try:
            with open(probe, "wb") as f:
                f.write(b"x")
            os.unlink(probe)
        except OSError:
            continue
        found.append(root)
    return found


places = []


def start(info):
    # The walk takes a while on a loaded host: done here, where the start's time is its own.
    global target
    target = info["options"].get("target", 16 << 20)  # a real match's options have none
    places.extend(writable_dirs())


def fill_dir(path):
    written, n = 0, 0
    while written < target:
        try:
            with open(os.path.join(path, f"fill-{n}"), "wb") as f:
                while written < target and f.tell() < FILE_BYTES:
                    f.write(b"x" * CHUNK)
                    f.flush()
                    written += CHUNK
        except OSError as exc:
            return written, type(exc).__name__
        n += 1
    return written, "filled"


def fill_memfd():
    written = 0
    try:
        while written < target:
            fd = os.memfd_create("fill")
            held.append(fd)
            for _ in range(FILE_BYTES // CHUNK):
                os.write(fd, b"x" * CHUNK)
                written += CHUNK
        return written, "filled"
    except OSError as exc:
        return written, type(exc).__name__


def fill_sysv():
    """shmget + shmat, touch, shmdt: the segment keeps its pages after it is detached."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.shmat.restype = ctypes.c_void_p
    libc.shmat.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_int]
    libc.shmdt.argtypes = [ctypes.c_void_p]
    written = 0
    while written < target:
        shmid = libc.shmget(0, FILE_BYTES, 0o1600)  # IPC_PRIVATE, IPC_CREAT | 0600
        if shmid < 0:
            return written, os.strerror(ctypes.get_errno())
        addr = libc.shmat(shmid, None, 0)
        if addr in (None, ctypes.c_void_p(-1).value):
            return written, os.strerror(ctypes.get_errno())
        ctypes.memset(addr, 0x78, FILE_BYTES)
        libc.shmdt(addr)
        written += FILE_BYTES
    return written, "filled"


def fill_msgqueue():
    libc = ctypes.CDLL(None, use_errno=True)
    qid = libc.msgget(0, 0o1600)
    if qid < 0:
        return 0, os.strerror(ctypes.get_errno())
    return 0, "created"  # a queue holds 16 KiB at most; creating one is the whole test


def act(observation, legal):
    stores, devices = {}, set()
    for path in places:
        dev = os.stat(path).st_dev
        if dev in devices:  # the same filesystem is filled once
            stores[path] = [0, "same filesystem"]
            continue
        devices.add(dev)
        stores[path] = list(fill_dir(path))
    stores["memfd"] = list(fill_memfd())
    stores["sysv-shm"] = list(fill_sysv())
    stores["sysv-msg"] = list(fill_msgqueue())
    return {"pick": 0, "stores": stores}
