"""Every process the suite and the platform start reads compiled bytecode, rather than compiling
each module it imports from source again (the Makefile's PYTHONDONTWRITEBYTECODE comment)."""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path

import celery
import django
import pytest
import rest_framework


@pytest.mark.parametrize("package", [django, celery, rest_framework], ids=lambda p: p.__name__)
def test_the_installed_packages_are_compiled(package: object) -> None:
    source = str(getattr(package, "__file__", ""))
    assert Path(importlib.util.cache_from_source(source)).exists(), (
        f"{source} has no bytecode: make install compiles the packages (--compile-bytecode)"
    )


def test_make_lets_the_suite_keep_what_it_compiles() -> None:
    if "MAKELEVEL" not in os.environ:
        pytest.skip("run outside make: the environment is the caller's")
    assert not sys.flags.dont_write_bytecode, (
        "PYTHONDONTWRITEBYTECODE reached the suite under make (the Makefile unexports it)"
    )
