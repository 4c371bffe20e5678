"""factory-boy factories for the platform's models, shared by the whole suite.

Defaults make the smallest valid thing: a public active bot with one READY
``bot.py`` version, and a queued Brexit match; tests override what they need.
"""

from __future__ import annotations

import hashlib
import random
import uuid
from datetime import datetime

import factory
from django.contrib.auth import get_user_model
from factory.django import DjangoModelFactory

from replays.store import NewEvent
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
    class Meta:
        model = Match

    game = "brexit"
    options = factory.LazyFunction(dict)
    seed = factory.LazyFunction(lambda: random.getrandbits(63))
    status = Match.Status.QUEUED
    rated = False


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


def counted_events(n: int, start: int = 0) -> list[NewEvent]:
    """``n`` small events numbered from ``start``: {"n": start}, {"n": start + 1}, ..."""
    return [
        NewEvent(type="counted", payload={"n": start + i}, metadata={"actor": None})
        for i in range(n)
    ]


def uuid7_at(moment: datetime) -> uuid.UUID:
    """A UUIDv7 made at ``moment``: a stream (match) id of that month's events partition."""
    raw = bytearray(int(moment.timestamp() * 1000).to_bytes(6, "big") + uuid.uuid4().bytes[6:])
    raw[6] = (raw[6] & 0x0F) | 0x70
    raw[8] = (raw[8] & 0x3F) | 0x80
    return uuid.UUID(bytes=bytes(raw))
