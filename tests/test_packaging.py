"""`pip install -e .` works in a fresh virtual environment (with the `backroom` command), and a built
wheel holds the five packages.

The fresh environment gets the project alone (``--no-deps``); its third-party packages are borrowed
from the running interpreter's site-packages through a .pth file, so the test needs no index for them.
"""

from __future__ import annotations

import os
import shutil
import site
import subprocess
import sys
import venv
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
UV = Path(sys.executable).parent / "uv"

pytestmark = pytest.mark.slow


def _uv() -> str:
    found = str(UV) if UV.exists() else shutil.which("uv")
    assert found, "uv is missing: `make install` installs it in the virtual environment"
    return found


def _env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}


@pytest.fixture(scope="module")
def fresh_python(tmp_path_factory: pytest.TempPathFactory) -> Path:
    home = tmp_path_factory.mktemp("venv")
    venv.create(home, with_pip=False)
    python = home / "bin" / "python"
    purelib = Path(
        subprocess.check_output(
            [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], text=True
        ).strip()
    )
    (purelib / "zz_borrowed_dependencies.pth").write_text("\n".join(site.getsitepackages()) + "\n")
    subprocess.run(
        [_uv(), "pip", "install", "--quiet", "--python", python, "--no-deps", "--editable", ROOT],
        check=True,
        env=_env(),
        timeout=300,
    )
    return python


def _run(python: Path, *args: str, cwd: Path) -> str:
    out = subprocess.run(
        [python, "-P", *args],
        cwd=cwd,
        env={**_env(), "DJANGO_SETTINGS_MODULE": "config.settings.test"},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stdout + out.stderr
    return out.stdout


def test_manage_py_runs_from_the_editable_install(fresh_python: Path, tmp_path: Path) -> None:
    # -P keeps manage.py's own folder off the path: `config` and the apps come from the install.
    assert "no issues" in _run(fresh_python, str(ROOT / "manage.py"), "check", cwd=tmp_path)


def test_celery_finds_the_app_from_the_editable_install(fresh_python: Path, tmp_path: Path) -> None:
    code = "import config; print(config.celery_app.main, config.__file__)"
    name, where = _run(fresh_python, "-c", code, cwd=tmp_path).split()
    assert (name, where) == ("backroom", str(ROOT / "platform" / "config" / "__init__.py"))
    assert "Start worker instance" in _run(
        fresh_python, "-m", "celery", "-A", "config", "worker", "--help", cwd=tmp_path
    )


def test_pytest_runs_from_the_editable_install(fresh_python: Path, tmp_path: Path) -> None:
    out = _run(
        fresh_python,
        "-m",
        "pytest",
        "-q",
        "-p",
        "no:cacheprovider",
        str(ROOT / "tests" / "test_layout.py"),
        cwd=ROOT,
    )
    assert " passed" in out and "failed" not in out


def test_the_install_puts_the_backroom_command_on_the_path(
    fresh_python: Path, tmp_path: Path
) -> None:
    command = fresh_python.parent / "backroom"
    out = subprocess.run(
        [command, "--version"], cwd=tmp_path, env=_env(), capture_output=True, text=True
    )
    assert (out.returncode, out.stdout.strip()) == (0, "backroom 0.1.0"), out.stderr


def test_the_wheel_holds_the_packages_and_their_data(tmp_path: Path) -> None:
    subprocess.run(
        [_uv(), "build", "--quiet", "--wheel", "--out-dir", tmp_path, ROOT],
        check=True,
        env=_env(),
        timeout=300,
    )
    (wheel,) = tmp_path.glob("backroom-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    top = {name.split("/")[0] for name in names}
    assert {t for t in top if not t.endswith(".dist-info")} == {
        "backroom_cli",
        "config",
        "games",
        "replays",
        "tournaments",
    }
    tracked = subprocess.run(
        ["git", "ls-files", "games", "replays", "tournaments", "backroom_cli", "platform/config"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    expected = {path.removeprefix("platform/") for path in tracked}
    assert expected <= names, sorted(expected - names)
    assert "games/brexit/cards.json" in names
    # Each game's board template ships in its own package (the site finds it through the registry).
    assert {"games/brexit/templates/board.html", "games/brasilis/templates/board.html"} <= names
    assert "tournaments/migrations/0001_initial.py" in names
    (points,) = [n for n in names if n.endswith(".dist-info/entry_points.txt")]
    assert "backroom = backroom_cli.main:main" in zipfile.ZipFile(wheel).read(points).decode()
