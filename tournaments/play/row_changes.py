"""Whether a write changed some of a row's columns, for the caches that retire every entry on a
change (tournaments/site/page_cache.py, tournaments/site/api/token_cache.py).

A save does not say what it changed: a bot's API change names the fields sent, a no-op among them;
a form saves every column. So the row is read back just before the save, by primary key on the
database written, and only the watched columns that the save writes are compared. The read costs
one small query a save that writes a watched column, never a read of a page, and compares against
the row as it is, not as this process once loaded it (a concurrent change counts too).

A queryset's ``update()`` or ``bulk_update()`` sends no save signal: a model whose rows such a
write may change (a staff's bulk action, a service) takes ``WatchedQuerySet`` as its manager, whose
writes call the same ``on_change`` as a save does (``written``) when they name a watched column
and wrote a row. They are not read back first: a bulk write that names a watched column counts as
a change of it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, TypeVar

from django.db.models import Model, QuerySet
from django.db.models.signals import post_save, pre_save

_WATCHERS: dict[type[Model], dict[str, tuple[frozenset[str], Callable[[], None]]]] = {}
"""Per model, each watcher's fields and ``on_change``, by name (``watch``)."""


def _attnames(model: type[Model], names: Iterable[str]) -> set[str]:
    """The concrete fields' attnames that ``names`` name, by name or attname (``owner`` or
    ``owner_id``)."""
    named = set(names)
    return {f.attname for f in model._meta.concrete_fields if {f.name, f.attname} & named}


def written(model: type[Model], names: Iterable[str]) -> None:
    """Rows of ``model`` were written without a save, naming the columns ``names``: call each
    watcher's ``on_change`` (once) whose fields are among them, as a save that changed one does."""
    named = _attnames(model, names)
    for fields, on_change in _WATCHERS.get(model, {}).values():
        if fields & named:
            on_change()


_M = TypeVar("_M", bound=Model)


class WatchedQuerySet(QuerySet[_M]):
    """A queryset whose ``update()`` and ``bulk_update()`` tell the watchers (``written``)."""

    def update(self, **kwargs: Any) -> int:
        rows = super().update(**kwargs)
        if rows:
            written(self.model, kwargs)
        return rows

    def bulk_update(
        self, objs: Iterable[_M], fields: Iterable[str], batch_size: int | None = None
    ) -> int:
        fields = list(fields)
        rows = super().bulk_update(objs, fields, batch_size)
        if rows:
            written(self.model, fields)
        return rows


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
        watched &= _attnames(model, update_fields)
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
    """Call ``on_change`` after each save of a ``model`` row that changed one of ``fields``, and
    after each ``WatchedQuerySet`` write of ``model`` rows that named one (``written``)."""
    mark = f"_row_changed_{name.replace(' ', '_')}"
    _WATCHERS.setdefault(model, {})[name] = (fields, on_change)

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
