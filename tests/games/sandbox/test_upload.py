"""Upload rules: every rejection with its message, and what is accepted."""

from __future__ import annotations

import importlib.util
import io
import stat
import sys
import tempfile
import time
import zipfile
from importlib import metadata
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.engine.storable import storable
from games.sandbox.upload import (
    MAX_PY_BYTES,
    MAX_UNPACKED_BYTES,
    MAX_ZIP_BYTES,
    UploadError,
    compile_check,
    compiled_kind,
    refuse_compiled,
    unpack,
)

ZIP_TIME = (2026, 1, 1, 0, 0, 0)
BOT = b"def act(observation, legal):\n    return legal['actions'][0]\n"


def make_zip(entries: dict[str, bytes], *, symlink: str | None = None) -> bytes:
    """The same bytes on every call: a zip made with the clock's time would name a parametrized
    test differently in two xdist workers that collect a second apart, and xdist refuses a run
    whose workers collected different tests."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in entries.items():
            zf.writestr(zipfile.ZipInfo(name, date_time=ZIP_TIME), data, zipfile.ZIP_DEFLATED)
        if symlink:
            info = zipfile.ZipInfo(symlink, date_time=ZIP_TIME)
            info.external_attr = (stat.S_IFLNK | 0o777) << 16
            zf.writestr(info, "/etc/shadow")
    return buf.getvalue()


def test_test_zips_do_not_depend_on_the_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    made_now = make_zip({"bot.py": BOT}, symlink="link")
    monkeypatch.setattr(time, "time", lambda: 2_000_000_000.0)
    assert make_zip({"bot.py": BOT}, symlink="link") == made_now


def test_single_py_becomes_bot_py() -> None:
    assert unpack("my_bot.py", BOT) == {"bot.py": BOT}


def test_zip_keeps_its_tree() -> None:
    files = unpack(
        "b.zip", make_zip({"bot.py": BOT, "lib/helpers.py": b"X = 1\n", "w.json": b"{}"})
    )
    assert files == {"bot.py": BOT, "lib/helpers.py": b"X = 1\n", "w.json": b"{}"}


@pytest.mark.parametrize(
    ("filename", "data", "message"),
    [
        ("bot.py", b"#" * (MAX_PY_BYTES + 1), f"at most {MAX_PY_BYTES} bytes"),
        ("bot.py", b"x = '\xff'\n", "bot.py is not UTF-8 text (byte 5)"),
        ("bot.exe", b"MZ", "upload a single .py file or a .zip with bot.py at its root"),
        ("b.zip", b"PK\x03\x04 not really", "b.zip is not a valid zip file"),
        (
            "b.zip",
            b"\0" * (MAX_ZIP_BYTES + 1),
            f"a .zip upload may be at most {MAX_ZIP_BYTES} bytes",
        ),
        ("b.zip", make_zip({"/bot.py": BOT}), "/bot.py is an absolute path"),
        ("b.zip", make_zip({"bot.py": BOT, "a/../../x.py": b""}), "a/../../x.py contains '..'"),
        ("b.zip", make_zip({"bot.py": BOT}, symlink="link"), "link is a symbolic link"),
        ("b.zip", make_zip({"helper.py": BOT}), "b.zip has no bot.py at its root"),
        (
            "b.zip",
            make_zip({"mybot/bot.py": BOT}),
            "(found mybot/bot.py: zip the folder's contents",
        ),
        ("b.zip", make_zip({"bot.py": BOT, "u.py": b"\xfe\xff"}), "u.py is not UTF-8 text"),
        ("b.zip", make_zip({"bot.py": BOT, "a\\b.py": b""}), "uses backslashes"),
        # What cannot be written to disk must be refused here, not found out by the worker.
        ("b.zip", make_zip({"bot.py": BOT, "lib": b"", "lib/a.py": b""}), "lib is both a file"),
        ("b.zip", make_zip({"bot.py": BOT, "lib/a.py": b"", "lib": b""}), "lib is both a file"),
        ("b.zip", make_zip({"bot.py": BOT, "x" * 304: b""}), "longer than 255 bytes"),
        ("b.zip", make_zip({"bot.py": BOT, "a/" * 600 + "b": b""}), "longer than 1024 bytes"),
        ("b.zip", make_zip({"bot.py": BOT, ".": b""}), "is not a file name"),
        ("b.zip", make_zip({"bot.py": BOT, "a/./b.py": b""}), "is not a file name"),
        # A name chosen by the author is quoted escaped (games.engine.storable): printable, storable.
        (
            "b.zip",
            make_zip({"bot.py": BOT, "l\x1b[2J\x85": b"", "l\x1b[2J\x85/a.py": b""}),
            "l\\x1b[2J\\x85 is both a file and a folder in the zip (l\\x1b[2J\\x85/a.py)",
        ),
    ],
)
def test_rejections_say_why(filename: str, data: bytes, message: str) -> None:
    with pytest.raises(UploadError) as err:
        unpack(filename, data)
    assert message in str(err.value)


def test_zip_bomb_is_measured_by_decompressed_bytes() -> None:
    # 11 MB of zeros deflates to ~11 KB: small upload, too big unpacked.
    bomb = make_zip({"bot.py": BOT, "zeros.bin": b"\0" * (MAX_UNPACKED_BYTES + 1024 * 1024)})
    assert len(bomb) < MAX_ZIP_BYTES
    with pytest.raises(UploadError, match="unpacks to more than"):
        unpack("bomb.zip", bomb)


def test_header_sizes_that_lie_do_not_help() -> None:
    data = bytearray(make_zip({"bot.py": BOT, "zeros.bin": b"\0" * (MAX_UNPACKED_BYTES + 4096)}))
    # Forge the uncompressed size in the central directory to a tiny number.
    cd = data.rfind(b"PK\x01\x02")
    data[cd + 24 : cd + 28] = (10).to_bytes(4, "little")
    with pytest.raises(UploadError):
        unpack("liar.zip", bytes(data))


def test_compile_check_names_file_and_line() -> None:
    compile_check({"bot.py": BOT, "notes.txt": b"not python ("})
    with pytest.raises(UploadError, match=r"syntax error in lib/x.py, line 2: "):
        compile_check({"bot.py": BOT, "lib/x.py": b"ok = 1\ndef broken(:\n"})
    with pytest.raises(UploadError) as err:
        compile_check({"bot.py": BOT, "lib/\x07x.py": b"def broken(:\n"})
    assert str(err.value).startswith("syntax error in lib/\\x07x.py, line 1: ")


@pytest.mark.parametrize(
    "name",
    [
        "lib/numpy/_core/_multiarray_umath.cpython-311-x86_64-linux-gnu.so",
        "fast.cpython-312-darwin.so",
        "lib/libsolver.so.1.2",
        "speedups.pyd",
        "libsolver.dylib",
        "Solver.DLL",
    ],
)
def test_compiled_extensions_are_refused_with_what_bots_may_import(name: str) -> None:
    files = unpack("b.zip", make_zip({"bot.py": BOT, name: b"\x7fELF\x02\x01\x01"}))
    assert name in files  # stored as uploaded: the check is validation's (compile_check)
    with pytest.raises(UploadError) as err:
        compile_check(files)
    python, numpy = "{}.{}".format(*sys.version_info[:2]), metadata.version("numpy")
    assert str(err.value) == (
        f"{name} is a compiled extension; uploads may hold Python source and data only. Bots may"
        f" import the standard library of Python {python} and numpy {numpy}"
        ' (docs/bots.md, "What a bot may import")'
    )


def test_data_files_named_like_libraries_are_not_compiled_extensions() -> None:
    compile_check({"bot.py": BOT, "so.py": b"x = 1\n", "notes.so.txt": b"", "weights.sox": b""})


@settings(max_examples=50, deadline=None)
@given(
    st.dictionaries(
        # Surrogates cannot be written into a zip at all, so no upload can carry them.
        st.text(
            st.characters(blacklist_characters="\x00", codec="utf-8"),
            min_size=1,
            max_size=20,
        ),
        st.binary(max_size=64),
        max_size=5,
    )
)
def test_unpack_only_raises_upload_error(entries: dict[str, bytes]) -> None:
    try:
        files = unpack("x.zip", make_zip(entries))
    except UploadError as exc:
        assert storable(str(exc)) == str(exc)  # quoted names are escaped
        return
    assert "bot.py" in files
    assert all(not p.startswith("/") and ".." not in p.split("/") for p in files)


def write_out(files: dict[str, bytes], root: Path) -> None:
    """As the worker unpacks a version (tournaments.play.players.bot_dir)."""
    for rel, data in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)


@settings(max_examples=40, deadline=None)
@given(
    st.dictionaries(
        st.lists(st.sampled_from(["lib", "a.py", ".", "x" * 256, "bot.py", ""]), min_size=1)
        .map("/".join)
        .filter(lambda name: name and not name.endswith("/")),
        st.binary(max_size=8),
        max_size=5,
    ).map(lambda entries: {"bot.py": BOT, **entries})
)
def test_whatever_unpack_accepts_can_be_written_to_disk(entries: dict[str, bytes]) -> None:
    try:
        files = unpack("x.zip", make_zip(entries))
    except UploadError:
        return
    with tempfile.TemporaryDirectory() as root:
        write_out(files, Path(root))


def _pe() -> bytes:
    stub = bytearray(b"MZ" + b"\0" * 0x7E)
    stub[0x3C:0x40] = (0x80).to_bytes(4, "little")
    return bytes(stub) + b"PE\0\0" + b"\0" * 16


@pytest.mark.parametrize(
    ("name", "data", "kind"),
    [
        ("lib/helper.dat", b"\x7fELF\x02\x01\x01" + b"\0" * 9, "an ELF executable or library"),
        ("weights.bin", b"\xcf\xfa\xed\xfe\x07\0\0\x01", "a Mach-O executable or library"),
        ("fat", b"\xca\xfe\xba\xbe\0\0\0\x02", "a Mach-O universal binary"),
        ("tool.txt", _pe(), "a Windows executable or library"),
        ("cache/fast.py3", importlib.util.MAGIC_NUMBER + b"\0" * 12, "compiled Python bytecode"),
        ("old", (3413).to_bytes(2, "little") + b"\r\n" + b"\0" * 12, "compiled Python bytecode"),
    ],
)
def test_compiled_code_under_any_name_is_refused_by_its_first_bytes(
    name: str, data: bytes, kind: str
) -> None:
    with pytest.raises(UploadError) as err:
        refuse_compiled({"bot.py": BOT, name: data})
    assert str(err.value).startswith(
        f"{name} is compiled code ({kind}); uploads may hold Python source and data only. Bots"
        " may import the standard library"
    )
    assert compiled_kind(data) == kind


@pytest.mark.parametrize("name", ["__pycache__/helper.cpython-311.pyc", "x.PYO"])
def test_bytecode_files_are_refused_by_name(name: str) -> None:
    with pytest.raises(UploadError, match="is a compiled extension"):
        refuse_compiled({"bot.py": BOT, name: b"anything"})


@pytest.mark.parametrize(
    "data",
    [
        b"MZ = 3\n" + b"# a comment\n" * 10,  # text that begins "MZ" without a PE header
        b"ab\r\n",  # a CRLF text file: "ab" is no bytecode magic number
        b"",
        b"\x7fEL",
    ],
)
def test_data_and_source_that_only_look_alike_are_kept(data: bytes) -> None:
    assert compiled_kind(data) is None
    refuse_compiled({"bot.py": BOT, "notes.txt": data})
