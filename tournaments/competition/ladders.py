"""Ladder rounds: who is in a ladder, and queuing one round of rated matches (docs/ladders.md).

A round is one transaction holding the ladder's row lock, so two beats that
fire together cannot both seat the same bots. A round also belongs to a time
slot (the ladder rounds' interval, LadderRound): two beats started by mistake
each send every round's task, and only the first of a slot plays it, so the
ladder plays at the pace staff set even when the first round's matches are
already over when the second task arrives. A slot whose task was lost (beat
could not send it: the broker was down) is played late, by the next round
task, before the current slot. Membership is read afresh each
round: a deactivated or rejected version is gone from the next round, and its
queued matches are cancelled in the same sweep.
"""

from __future__ import annotations

import random
import secrets
from collections import Counter
from datetime import UTC, datetime, timedelta

from django.db import transaction
from django.db.models import Count, Max
from django.utils import timezone
from uuid_utils.compat import uuid7

from tournaments.competition import matchmaking, selectors
from tournaments.competition.models import Ladder, LadderRound
from tournaments.play import services
from tournaments.play.models import Match, Seat
from tournaments.rating import keys, ratings
from tournaments.rating import selectors as rating_selectors
from tournaments.rating.models import Rating

RECENT = timedelta(hours=24)
MISSED_SLOTS_PLAYED = 3
"""How many of a ladder's newest missed slots a round task plays late, oldest first: a long
broker outage does not turn into a burst of rounds (members still playing sit later ones out)."""


def slot_of(moment: datetime, seconds: int) -> datetime:
    """The start of the slot holding ``moment``: slots are ``seconds`` long from the epoch.

    One beat fires at least an interval apart, so each of its rounds falls in a slot of its
    own; a second beat's task falls in a slot the first has taken, or takes one it left.
    """
    stamp = int(moment.timestamp()) // seconds * seconds
    return datetime.fromtimestamp(stamp, tz=UTC)


def _players(seats: list[tuple[int | None, str]]) -> list[str]:
    return [keys.player_of(bot_version_id=v, builtin=b) for v, b in seats]


def entrants(ladder: Ladder, players: list[str]) -> tuple[list[matchmaking.Entrant], set[str]]:
    """Matchmaking's view of the members, and those still waiting for a game of theirs."""
    since = timezone.now() - RECENT
    recent_seats = (
        Seat.objects.filter(match__ladder=ladder, match__created_at__gte=since)
        .exclude(match__status=Match.Status.ABORTED)
        .values_list("bot_version_id", "builtin")
        .annotate(n=Count("id"))
    )
    recent = Counter({keys.player_of(bot_version_id=v, builtin=b): n for v, b, n in recent_seats})
    pending = set(
        _players(
            list(
                Seat.objects.filter(
                    match__ladder=ladder,
                    match__status__in=[Match.Status.QUEUED, Match.Status.RUNNING],
                ).values_list("bot_version_id", "builtin")
            )
        )
    )
    stored = {
        (r.pool, r.player): ratings.Skill(mu=r.mu, sigma=r.sigma, elo=r.elo, games=r.games)
        for r in Rating.objects.filter(pool=selectors.pool(ladder))
    }
    book = ratings.Book(stored)
    preds = rating_selectors.predecessors(players)
    out = []
    for player in players:
        skill = book.skill(selectors.pool(ladder), player, preds.get(player, ()))
        out.append(matchmaking.Entrant(player, skill.rating, skill.deviation, recent[player]))
    return out, pending


def withdraw_departed(ladder: Ladder, players: list[str]) -> int:
    """Cancel queued matches of versions that left the ladder (deactivated, rejected, replaced)."""
    keep = {keys.version_id(p) for p in players} - {None}
    gone = (
        Seat.objects.filter(match__ladder=ladder, match__status=Match.Status.QUEUED)
        .exclude(bot_version_id=None)
        .exclude(bot_version_id__in=keep)
        .values_list("match_id", flat=True)
    )
    return services.cancel_queued_matches(
        matches=Match.objects.filter(id__in=list(gone)), reason="a bot left the ladder"
    )


def settings_of(ladder: Ladder) -> matchmaking.Settings:
    return matchmaking.Settings(
        seats=ladder.seats,
        games_per_day=ladder.games_per_day,
        window=ladder.window,
        tables=ladder.tables_per_round,
        duplicate=ladder.duplicate_deals,
    )


def play_round(
    ladder: Ladder, rng: random.Random | None = None, slot: datetime | None = None
) -> list[Match]:
    """Queue one round of the ladder: tables of free members, each a duplicate set.

    With a ``slot``, nothing is played if the ladder already played that slot's round.
    """
    rng = rng or random.Random(secrets.randbits(64))  # noqa: S311 (table draws need fairness, not secrecy; seeded from secrets)
    with transaction.atomic():
        ladder = Ladder.objects.select_for_update().get(pk=ladder.pk)
        if not ladder.is_active:
            return []
        record = None
        if slot is not None:
            # Under the ladder's lock, so the check and the insert cannot interleave; the
            # unique (ladder, slot) constraint stands behind it.
            record, new = LadderRound.objects.get_or_create(ladder=ladder, slot=slot)
            if not new:
                return []
        players = selectors.members(ladder)
        withdraw_departed(ladder, players)
        everyone, pending = entrants(ladder, players)
        free = [e for e in everyone if e.player not in pending]
        settings = settings_of(ladder)
        created = []
        for table in matchmaking.round_tables(free, settings, rng):
            # Secret until the deal is over, and a finished deal publishes its seed: from the OS,
            # never from the table draw's generator, whose outputs a run of published seeds gives away.
            seed = secrets.randbits(63)
            seatings = matchmaking.rotations(table, settings.duplicate)
            # The rotations deal the same cards: one deal key, so none opens before all are over.
            deal = uuid7() if len(seatings) > 1 else None
            for seating in seatings:
                created.append(
                    services.create_rated_match(
                        game=ladder.game,
                        players=seating,
                        seed=seed,
                        options=ladder.options,
                        ladder_id=ladder.pk,
                        deal=deal,
                    )
                )
        if record is not None:
            record.matches = len(created)
            record.save(update_fields=["matches"])
    return created


def missed_slots(ladder: Ladder, current: datetime, seconds: int) -> list[datetime]:
    """The slots between the ladder's newest round and ``current`` that it did not play (their
    task never arrived: beat sent it while the broker was down), at most MISSED_SLOTS_PLAYED
    of the newest. None before a ladder's first round."""
    newest = ladder.rounds.filter(slot__lt=current).aggregate(Max("slot"))["slot__max"]
    if newest is None:
        return []
    step = timedelta(seconds=seconds)
    # From the newest round's slot as the current length cuts it (staff may change the length).
    slot = max(slot_of(newest, seconds) + step, current - MISSED_SLOTS_PLAYED * step)
    missed = []
    while slot < current:
        missed.append(slot)
        slot += step
    return missed


def play_rounds(now: datetime | None = None) -> int:
    """The round of the current time slot of every active ladder that has not played it yet,
    after those of the slots it missed; returns how many matches were queued."""
    seconds = selectors.round_seconds()
    slot = slot_of(now or timezone.now(), seconds)
    queued = 0
    for ladder in Ladder.objects.filter(is_active=True):
        for due in [*missed_slots(ladder, slot, seconds), slot]:
            queued += len(play_round(ladder, slot=due))
    return queued
