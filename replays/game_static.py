"""A static files finder that finds each game's styles in its own package, through the registry.

A game keeps its static files in ``static/`` beside its code (games/<name>/static/styles.css);
the site names them ``<game>/<file>`` (``brexit/styles.css``), as game_templates.py does its
templates, so no two games' files can collide and adding a game changes no setting. Listed in
settings' STATICFILES_FINDERS: collectstatic copies every registered game's files, and the
development server and the tests serve them from the package.
"""

from __future__ import annotations

from typing import Any

from django.contrib.staticfiles.finders import BaseFinder, FileSystemFinder
from django.core.checks import CheckMessage
from django.core.files.storage import FileSystemStorage

from games.engine.registry import GAMES


class Finder(FileSystemFinder):
    def __init__(self, app_names: Any = None, *args: Any, **kwargs: Any) -> None:
        # FileSystemFinder's own __init__ reads STATICFILES_DIRS: the registry replaces it.
        self.locations: list[tuple[str, str]] = []
        self.storages: dict[str, FileSystemStorage] = {}
        for info in GAMES.values():
            if not info.static.is_dir():
                continue
            root = str(info.static)
            self.locations.append((info.name, root))
            storage = FileSystemStorage(location=root)
            # collectstatic copies a storage's files under its prefix, as FileSystemFinder sets it
            storage.prefix = info.name  # type: ignore[attr-defined]
            self.storages[root] = storage
        BaseFinder.__init__(self, *args, **kwargs)

    def check(self, **kwargs: Any) -> list[CheckMessage]:
        return []  # FileSystemFinder's checks are of STATICFILES_DIRS, which this never reads
