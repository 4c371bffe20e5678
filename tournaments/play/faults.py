"""A bot's faults: each non-ok verdict on a decision of a bot's version, kept as a row.

The verdicts live in the event store, one stream per match; a bot's errors page would have
to read every stream its versions played in. So the flush that appends a verdict's event
also writes its ``Fault`` row (lifecycle/stream.py, the same transaction), and the errors
list reads the bot's own index. The bot's webhook is called for the faults its owner is told
of (``webhooks.NOTIFIED``), once the flush is committed.
"""

from __future__ import annotations

from collections.abc import Sequence

from games.engine.platform_events import BOT_VERDICT
from games.engine.types import Event as EngineEvent
from tournaments.play import webhooks
from tournaments.play.models import BotVersion, Fault, Match, Seat

DETAIL_CHARS = Fault._meta.get_field("detail").max_length or 300


def first_line(detail: str) -> str:
    """The line that says what went wrong: a traceback's last line (the exception), else the
    first non-blank one; capped to the column."""
    lines = [ln.strip() for ln in detail.splitlines() if ln.strip()]
    if not lines:
        return ""
    line = lines[-1] if lines[0].startswith("Traceback (most recent call last)") else lines[0]
    return line if len(line) <= DETAIL_CHARS else line[: DETAIL_CHARS - 1] + "…"


def record(
    match: Match, seats: Sequence[Seat], events: Sequence[EngineEvent], after_version: int
) -> list[Fault]:
    """Write the faults of the bot versions' seats among ``events``, appended after
    ``after_version`` (inside the flush's transaction), and have the webhooks called once it
    commits."""
    versions = {seat.number: seat.bot_version_id for seat in seats if seat.bot_version_id}
    found = [
        (after_version + 1 + n, ev["payload"])
        for n, ev in enumerate(events)
        if ev["type"] == BOT_VERDICT
        and ev["payload"]["verdict"] != "ok"
        and ev["payload"]["seat"] in versions
    ]
    if not found:
        return []
    bots = dict(
        BotVersion.objects.filter(pk__in=set(versions.values())).values_list("pk", "bot_id")
    )
    faults = [
        Fault(
            bot_id=bots[versions[p["seat"]]],
            bot_version_id=versions[p["seat"]],
            match=match,
            seat=p["seat"],
            step=step,
            asked_step=p["step"],
            verdict=p["verdict"],
            detail=first_line(str(p.get("detail", ""))),
        )
        for step, p in found
    ]
    # A decision judged again (a flush replayed after a lost lease rolled back) is one fault.
    Fault.objects.bulk_create(faults, ignore_conflicts=True)
    webhooks.notify_faults(
        [(fault, str(p.get("detail", ""))) for fault, (_, p) in zip(faults, found, strict=True)]
    )
    return faults
