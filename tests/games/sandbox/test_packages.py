"""What a bot may import beside the standard library (games/sandbox/packages.py): numpy, pinned,
mounted read-only into the sandbox with single-threaded BLAS, named in the start message, and
checked by the sandbox's start check."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
import tomllib
from collections.abc import Iterator
from importlib import metadata, util
from pathlib import Path

import pytest

from games.sandbox import SeatController, Verdict, packages, readiness
from games.sandbox.limits import Limits
from games.sandbox.protocol import start_message

from .conftest import FAST, FakeGame, play
from .numpy_bot import SOURCE as NUMPY_BOT
from .whole_match import play_sandboxed

REPO = Path(__file__).resolve().parents[3]
NUMPY = metadata.version("numpy")
SINGLE_THREADED = "blas threads 1, OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1"


def bot(tmp_path: Path, source: bytes) -> Path:
    folder = tmp_path / "bot"
    folder.mkdir()
    (folder / "bot.py").write_bytes(source)
    return folder


# --- the offer ----------------------------------------------------------------


def test_numpy_is_pinned_and_the_start_message_names_the_installed_version() -> None:
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    assert f"numpy=={NUMPY}" in project["dependencies"]  # a runtime dependency: workers mount it
    assert f"\nnumpy=={NUMPY}\n" in (REPO / "requirements.lock").read_text()
    message = start_message(game="fake", seat=0, seats=2, options={}, limits=Limits())
    assert message["packages"] == {"numpy": NUMPY}


def test_a_bot_reads_numpy_s_own_folders_and_nothing_else_of_the_environment() -> None:
    [numpy] = packages.offered()
    import numpy as worker_numpy  # the worker's own, which the sandbox mounts

    site = Path(os.path.realpath(worker_numpy.__file__)).parent.parent
    assert numpy.folders == (site / "numpy", site / "numpy.libs")
    assert packages.mounts() == [
        (site / "numpy", "/packages/numpy"),
        (site / "numpy.libs", "/packages/numpy.libs"),
    ]


def test_every_module_of_the_offered_packages_is_compiled() -> None:
    """make install compiles them: a bot cannot write bytecode to its read-only mount, and
    compiling numpy's modules at each start costs about a second of the bot's start time."""
    for package in packages.offered():
        for folder in package.folders:
            sources = list(folder.rglob("*.py"))
            missing = [p for p in sources if not Path(util.cache_from_source(str(p))).exists()]
            assert not missing, f"{len(missing)} of {len(sources)}, e.g. {missing[0]}: make install"


def test_the_command_that_compiles_them_says_what_bots_may_import() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "games.sandbox", "--compile-packages"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    version = "{}.{}".format(*sys.version_info[:2])
    assert (
        done.stdout == f"bot packages: the standard library of Python {version} and numpy {NUMPY}\n"
    )
    assert done.stderr == ""


def test_a_promised_package_that_is_not_installed_is_named(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(packages, "BOT_PACKAGES", ("numpy", "no-such-package"))
    packages.offered.cache_clear()
    try:
        assert packages.missing() == ["no-such-package"]
        assert packages.versions() == {"numpy": NUMPY}
    finally:
        packages.offered.cache_clear()


def test_the_host_s_openblas_core_type_reaches_the_bots(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENBLAS_CORETYPE", "Haswell")
    monkeypatch.delenv("OPENBLAS_L2_SIZE", raising=False)
    assert packages.environment() == {**packages.SINGLE_THREADED, "OPENBLAS_CORETYPE": "Haswell"}


# --- in the sandbox -------------------------------------------------------------


def play_match(folder: Path, game: str, seats: int) -> dict[int, str]:
    """Every seat played by the bot in ``folder``, in the sandbox, through a whole match of
    ``game``; every decision must be the bot's own. Returns each seat's first decision's log."""
    return play_sandboxed(folder, game, seats, seed=11).first_logs


@pytest.mark.parametrize(("game", "seats"), [("brexit", 3), ("brasilis", 4)])
def test_a_numpy_bot_plays_a_whole_match_in_the_sandbox(
    game: str, seats: int, tmp_path: Path, sandbox_ready: None
) -> None:
    first_logs = play_match(bot(tmp_path, NUMPY_BOT), game, seats)
    for seat in range(seats):  # what each bot's start() found, logged with its first decision
        assert f"numpy {NUMPY} from /packages/numpy, {SINGLE_THREADED}" in first_logs[seat]


def test_the_numpy_example_of_docs_bots_md_plays_a_brexit_match(
    tmp_path: Path, sandbox_ready: None
) -> None:
    blocks = re.findall(r"```python\n(.*?)```", (REPO / "docs" / "bots.md").read_text(), re.S)
    [example] = [b for b in blocks if "import numpy as np" in b]
    play_match(bot(tmp_path, example.encode()), "brexit", 3)


SNOOP = b"""
import importlib, os

def act(observation, legal):
    found = {"packages": sorted(os.listdir("/packages"))}
    for name in ("django", "celery", "orjson", "psycopg", "numpy"):
        try:
            importlib.import_module(name)
            found[name] = "imported"
        except ImportError as exc:
            found[name] = type(exc).__name__
    try:
        with open("/packages/numpy/pwned.py", "w") as f:
            f.write("x = 1")
        found["write"] = "written"
    except OSError as exc:
        found["write"] = type(exc).__name__
    return {"pick": 0, "found": found}
"""


def test_the_sandbox_holds_numpy_read_only_and_none_of_the_worker_s_packages(
    tmp_path: Path, sandbox_ready: None
) -> None:
    with SeatController(bot(tmp_path, SNOOP), game="fake", seat=0, seats=2, limits=FAST) as seat:
        [decision] = play(seat, FakeGame(turns=1))
    assert decision.verdict is Verdict.OK, decision.detail
    assert decision.action["found"] == {
        "packages": ["numpy", "numpy.libs"],
        "django": "ModuleNotFoundError",
        "celery": "ModuleNotFoundError",
        "orjson": "ModuleNotFoundError",
        "psycopg": "ModuleNotFoundError",
        "numpy": "imported",
        "write": "OSError",
    }


NUMPY_HOARDER = b"""
import numpy as np

hoard = []

def act(observation, legal):
    hoard.append(np.empty(64 << 20 >> 3))  # 64 MB of address space a decision, kept
    return {"pick": 0}
"""


def test_numpy_fits_the_memory_limit_and_its_arrays_count_against_it(
    tmp_path: Path, sandbox_ready: None
) -> None:
    """numpy's import with one BLAS thread leaves most of the 512 MB to the bot; what its arrays
    take is held by the same address-space limit (a memory verdict, not the host's memory)."""
    limits = Limits(move_seconds=2.0, bank_seconds=2.0, start_seconds=10.0)
    with SeatController(
        bot(tmp_path, NUMPY_HOARDER), game="fake", seat=0, seats=2, limits=limits
    ) as seat:
        decisions = play(seat, FakeGame(turns=8))
    verdicts = [d.verdict for d in decisions]
    assert verdicts[:4] == [Verdict.OK] * 4, decisions[0].detail  # 256 MB of arrays fit
    assert Verdict.MEMORY in verdicts, verdicts
    memory = next(d for d in decisions if d.verdict is Verdict.MEMORY)
    assert "Unable to allocate 64.0 MiB" in memory.detail


def test_without_bubblewrap_the_bot_gets_the_same_packages(tmp_path: Path) -> None:
    """unsafe-dev (development only): the staged copy links to the packages' folders."""
    with SeatController(
        bot(tmp_path, NUMPY_BOT), game="fake", seat=0, seats=2, limits=FAST, mode="unsafe-dev"
    ) as seat:
        [decision] = play(seat, FakeGame(turns=1))
    assert decision.verdict is Verdict.OK, decision.detail
    assert re.search(rf"numpy {re.escape(NUMPY)} from \S+/packages/numpy, ", decision.stderr)
    assert SINGLE_THREADED in decision.stderr


# --- the start check --------------------------------------------------------------


@pytest.fixture
def broken_numpy(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A 'numpy' whose import fails as one built for another Python would, offered to bots,
    and a start check not yet made; world-readable, as a real environment is to a pool uid."""
    home = Path(tempfile.mkdtemp(prefix="broken-numpy-"))
    (home / "numpy").mkdir()
    (home / "numpy" / "__init__.py").write_text(
        "raise ImportError('_multiarray_umath.cpython-312-x86_64-linux-gnu.so: wrong Python')\n"
    )
    for path in [home, *home.rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o644)
    fake = packages.Package("numpy", NUMPY, (home / "numpy",))
    monkeypatch.setattr(packages, "offered", lambda: (fake,))
    monkeypatch.setattr(readiness, "_status_cache", {})
    try:
        yield home
    finally:
        for path in sorted(home.rglob("*"), reverse=True):
            path.unlink() if path.is_file() else path.rmdir()
        home.rmdir()


def test_a_host_whose_bots_cannot_import_numpy_starts_no_bot(
    broken_numpy: Path, sandbox_ready: None
) -> None:
    ok, reason = readiness.isolation_status()
    assert not ok
    assert reason.startswith(
        f"bots cannot import the packages they are offered (numpy {NUMPY}: ImportError:"
        " _multiarray_umath.cpython-312-x86_64-linux-gnu.so: wrong Python); the bots'"
        f" interpreter {readiness.bot_python()} must be the worker's Python"
    ), reason
