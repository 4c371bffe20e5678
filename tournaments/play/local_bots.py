"""Bots on an author's disk, for the local commands (``play``, ``simulate``).

A seat is ``builtin:NAME`` or a path to a bot (a ``.py`` file, a ``.zip``, or a folder holding
``bot.py``); a path is read as the upload it would be, and unpacked as a worker unpacks it.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from games.engine.builtin import builtin_names
from games.sandbox.isolation import PRIVATE_DIR, write_private
from games.sandbox.upload import UploadError, unpack

BUILTIN_PREFIX = "builtin:"


class BadSeat(ValueError):
    """A seat that names no built-in bot and no bot on disk; the message says which."""


def builtin_name(game: str, spec: str) -> str | None:
    """The built-in bot ``spec`` names (``builtin:NAME``), None for a path; BadSeat if unknown."""
    if not spec.startswith(BUILTIN_PREFIX):
        return None
    name = spec.removeprefix(BUILTIN_PREFIX)
    if name not in builtin_names(game):
        raise BadSeat(
            f"unknown built-in bot {name!r}; choose from {', '.join(builtin_names(game))}"
        )
    return name


def read_upload(spec: str) -> tuple[str, bytes]:
    """The file name and bytes that uploading ``spec`` would send (a folder is zipped)."""
    path = Path(spec)
    if path.is_dir():
        with tempfile.TemporaryDirectory() as tmp:
            archive = shutil.make_archive(str(Path(tmp) / "bot"), "zip", path)
            return ("bot.zip", Path(archive).read_bytes())
    if not path.is_file():
        raise BadSeat(f"--seat {spec}: no such file, and not builtin:NAME")
    return (path.name, path.read_bytes())


def unpack_into(folder: Path, spec: str, upload: tuple[str, bytes]) -> Path:
    """Write the upload's files into ``folder`` as a worker does; BadSeat if it is no bot."""
    try:
        files = unpack(*upload)
    except UploadError as exc:
        raise BadSeat(f"--seat {spec}: {exc}") from None
    folder.mkdir(mode=PRIVATE_DIR, parents=True, exist_ok=True)
    folder.chmod(PRIVATE_DIR)
    write_private(folder, files)
    return folder
