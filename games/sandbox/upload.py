"""Checking an uploaded bot before it is stored: one bot.py, or a zip with bot.py at its root.

Pure functions over bytes: nothing is written to disk and nothing is run.
Sizes are checked on the bytes actually decompressed, never on the sizes a
zip's headers claim.
"""

from __future__ import annotations

import importlib.util
import io
import posixpath
import re
import stat
import unicodedata
import zipfile

from games.engine.storable import storable
from games.sandbox import packages

MAX_PY_BYTES = 256 * 1024
MAX_ZIP_BYTES = 2 * 1024 * 1024
MAX_UNPACKED_BYTES = 10 * 1024 * 1024
MAX_FILES = 1000
MAX_NAME_BYTES = 255
"""Longest file or folder name (NAME_MAX of Linux filesystems)."""
MAX_PATH_BYTES = 1024
"""Longest path inside a zip: well below PATH_MAX once under the worker's media folder."""
ENTRY = "bot.py"
COMPILED = re.compile(r"\.(so(\.\d+)*|pyd|dylib|dll|pyc|pyo)$", re.IGNORECASE)
"""Compiled extensions and shared libraries (``x.cpython-311-x86_64-linux-gnu.so``, ``x.pyd``,
``libx.so.1``): built for their author's machine, with nothing in the sandbox to vouch for them;
the packages a bot may import are the platform's own (packages.py)."""
NATIVE_MAGIC = {
    b"\x7fELF": "an ELF executable or library",
    b"\xfe\xed\xfa\xce": "a Mach-O executable or library",
    b"\xfe\xed\xfa\xcf": "a Mach-O executable or library",
    b"\xce\xfa\xed\xfe": "a Mach-O executable or library",
    b"\xcf\xfa\xed\xfe": "a Mach-O executable or library",
    b"\xca\xfe\xba\xbe": "a Mach-O universal binary",
}
"""A native binary's first bytes: a renamed library is refused by what it is, not its name."""
PYC_VERSIONS = range(3000, 4000)
"""Python 3's bytecode magic numbers (3000 at 3.0, in the 3600s by 3.14): a .pyc file starts
with one, little-endian, then ``\\r\\n`` (as importlib.util.MAGIC_NUMBER does)."""


class UploadError(ValueError):
    """An upload the platform refuses; the message is shown to the author.

    It may quote the upload's names, chosen by the author (a zip's entries may hold control
    characters), so it is made storable (games.engine.storable) to be kept and printed.
    """

    def __init__(self, message: str) -> None:
        super().__init__(storable(message))


def unprintable(text: str) -> str | None:
    """The first control or invisible character in ``text`` as ``U+XXXX``, else None.

    Cc: control characters (CR/LF would split a header); Cf, Zl, Zp: invisible ones
    (U+202E turns "yp.exe" around on screen) and line breaks; Cs: a lone surrogate (JSON's
    "\ud800" makes one), which has no UTF-8 form to store.
    """
    for char in text:
        if unicodedata.category(char) in ("Cc", "Cf", "Zl", "Zp", "Cs"):
            return f"U+{ord(char):04X}"
    return None


def check_filename(filename: str) -> None:
    """The uploaded file's own name: shown in listings and sent back in download headers."""
    if not filename or "/" in filename or "\\" in filename:
        raise UploadError("give a plain file name ending in .py or .zip")
    found = unprintable(filename)
    if found:
        raise UploadError(
            f"the file name has a control or invisible character ({found});"
            " use letters, digits and punctuation"
        )
    if len(filename) > MAX_NAME_BYTES:
        raise UploadError(
            f"the file name is {len(filename)} characters long; at most {MAX_NAME_BYTES} are allowed"
        )


def unpack(filename: str, data: bytes) -> dict[str, bytes]:
    """The bot's files by relative POSIX path; raises UploadError saying what is wrong."""
    name = filename.lower()
    if name.endswith(".py"):
        if len(data) > MAX_PY_BYTES:
            raise UploadError(
                f"{filename} is {len(data)} bytes; a .py upload may be at most {MAX_PY_BYTES} bytes"
            )
        _utf8(ENTRY, data)
        return {ENTRY: data}
    if name.endswith(".zip"):
        return _unzip(filename, data)
    raise UploadError(f"{filename}: upload a single .py file or a .zip with bot.py at its root")


def _utf8(path: str, data: bytes) -> None:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UploadError(f"{path} is not UTF-8 text (byte {exc.start})") from None


def _unzip(filename: str, data: bytes) -> dict[str, bytes]:
    if len(data) > MAX_ZIP_BYTES:
        raise UploadError(
            f"{filename} is {len(data)} bytes; a .zip upload may be at most {MAX_ZIP_BYTES} bytes"
        )
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except (zipfile.BadZipFile, ValueError) as exc:
        raise UploadError(f"{filename} is not a valid zip file ({exc})") from None
    infos = archive.infolist()
    if len(infos) > MAX_FILES:
        raise UploadError(f"{filename} holds {len(infos)} entries; at most {MAX_FILES} are allowed")
    files: dict[str, bytes] = {}
    total = 0
    for info in infos:
        path = info.filename
        _check_path(path)
        mode = info.external_attr >> 16
        if stat.S_ISLNK(mode):
            raise UploadError(f"{path} is a symbolic link; links are not allowed")
        if info.is_dir():
            continue
        _check_file_name(path)
        if stat.S_IFMT(mode) and not stat.S_ISREG(mode):
            raise UploadError(f"{path} is not a regular file")
        budget = MAX_UNPACKED_BYTES - total
        try:
            with archive.open(info) as member:
                content = member.read(budget + 1)  # read past the budget only by one byte
        except (zipfile.BadZipFile, NotImplementedError, RuntimeError, OSError, EOFError) as exc:
            raise UploadError(f"{path} cannot be decompressed ({exc})") from None
        total += len(content)
        if len(content) > budget:
            raise UploadError(f"{filename} unpacks to more than {MAX_UNPACKED_BYTES} bytes")
        normal = posixpath.normpath(path)
        if normal in files:
            raise UploadError(f"{path} appears twice in the zip")
        if normal.endswith(".py"):
            _utf8(normal, content)
        files[normal] = content
    for path in files:  # the worker could not write a file where a folder must be, or back
        parts = path.split("/")
        for depth in range(1, len(parts)):
            folder = "/".join(parts[:depth])
            if folder in files:
                raise UploadError(f"{folder} is both a file and a folder in the zip ({path})")
    if ENTRY not in files:
        inner = sorted(p for p in files if posixpath.basename(p) == ENTRY)
        hint = f" (found {inner[0]}: zip the folder's contents, not the folder)" if inner else ""
        raise UploadError(f"{filename} has no bot.py at its root{hint}")
    return files


def _check_path(path: str) -> None:
    if not path or "\x00" in path:
        raise UploadError("a zip entry has an empty or invalid name")
    if path.startswith(("/", "\\")) or (len(path) > 1 and path[1] == ":"):
        raise UploadError(f"{path} is an absolute path; paths must be relative to the bot's folder")
    if "\\" in path:
        raise UploadError(f"{path} uses backslashes; use / in zip paths")
    if ".." in path.split("/"):
        raise UploadError(f"{path} contains '..'; paths must stay inside the bot's folder")


def _check_file_name(path: str) -> None:
    """A file's path must be writable as given: no empty or '.' parts, no over-long names."""
    shown = path if len(path) <= 80 else f"{path[:77]}..."
    if any(part in ("", ".") for part in path.split("/")):
        raise UploadError(f"{shown} is not a file name (an empty or '.' part)")
    if len(path.encode()) > MAX_PATH_BYTES:
        raise UploadError(f"{shown} is longer than {MAX_PATH_BYTES} bytes")
    if any(len(part.encode()) > MAX_NAME_BYTES for part in path.split("/")):
        raise UploadError(f"{shown} has a name longer than {MAX_NAME_BYTES} bytes")


def refuse_compiled(files: dict[str, bytes]) -> None:
    """Refuse an upload that bundles compiled extensions, saying what bots may import instead.

    Checked when an upload arrives (tournaments.play.services.upload_version) as well as at
    validation (compile_check), so the author learns it from the upload's own answer.
    Names and first bytes tell an author early: a renamed library or bytecode is refused too.
    What a bot can run is bounded by the sandbox, not by this check (a bot can write bytes
    to a file when it runs).
    """
    for path in sorted(files):
        _check_not_compiled(path, files[path])


def compiled_kind(data: bytes) -> str | None:
    """What compiled code ``data`` is by its first bytes (native binary or Python bytecode)."""
    if data[:4] in NATIVE_MAGIC:
        return NATIVE_MAGIC[data[:4]]
    if data[:2] == b"MZ" and _pe_header(data):
        return "a Windows executable or library"
    if data[:4] == importlib.util.MAGIC_NUMBER or (
        data[2:4] == b"\r\n" and int.from_bytes(data[:2], "little") in PYC_VERSIONS
    ):
        return "compiled Python bytecode"
    return None


def _pe_header(data: bytes) -> bool:
    """An MZ stub pointing (at offset 0x3C) at a "PE\\0\\0" header: text may well begin "MZ"."""
    if len(data) < 0x40:
        return False
    offset = int.from_bytes(data[0x3C:0x40], "little")
    return data[offset : offset + 4] == b"PE\0\0"


def _check_not_compiled(path: str, data: bytes) -> None:
    what = "a compiled extension" if COMPILED.search(posixpath.basename(path)) else None
    kind = compiled_kind(data)
    if what is None and kind is not None:
        what = f"compiled code ({kind})"
    if what is not None:
        raise UploadError(
            f"{path} is {what}; uploads may hold Python source and data only. Bots"
            f' may import {packages.described()} (docs/bots.md, "What a bot may import")'
        )


def compile_check(files: dict[str, bytes]) -> None:
    """Refuse compiled extensions, then compile every .py file (without running it); raises
    UploadError naming the file (and the line).

    Validation's check, not unpack's: a version stored before compiled files were refused
    still unpacks when a match seats it.
    """
    refuse_compiled(files)
    for path in sorted(files):
        if not path.endswith(".py"):
            continue
        try:
            compile(files[path], path, "exec", dont_inherit=True)
        except SyntaxError as exc:
            where = f"{path}, line {exc.lineno}" if exc.lineno else path
            raise UploadError(f"syntax error in {where}: {exc.msg}") from None
        except ValueError as exc:  # e.g. null bytes
            raise UploadError(f"{path} cannot be compiled: {exc}") from None
