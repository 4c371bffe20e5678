"""A template loader that finds each game's templates in its own package, through the registry.

A game keeps its templates in ``templates/`` beside its code (games/<name>/templates/);
the site names them ``<game>/<file>`` (``brexit/board.html``), so no two games' templates
can collide and adding a game changes no setting. Listed in settings' TEMPLATES loaders.
"""

from __future__ import annotations

from collections.abc import Iterator

from django.core.exceptions import SuspiciousFileOperation
from django.template import Origin
from django.template.loaders.filesystem import Loader as FilesystemLoader
from django.utils._os import safe_join

from games.engine.registry import GAMES


class Loader(FilesystemLoader):
    def get_template_sources(self, template_name: str) -> Iterator[Origin]:
        game, _, rest = template_name.partition("/")
        info = GAMES.get(game)
        if info is None or not rest:
            return
        try:
            name = safe_join(info.templates, rest)
        except SuspiciousFileOperation:
            return  # a name climbing out of the game's folder finds nothing here
        yield Origin(name=name, template_name=template_name, loader=self)
