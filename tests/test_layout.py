"""The project layout keeps the standard library's ``platform`` module reachable, and the
project imports from its installed distribution (platform/README.md)."""

from __future__ import annotations

import json
import os
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


def test_config_and_the_apps_import_from_the_installed_distribution(tmp_path: Path) -> None:
    """No path is set by hand: from an unrelated folder, without PYTHONPATH and without the
    script's folder on the path (-P), the editable install alone makes them importable."""
    code = (
        "import importlib.metadata, json, config, games, replays, tournaments, backroom_cli\n"
        "import games.brexit.cards, games.brasilis.cards\n"
        "dist = importlib.metadata.distribution('backroom')\n"
        "url = json.loads(dist.read_text('direct_url.json'))\n"
        "print(json.dumps({'url': url['url'], 'editable': url['dir_info'].get('editable'),\n"
        "    'files': [m.__file__ for m in (config, games, replays, tournaments, backroom_cli)]}))"
    )
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    out = subprocess.run(
        [sys.executable, "-P", "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True
    )
    assert out.returncode == 0, f"not installed? run `make install`:\n{out.stderr}"
    found = json.loads(out.stdout)
    assert found["editable"] is True
    assert Path(found["url"].removeprefix("file://")).resolve() == ROOT
    assert found["files"] == [
        str(ROOT / "platform" / "config" / "__init__.py"),
        *(
            str(ROOT / app / "__init__.py")
            for app in ("games", "replays", "tournaments", "backroom_cli")
        ),
    ]
