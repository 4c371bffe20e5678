"""Whether a save changed some of a row's columns, for the caches that retire every entry on a
change (tournaments/site/page_cache.py, tournaments/site/api/token_cache.py).

A save does not say what it changed: a bot's API change names the fields sent, a no-op among them;
a form saves every column. So the row is read back just before the save, by primary key on the
database written, and only the watched columns that the save writes are compared. The read costs
one small query a save that writes a watched column, never a read of a page, and compares against
the row as it is, not as this process once loaded it (a concurrent change counts too).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.db.models import Model
from django.db.models.signals import post_save, pre_save


def changed(
    model: type[Model],
    instance: Model,
    fields: frozenset[str],
    update_fields: Any = None,
    using: str | None = None,
) -> bool:
    """Whether saving ``instance`` changes one of ``fields`` (attnames) of an existing row."""
    if instance.pk is None:
        return False  # a new row changes nothing that was shown
    watched = set(fields)
    if update_fields is not None:
        # A save names its fields by name or attname (``owner`` or ``owner_id``): the concrete
        # field either names.
        named = set(update_fields)
        watched &= {f.attname for f in model._meta.concrete_fields if {f.name, f.attname} & named}
    if not watched:
        return False
    manager = model._base_manager.using(using) if using else model._base_manager
    before = manager.filter(pk=instance.pk).values(*watched).first()
    if before is None:
        return False  # an insert with its own primary key
    return any(before[name] != getattr(instance, name) for name in watched)


def watch(
    model: type[Model], fields: frozenset[str], on_change: Callable[[], None], name: str
) -> None:
    """Call ``on_change`` after each save of a ``model`` row that changed one of ``fields``."""
    mark = f"_row_changed_{name.replace(' ', '_')}"

    def before(
        sender: type[Model], instance: Model, using: str | None = None, **kwargs: Any
    ) -> None:
        instance.__dict__[mark] = changed(
            sender, instance, fields, kwargs.get("update_fields"), using
        )

    def after(sender: type[Model], instance: Model, **_: Any) -> None:
        if instance.__dict__.pop(mark, False):
            on_change()

    uid = f"{name}: {model.__name__}"
    pre_save.connect(before, sender=model, weak=False, dispatch_uid=f"{uid} before")
    post_save.connect(after, sender=model, weak=False, dispatch_uid=f"{uid} after")
