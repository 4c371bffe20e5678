"""factory-boy factories for the platform's models, shared by the whole suite.

Defaults make the smallest valid thing: a public active bot with one READY
``bot.py`` version, and a queued Brexit match; tests override what they need.

A match is made queued by the lifecycle's create, and reaches every other state through the
lifecycle (tournaments/play/lifecycle/) as the runner and the site take it there: ``claim``
(running), ``flush`` (its events, as a worker's flush writes them), ``finish`` (its final
event: the events' trigger writes the result), ``abort``, ``suspend`` (waiting for people).
tests/tournaments/test_lifecycle_writers.py holds that tests use these rather than write a
status or append to a stream themselves.
"""

from __future__ import annotations

import hashlib
import random
import uuid
from collections.abc import Sequence
from datetime import datetime
from typing import Any

import factory
from django.contrib.auth import get_user_model
from factory.django import DjangoModelFactory

from games.engine.driver import Flush, SeatStats
from games.engine.platform_events import finished_event
from games.engine.types import Event, Outcome
from replays import store
from replays.store import NewEvent
from tournaments.play import lifecycle
from tournaments.play.models import Bot, BotLog, BotVersion, Match, Seat
from tournaments.rating.models import Rating
from tournaments.rating.ratings import CONSERVATIVE_K, Skill

# A valid protocol v1 bot for both games: the first enumerated action, else the smallest
# Bra$ilis bid or an empty Brexit placement (the shapes docs/bots.md describes).
DEFAULT_SOURCE = (
    b"def act(observation, legal):\n"
    b"    if legal['actions']:\n"
    b"        return legal['actions'][0]\n"
    b"    if 'bid' in (legal['space'] or {}):\n"
    b"        return {'bid': legal['space']['bid']['min']}\n"
    b"    return {'place': []}\n"
)


class UserFactory(DjangoModelFactory):
    class Meta:
        model = get_user_model()
        django_get_or_create = ("username",)
        skip_postgeneration_save = True

    username = factory.Sequence(lambda n: f"user{n}")
    email = factory.LazyAttribute(lambda u: f"{u.username}@example.com")
    password = factory.PostGenerationMethodCall("set_password", "pass-word-123")

    @factory.post_generation
    def _save_password(obj, create: bool, extracted: object, **kwargs: object) -> None:
        # set_password only hashes; persist it (skip_postgeneration_save is on).
        if create:
            obj.save(update_fields=["password"])


class BotFactory(DjangoModelFactory):
    class Meta:
        model = Bot

    owner = factory.SubFactory(UserFactory)
    game = "brexit"
    name = factory.Sequence(lambda n: f"bot-{n}")
    description = ""
    is_active = True
    is_public = True


class BotVersionFactory(DjangoModelFactory):
    class Meta:
        model = BotVersion

    bot = factory.SubFactory(BotFactory)
    number = factory.LazyAttribute(
        lambda v: (
            (
                BotVersion.objects.filter(bot=v.bot)
                .order_by("-number")
                .values_list("number", flat=True)
                .first()
                or 0
            )
            + 1
        )
    )
    filename = "bot.py"
    upload = DEFAULT_SOURCE
    sha256 = factory.LazyAttribute(lambda v: hashlib.sha256(bytes(v.upload)).hexdigest())
    size = factory.LazyAttribute(lambda v: len(bytes(v.upload)))
    status = BotVersion.Status.READY


class MatchFactory(DjangoModelFactory):
    """A queued match, created by the lifecycle (``do_create``, no worker woken: the test plays
    it, or takes it further with ``claim``, ``finish``, ``abort``, ``suspend``)."""

    class Meta:
        model = Match

    game = "brexit"
    options = factory.LazyFunction(dict)
    seed = factory.LazyFunction(lambda: random.getrandbits(63))
    rated = False

    @classmethod
    def _create(cls, model_class: type[Match], *args: Any, **kwargs: Any) -> Match:
        if "status" in kwargs:
            raise TypeError(
                "a match is created queued; take it further through the lifecycle"
                " (tests.factories: claim, finish, abort, suspend)"
            )
        return lifecycle.do_create(seats=(), send=False, **kwargs)


class SeatFactory(DjangoModelFactory):
    """A seat played by a fresh bot version of the match's game (pass builtin=... and bot_version=None for a built-in)."""

    class Meta:
        model = Seat

    match = factory.SubFactory(MatchFactory)
    number = factory.Sequence(lambda n: n)
    bot_version = factory.SubFactory(
        BotVersionFactory, bot__game=factory.SelfAttribute("...match.game")
    )
    builtin = ""


class RatingFactory(DjangoModelFactory):
    """A ladder's rating row, its figures made from ``skill`` as the ratings feed writes them.

    ``RatingFactory(ladder=ladder, player="builtin:greedy", skill=Skill(mu=30, games=40))``;
    any field can be set directly instead (``rating=1720.0, deviation=190.0``).
    """

    class Meta:
        model = Rating
        exclude = ["skill"]

    skill = factory.LazyFunction(Skill)
    ladder = None
    pool = factory.LazyAttribute(lambda o: f"ladder:{o.ladder.pk}")
    player = factory.Sequence(lambda n: f"builtin:b{n:03d}")
    builtin = factory.LazyAttribute(
        lambda o: o.player.removeprefix("builtin:") if o.player.startswith("builtin:") else ""
    )
    mu = factory.LazyAttribute(lambda o: o.skill.mu)
    sigma = factory.LazyAttribute(lambda o: o.skill.sigma)
    elo = factory.LazyAttribute(lambda o: o.skill.elo)
    rating = factory.LazyAttribute(lambda o: o.skill.rating)
    deviation = factory.LazyAttribute(lambda o: o.skill.deviation)
    conservative = factory.LazyAttribute(lambda o: o.rating - CONSERVATIVE_K * o.deviation)
    games = factory.LazyAttribute(lambda o: o.skill.games)


class BotLogFactory(DjangoModelFactory):
    class Meta:
        model = BotLog

    match = factory.SubFactory(MatchFactory)
    seat = 0
    version = 1
    text = "thinking...\n"


MadeMatch = Any
"""A match from ``MatchFactory(...)`` (or a seat's ``.match``): mypy types a factory's call as
the factory, not the ``Match`` it returns (factory-boy's metaclass is untyped)."""

WORKER = "tests"
"""The lease owner of the matches the helpers below claim, as a worker would."""


def claim(match: MadeMatch, owner: str = WORKER) -> Match:
    """The queued ``match`` claimed by a worker: running, leased to ``owner``."""
    if not lifecycle.do_claim(match.id, owner):
        raise AssertionError(f"match {match.id} is not claimable ({match.status})")
    match.refresh_from_db()
    return match


def flush(match: MadeMatch, events: Sequence[Event], owner: str = WORKER) -> Match:
    """``events`` (engine events) made durable as a worker's flush writes them (the lifecycle's
    ``DatabaseSink``), the match claimed first if it is queued: running, or finished if they
    end with ``match_finished`` (the events' trigger writes the result)."""
    match.refresh_from_db()
    if match.status == Match.Status.QUEUED:
        claim(match, owner)
    seats = list(match.seats.order_by("number"))
    stats = [SeatStats() for _ in range(max((seat.number for seat in seats), default=-1) + 1)]
    sink = lifecycle.DatabaseSink(match, owner, seats)
    version = store.current_version(match.id)
    sink(Flush(events=list(events), expected_version=version, logs=[], stats=stats, outcome=None))
    match.refresh_from_db()
    return match


def outcome_of(ranks: Sequence[int], scores: Sequence[float] | None = None) -> Outcome:
    """A result: each seat's rank (1 = best) and score (by default, fewer points for a worse rank)."""
    return {
        "ranks": list(ranks),
        "scores": list(scores) if scores is not None else [float(-rank) for rank in ranks],
    }


def finish(
    match: MadeMatch, outcome: Outcome | None = None, *, events: Sequence[Event] = ()
) -> Match:
    """``match`` played to its end: ``events`` then ``match_finished`` with ``outcome`` (by
    default, seat 0 first, seat 1 second...) flushed; the trigger writes the result."""
    if outcome is None:
        numbers = match.seats.values_list("number", flat=True)
        outcome = outcome_of(range(1, max(numbers, default=-1) + 2))
    return flush(match, [*events, finished_event(outcome, match.seed)])


def abort(match: MadeMatch, reason: str = "aborted in a test", owner: str = WORKER) -> Match:
    """``match`` (queued, or running leased to ``owner``) aborted: its row and ``match_aborted``."""
    if not lifecycle.do_abort(match, owner, reason):
        raise AssertionError(f"match {match.id} could not be aborted ({match.status})")
    match.refresh_from_db()
    return match


def suspend(
    match: MadeMatch, seats: Sequence[int] = (0,), step: int | None = None, owner: str = WORKER
) -> Match:
    """``match`` waiting for people's ``seats`` at ``step`` (by default its stream's version),
    as its worker leaves it: claimed if queued, then suspended."""
    match.refresh_from_db()
    if match.status == Match.Status.QUEUED:
        claim(match, owner)
    at = match.last_version if step is None else step
    if not lifecycle.do_suspend(match, owner, list(seats), at):
        raise AssertionError(f"match {match.id} could not be suspended ({match.status})")
    match.refresh_from_db()
    return match


def counted_events(n: int, start: int = 0) -> list[NewEvent]:
    """``n`` small events numbered from ``start``: {"n": start}, {"n": start + 1}, ..."""
    return [
        NewEvent(type="counted", payload={"n": start + i}, metadata={"actor": None})
        for i in range(n)
    ]


def taken_to(match: MadeMatch, status: str) -> Match:
    """``match`` (queued) taken to ``status`` as the lifecycle takes it there: claimed
    (running), suspended (waiting), finished by its final event, aborted."""
    steps = {
        Match.Status.QUEUED: lambda m: m,
        Match.Status.RUNNING: claim,
        Match.Status.WAITING: suspend,
        Match.Status.FINISHED: finish,
        Match.Status.ABORTED: abort,
    }
    return steps[Match.Status(status)](match)


def counted_moves(n: int, start: int = 0) -> list[Event]:
    """``counted_events`` as the engine records them, for a match's flush (``flush``, ``finish``)."""
    return [
        {
            "type": "counted",
            "payload": {"n": start + i},
            "actor": None,
            "visible_to": None,
            "redacted": None,
        }
        for i in range(n)
    ]


def uuid7_at(moment: datetime) -> uuid.UUID:
    """A UUIDv7 made at ``moment``: a stream (match) id of that month's events partition."""
    raw = bytearray(int(moment.timestamp() * 1000).to_bytes(6, "big") + uuid.uuid4().bytes[6:])
    raw[6] = (raw[6] & 0x0F) | 0x70
    raw[8] = (raw[8] & 0x3F) | 0x80
    return uuid.UUID(bytes=bytes(raw))
