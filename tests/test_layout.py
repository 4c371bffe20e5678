"""The project layout keeps the standard library's ``platform`` module reachable."""

from __future__ import annotations

import platform
import subprocess
import sys
import sysconfig
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_the_standard_library_platform_module_is_the_one_imported() -> None:
    assert Path(platform.__file__).parent == Path(sysconfig.get_paths()["stdlib"])
    assert callable(platform.python_version)


def test_platform_folder_is_not_a_package() -> None:
    assert not (ROOT / "platform" / "__init__.py").exists()
    assert (ROOT / "platform" / "config" / "__init__.py").exists()


def test_manage_py_keeps_the_stdlib_platform() -> None:
    code = (
        "import runpy, sys; sys.argv = ['manage.py', 'check']; "
        "runpy.run_path('manage.py', run_name='not_main'); "
        "import platform, uuid; print(platform.__file__)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert "platform/platform.py" not in out.stdout
    assert out.stdout.strip().endswith("platform.py")
    assert str(ROOT) not in out.stdout
