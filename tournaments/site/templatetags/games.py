"""The games the platform plays, named in the site's frame (its footer) from the registry: a game
added to the registry is named there with no template changed."""

from __future__ import annotations

from django import template

from games.engine import registry

register = template.Library()


@register.simple_tag
def game_titles() -> str:
    """Every registered game's title: ``Brexit: The Real Deal and Bra$ilis``."""
    return registry.titles()
