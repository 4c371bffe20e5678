"""What a bot may import beyond the standard library: a short list of pinned packages.

The packages are the worker's own: pyproject.toml pins each one as a runtime dependency, so
``make install`` and the image put them in the worker's environment. A bot gets only their
folders (for numpy, ``numpy/`` and the ``numpy.libs/`` its extension modules load OpenBLAS
from), read-only, in one folder the bot kit appends to ``sys.path``: under bubblewrap they are
mounted at ``/packages``; without it (``unsafe-dev`` and the benchmark's baseline) the bot's
staged copy links to them. The rest of the worker's environment (Django, the database driver)
stays out of reach. The ``start`` message names each package with its version, and the
readiness smoke run imports each one in a real sandbox, so a worker whose bots could not
import them (another Python version for the bots, a C++ runtime missing) starts no bot.

BLAS runs single-threaded (``SINGLE_THREADED``, in every bot's environment): a bot's threads
share its one core and are all charged to its time, and OpenBLAS would otherwise start a
thread per host core at import, each with a buffer of its own taken from the bot's address
space (docs/bots.md, "What a bot may import").

``python -m games.sandbox`` prints what bots get; ``--compile-packages`` first writes the
packages' bytecode (``make install`` does it): a bot cannot write it to the read-only mount,
and numpy's 500 modules compiled at each start would cost the bot a second of its start time.
"""

from __future__ import annotations

import compileall
import functools
import os
import sys
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

BOT_PACKAGES = ("numpy",)
"""The distributions a bot may import, beside the standard library (pyproject.toml pins them)."""
SANDBOX_FOLDER = "/packages"
"""Where the packages' folders are mounted inside bubblewrap."""
SINGLE_THREADED = {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
HOST_BLAS_SETTINGS = ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")
"""Passed on from the worker's environment when set: a host whose processor OpenBLAS misjudges
names the kernel to use there, and its bots need the same answer."""


@dataclass(frozen=True)
class Package:
    name: str
    version: str
    folders: tuple[Path, ...]
    """The distribution's top-level entries in the worker's environment (real paths)."""


@functools.cache
def offered() -> tuple[Package, ...]:
    """The packages of BOT_PACKAGES installed in this environment (each one's files as found)."""
    found: list[Package] = []
    for name in BOT_PACKAGES:
        try:
            dist = metadata.distribution(name)
        except metadata.PackageNotFoundError:
            continue
        tops = sorted(
            {
                file.parts[0]
                for file in dist.files or ()
                if file.parts and file.parts[0] != ".." and not file.parts[0].endswith(".dist-info")
            }
        )
        folders = tuple(Path(os.path.realpath(str(dist.locate_file(top)))) for top in tops)
        found.append(Package(name, dist.version, tuple(f for f in folders if f.exists())))
    return tuple(found)


def versions() -> dict[str, str]:
    """Each offered package's version by name, as the ``start`` message lists them."""
    return {package.name: package.version for package in offered()}


def missing() -> list[str]:
    """The packages bots are promised that this environment lacks."""
    have = versions()
    return [name for name in BOT_PACKAGES if name not in have]


def described() -> str:
    """The offer in words, for people: ``the standard library of Python 3.11 and numpy 2.4.6``."""
    stdlib = "the standard library of Python {}.{}".format(*sys.version_info[:2])
    named = [f"{name} {version}" for name, version in versions().items()]
    return " and ".join([stdlib, ", ".join(named)] if named else [stdlib])


def mounts() -> list[tuple[Path, str]]:
    """(host path, path inside bubblewrap) of each folder a bot reads its packages from."""
    return [
        (folder, f"{SANDBOX_FOLDER}/{folder.name}")
        for package in offered()
        for folder in package.folders
    ]


def link(folder: Path) -> Path:
    """Fill ``folder`` with links to the packages' folders (a bot without bubblewrap sees the
    host's paths); returns it, for the bot kit's ``--packages``."""
    folder.mkdir(mode=0o700, exist_ok=True)
    for package in offered():
        for source in package.folders:
            (folder / source.name).symlink_to(source)
    return folder


def environment() -> dict[str, str]:
    """The variables every bot starts with for its packages: single-threaded BLAS."""
    passed = {name: os.environ[name] for name in HOST_BLAS_SETTINGS if os.environ.get(name)}
    return {**SINGLE_THREADED, **passed}


def compile_bytecode() -> bool:
    """Write the offered packages' bytecode next to their sources; whether all compiled."""
    ok = True
    for package in offered():
        for folder in package.folders:
            if folder.is_dir():
                ok = bool(compileall.compile_dir(folder, quiet=1, workers=0)) and ok
    return ok
