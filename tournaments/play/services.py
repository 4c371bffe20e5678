"""Writes: every change the API makes to bots, versions, accounts and challenges goes through here.

Functions are keyword-only and raise :class:`Invalid` with one message list per
input field, so any caller (API, admin, shell) reports bad input the same way.
Background work (validation, playing) is enqueued with ``transaction.on_commit``
so a worker never looks for a row that is not committed yet, or was rolled back.
"""

from __future__ import annotations

import hashlib
import logging
import secrets
import uuid
from collections.abc import Mapping, Sequence
from functools import partial
from pathlib import Path
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import IntegrityError, transaction
from django.db.models import Max
from django.utils import timezone
from rest_framework.authtoken.models import Token

from games.engine.builtin import builtin_names
from games.engine.errors import BadOptions
from games.engine.match import replay
from games.engine.platform_events import BOT_VERDICT, PLATFORM_EVENTS
from games.engine.registry import GAMES
from games.sandbox.upload import UploadError, check_filename, refuse_compiled, unpack, unprintable
from replays import store
from replays.store import NewEvent, StoredEvent
from tournaments.play import allowance, dispatch, lifecycle, selectors, tokens, webhooks

# What a write past the account's allowance raises (answered 429), named with the writes.
from tournaments.play.allowance import OverLimit as OverLimit

# What a person's action may be refused with (answered 400 and 409), named with the writes.
from tournaments.play.lifecycle import Conflict as Conflict
from tournaments.play.lifecycle import Refused as Refused
from tournaments.play.models import AccountOrigin, ApiToken, Bot, BotVersion, Match, Seat
from tournaments.play.origins import origin_of
from tournaments.play.visibility import deal_over, is_over, seats_of, shows_bot

MAX_SEED = 2**63 - 1
DEFAULT_MOVE_SECONDS = 600
"""A person's time for one decision unless the challenge sets ``human_move_seconds``."""
MIN_MOVE_SECONDS, MAX_MOVE_SECONDS = 5, 7 * 24 * 3600

log = logging.getLogger(__name__)


class Invalid(Exception):
    """Input the platform refuses: ``errors`` maps a field name to its messages."""

    def __init__(self, errors: Mapping[str, str | list[str]]) -> None:
        self.errors = {k: [v] if isinstance(v, str) else list(v) for k, v in errors.items()}
        super().__init__("; ".join(f"{k}: {' '.join(v)}" for k, v in self.errors.items()))


def create_account(
    *, username: str, password: str, email: str = "", address: str | None = None
) -> tuple[Any, str]:
    """A new user and their API token key; ``address``, the client's, is kept: the accounts of
    one address share their caps, budget and turn at the workers (tournaments/play/allowance.py)."""
    user_model = get_user_model()
    if user_model.objects.filter(username__iexact=username).exists():
        raise Invalid({"username": "this username is taken"})
    candidate = user_model(username=username, email=email)
    try:
        validate_password(password, user=candidate)
    except DjangoValidationError as exc:
        raise Invalid({"password": list(exc.messages)}) from None
    try:
        with transaction.atomic():
            user = user_model.objects.create_user(username=username, email=email, password=password)
            token = Token.objects.create(user=user)
            if address:
                AccountOrigin.objects.create(user=user, address=origin_of(address))
    except IntegrityError:  # a concurrent sign-up took the name between the check and the insert
        raise Invalid({"username": "this username is taken"}) from None
    return user, token.key


def token_for(*, user: Any) -> str:
    token, _ = Token.objects.get_or_create(user=user)
    return str(token.key)


def create_bot(
    *, owner: Any, game: str, name: str, description: str = "", is_public: bool = True
) -> Bot:
    if game not in GAMES:
        raise Invalid({"game": f"unknown game {game!r}; known games: {', '.join(sorted(GAMES))}"})
    if Bot.objects.filter(owner=owner, name=name).exists():
        raise Invalid({"name": f"you already have a bot called {name!r}"})
    try:
        with transaction.atomic():
            return Bot.objects.create(
                owner=owner, game=game, name=name, description=description, is_public=is_public
            )
    except IntegrityError:
        raise Invalid({"name": f"you already have a bot called {name!r}"}) from None


_UPDATABLE = frozenset({"name", "description", "is_public", "is_active", "webhook_url"})


def update_bot(*, bot: Bot, **changes: Any) -> Bot:
    """Change a bot's listing; its game is fixed because its versions were written for it."""
    if "game" in changes and changes["game"] != bot.game:
        raise Invalid({"game": "a bot's game cannot be changed; create a new bot"})
    changes.pop("game", None)
    unknown = set(changes) - _UPDATABLE
    if unknown:
        raise Invalid({k: "this field cannot be changed" for k in sorted(unknown)})
    name = changes.get("name")
    if (
        name is not None
        and name != bot.name
        and Bot.objects.filter(owner_id=bot.owner_id, name=name).exists()
    ):
        raise Invalid({"name": f"you already have a bot called {name!r}"})
    if changes.get("webhook_url"):
        try:
            webhooks.check_url(changes["webhook_url"])
        except webhooks.BadWebhook as exc:
            raise Invalid({"webhook_url": str(exc)}) from None
        if not bot.webhook_secret:  # made once, when the owner first sets a URL
            changes["webhook_secret"] = webhooks.new_secret()
    for key, value in changes.items():
        setattr(bot, key, value)
    try:
        with transaction.atomic():
            bot.save(update_fields=[*changes] or None)
    except IntegrityError:
        raise Invalid({"name": f"you already have a bot called {name!r}"}) from None
    return bot


def deactivate_bot(*, bot: Bot) -> Bot:
    """Stop matching the bot; its versions and past matches stay (they are referenced).

    Its queued rated matches (ladders, seasons) are cancelled, not played.
    """
    if bot.is_active:
        bot.is_active = False
        bot.save(update_fields=["is_active"])
    cancel_queued_matches(
        matches=Match.objects.filter(rated=True, seats__bot_version__bot=bot),
        reason=f"bot {bot.name} was deactivated",
    )
    return bot


def activate_version(*, bot: Bot, number: int) -> Bot:
    """Have ladders play version ``number`` of ``bot`` (ready ones only). Activating the newest
    ready version clears the choice: ladders then follow each new ready version again."""
    version = BotVersion.objects.filter(bot=bot, number=number).first()
    if version is None:
        raise Invalid({"version": f"{bot.name} has no version {number}"})
    if version.status != BotVersion.Status.READY:
        raise Invalid(
            {"version": f"v{number} is {version.status}: only a ready version can be activated"}
        )
    newest = (
        BotVersion.objects.filter(bot=bot, status=BotVersion.Status.READY)
        .order_by("-number")
        .values_list("pk", flat=True)
        .first()
    )
    bot.active_version = None if version.pk == newest else version
    bot.save(update_fields=["active_version"])
    return bot


def upload_version(*, bot: Bot, filename: str, data: bytes) -> tuple[BotVersion, bool]:
    """Store an upload as the bot's next version, pending, and queue its validation.

    Returns the version and whether it is new. The same file (bytes and name) as the bot's
    newest version is that version again, unless it was rejected (then it is validated
    afresh): a retried upload makes no second version. Older bytes uploaded after newer ones
    do make a new version, since ladders play the newest.
    """
    if not bot.is_active:
        raise Invalid({"bot": "this bot is deactivated; reactivate it before uploading"})
    try:
        check_filename(filename)
    except UploadError as exc:
        raise Invalid({"filename": str(exc)}) from None
    try:
        refuse_compiled(unpack(filename, data))
    except UploadError as exc:
        raise Invalid({"file": str(exc)}) from None
    digest = hashlib.sha256(data).hexdigest()
    with transaction.atomic():
        # Locked first, so that two identical uploads at once make one version.
        Bot.objects.select_for_update().filter(pk=bot.pk).first()
        newest = BotVersion.objects.filter(bot=bot).order_by("-number").first()
        if (
            newest is not None
            and (newest.sha256, newest.filename) == (digest, filename)
            and newest.status != BotVersion.Status.REJECTED
        ):
            return newest, False
        allowance.check_uploads(bot.owner)
        version = _add_version(bot=bot, filename=filename, data=data)
        # Queued with it, the smoke match is waiting work the workers see (and take before
        # challenges and ladders) whichever of their messages arrives first.
        smoke_match_for(version)
        version_id = version.pk
        transaction.on_commit(lambda: dispatch.validate_bot_version(version_id))
    return version, True


def smoke_match_for(version: BotVersion) -> Match:
    """The version's unfinished smoke match (an interrupted validation resumes it), or a new one.

    The uploaded version takes seat 0, built-in random bots the others. Each smoke match
    draws its own seed (one fixed seed let a bot pass by surviving a single deal); the match
    row keeps it, and its match_finished event reveals it, so the run replays exactly. It is
    played by tournaments.play.validation, which decides the version from it.
    """
    unfinished = (Match.Status.QUEUED, Match.Status.RUNNING)
    with transaction.atomic():
        # Two deliveries of one validation at once make one smoke match, not two.
        BotVersion.objects.select_for_update().filter(pk=version.pk).first()
        match = (
            Match.objects.filter(validation_of=version, status__in=unfinished)
            .order_by("-created_at")
            .first()
        )
        if match is not None:
            return match
        info = GAMES[version.bot.game]
        seats = max(info.min_seats, min(3, info.max_seats))
        # Not sent: the upload's validation task plays it (it is queued work meanwhile).
        return lifecycle.do_create(
            seats=[Seat(number=0, bot_version=version)]
            + [Seat(number=n, builtin="random") for n in range(1, seats)],
            send=False,
            game=info.name,
            options={},
            seed=secrets.randbits(63),
            rated=False,
            created_by=version.bot.owner,
            validation_of=version,
            priority=Match.Priority.VALIDATION,
        )


def _add_version(
    *, bot: Bot, filename: str, data: bytes, status: str = BotVersion.Status.PENDING
) -> BotVersion:
    """The bot's next version. Call inside a transaction: it locks the bot to take the number."""
    # Lock the bot so two concurrent uploads cannot both take the same number.
    Bot.objects.select_for_update().filter(pk=bot.pk).first()
    last = BotVersion.objects.filter(bot=bot).aggregate(n=Max("number"))["n"] or 0
    return BotVersion.objects.create(
        bot=bot,
        number=last + 1,
        filename=filename,
        upload=data,
        sha256=hashlib.sha256(data).hexdigest(),
        size=len(data),
        status=status,
    )


def local_owner(*, username: str) -> Any:
    """The user owning the bots that ``manage.py play --persist`` stores (created without a
    password: it signs in only once someone sets one)."""
    user, created = get_user_model().objects.get_or_create(username=username)
    if created:
        user.set_unusable_password()
        user.save(update_fields=["password"])
    return user


def local_version(
    *, owner: Any, game: str, filename: str, data: bytes, is_public: bool = False
) -> BotVersion:
    """The version of a bot file played locally (``manage.py play --persist``).

    The owner's bot is named after the file (``local-NAME``) and created private unless
    ``is_public``; the same bytes stored before are that version again, else they become the
    next version. It is ready at once: it has just played a whole match in the sandbox.
    """
    try:
        check_filename(filename)
        refuse_compiled(unpack(filename, data))
    except UploadError as exc:
        raise Invalid({"file": str(exc)}) from None
    name = f"local-{Path(filename).stem}"[:60]
    bot = Bot.objects.filter(owner=owner, name=name).first()
    if bot is None:
        bot = create_bot(owner=owner, game=game, name=name, is_public=is_public)
    elif bot.game != game:
        raise Invalid({"seats": f"{owner}'s bot {name!r} plays {bot.game}, not {game}"})
    digest = hashlib.sha256(data).hexdigest()
    existing = bot.versions.filter(sha256=digest).first()
    if existing is not None:
        return existing
    with transaction.atomic():
        return _add_version(bot=bot, filename=filename, data=data, status=BotVersion.Status.READY)


def create_challenge(
    *,
    user: Any,
    game: str,
    seats: Sequence[Mapping[str, Any]],
    options: Mapping[str, Any] | None = None,
    seed: int | None = None,
    queue: bool = True,
    human_move_seconds: int | None = None,
) -> Match:
    """An unrated match between chosen versions, built-ins and people, queued for the workers.

    Each seat is ``{"bot_version": id}``, ``{"builtin": name}`` or ``{"human": true}`` (the
    caller plays it, through the API or the match's page; tournaments/play/lifecycle/people.py), in table
    order. ``human_move_seconds`` is a person's time for each decision. With
    ``queue=False`` the caller plays it itself (``manage.py play --persist`` runs it with the
    workers' runner, tournaments.play.runner.run_match, in its own process), and the account's
    allowance (caps, hourly budget: tournaments/play/allowance.py) is not asked: it asks nothing of
    the workers. Queued, a match with a person's seat goes before other work.
    """
    if game not in GAMES:
        raise Invalid({"game": f"unknown game {game!r}; known games: {', '.join(sorted(GAMES))}"})
    info = GAMES[game]
    if not info.min_seats <= len(seats) <= info.max_seats:
        raise Invalid(
            {
                "seats": f"{info.title} takes {info.min_seats} to {info.max_seats} seats, "
                f"not {len(seats)}"
            }
        )
    versions = _seat_versions(user=user, game=game, seats=seats)
    try:
        # Stored as the engine filled them in (defaults too, e.g. Brexit's round limit): the
        # match records the rules it is played under, so its document reads the same as
        # `play --out`'s and a later change of a default leaves old matches (and forks) alone.
        played_options = dict(info.rules.options(len(seats), dict(options or {})))
    except BadOptions as exc:
        raise Invalid({"options": str(exc)[:2000]}) from None
    if seed is None:
        seed = secrets.randbits(63)
    elif not 0 <= seed <= MAX_SEED:
        raise Invalid({"seed": f"seed must be between 0 and {MAX_SEED}"})
    _check_start(info.rules, len(seats), seed, played_options)
    move_seconds = DEFAULT_MOVE_SECONDS if human_move_seconds is None else human_move_seconds
    if not MIN_MOVE_SECONDS <= move_seconds <= MAX_MOVE_SECONDS:
        raise Invalid(
            {
                "human_move_seconds": f"a person's time per decision must be between"
                f" {MIN_MOVE_SECONDS} and {MAX_MOVE_SECONDS} seconds"
            }
        )
    priority = priority_of(seats)
    with transaction.atomic():
        if queue:
            allowance.check_matches(user)
        return lifecycle.do_create(
            seats=seat_rows(seats, versions, user=user),
            send=queue,
            game=game,
            options=played_options,
            seed=seed,
            rated=False,  # people's matches too: a challenge is never rated
            created_by=user,
            human_move_seconds=move_seconds,
            human_acted_at=timezone.now(),
            priority=priority,
        )


def check_start(game: str, seats: int, options: Mapping[str, Any]) -> None:
    """Raise Invalid unless ``game`` starts with ``seats`` seats and these (checked) options."""
    _check_start(GAMES[game].rules, seats, secrets.randbits(63), options)


def _check_start(rules: Any, seats: int, seed: int, options: Mapping[str, Any]) -> None:
    """The game starts with these options, here rather than on a worker: options a game's check
    let through but its setup cannot use are a 400, never a match that aborts (the games'
    own checks are tested to the same end, tests/games/test_options.py)."""
    try:
        replay(rules, rules.setup(seats, seed, options))
    except Exception as exc:
        log.warning("options passed the check but not the setup: %r", options)
        raise Invalid(
            {
                "options": f"the game cannot start with these options ({type(exc).__name__}: {exc})"[
                    :2000
                ]
            }
        ) from None


def priority_of(seats: Sequence[Mapping[str, Any]]) -> int:
    """A match's class at the workers: a person's seat makes it go first."""
    if any(seat.get("human") for seat in seats):
        return Match.Priority.PERSON
    return Match.Priority.PLAY


def seat_rows(
    seats: Sequence[Mapping[str, Any]],
    versions: Sequence[BotVersion | None],
    *,
    user: Any = None,
) -> list[Seat]:
    """A match's seats in table order, to create: its version, ``user`` for a human seat, or a
    built-in."""
    return [
        Seat(
            number=number,
            bot_version=versions[number],
            player=user if seat.get("human") else None,
            builtin=""
            if versions[number] is not None or seat.get("human")
            else str(seat["builtin"]),
        )
        for number, seat in enumerate(seats)
    ]


def seat_players(*, user: Any, game: str, seats: Sequence[Mapping[str, Any]]) -> list[str]:
    """Each seat's player as play's key (``"v:<id>"`` or ``"builtin:<name>"``): versions
    ``user`` may see and built-ins, no person; raises Invalid naming the seat (field "seats")."""
    if any(isinstance(seat, Mapping) and seat.get("human") for seat in seats):
        raise Invalid({"seats": "a series plays bots only: no human seat"})
    versions = _seat_versions(user=user, game=game, seats=seats)
    return [
        f"v:{version.pk}" if version is not None else f"builtin:{seat['builtin']}"
        for seat, version in zip(seats, versions, strict=True)
    ]


def _seat_versions(
    *, user: Any, game: str, seats: Sequence[Mapping[str, Any]]
) -> list[BotVersion | None]:
    """The version playing each seat (None for a built-in); raises Invalid naming the seat."""
    errors: list[str] = []
    wanted = [s.get("bot_version") for s in seats]
    ids = [v for v in wanted if isinstance(v, int) and not isinstance(v, bool)]
    # Built-ins only (the commonest challenge): no version to look up, no query to build.
    found = (
        {
            v.pk: v
            for v in selectors.versions_visible_to(user).filter(pk__in=ids).select_related("bot")
        }
        if ids
        else {}
    )
    result: list[BotVersion | None] = []
    for number, seat in enumerate(seats):
        has_version = seat.get("bot_version") is not None
        has_builtin = bool(seat.get("builtin"))
        has_human = bool(seat.get("human"))
        if has_version + has_builtin + has_human != 1:
            errors.append(f"seat {number}: give exactly one of bot_version, builtin or human")
            result.append(None)
            continue
        if has_human:
            if user is None or not user.is_authenticated:
                errors.append(f"seat {number}: log in to play a seat yourself")
            result.append(None)
            continue
        if has_builtin:
            if seat["builtin"] not in builtin_names(game):
                errors.append(
                    f"seat {number}: unknown builtin {seat['builtin']!r}; "
                    f"choose one of {', '.join(builtin_names(game))}"
                )
            result.append(None)
            continue
        version = found.get(seat["bot_version"])
        if version is None:
            errors.append(f"seat {number}: unknown bot version {seat['bot_version']!r}")
        elif version.bot.game != game:
            errors.append(f"seat {number}: {version} is a {version.bot.game} bot, not a {game} bot")
        elif not version.bot.is_active:
            errors.append(f"seat {number}: {version.bot.name} is deactivated")
        elif version.status == BotVersion.Status.PENDING:
            errors.append(f"seat {number}: {version} is still being validated; try again shortly")
        elif version.status != BotVersion.Status.READY:
            errors.append(f"seat {number}: {version} was rejected by validation")
        result.append(version)
    if errors:
        raise Invalid({"seats": errors})
    return result


# Rated play: matches that ladders and seasons create (never users), and their cancellation.


def create_rated_match(
    *,
    game: str,
    players: Sequence[str],
    seed: int,
    options: Mapping[str, Any] | None = None,
    ladder_id: int | None = None,
    season_id: int | None = None,
    deal: uuid.UUID | None = None,
) -> Match:
    """A rated match, queued for the workers once the caller's transaction commits.

    ``players`` are in seat order, each ``"v:<version id>"`` or ``"builtin:<name>"``;
    the scheduler (ladder round, season) has chosen them, so they are trusted here.
    ``ladder_id``/``season_id``: the ladder or season that plays it (play names no competition).
    ``deal``: the duplicate deal it plays with the other matches given the same key and seed.
    """
    return lifecycle.do_create(
        seats=_seats_of(players),
        game=game,
        options=dict(options or {}),
        seed=seed,
        rated=True,
        ladder_id=ladder_id,
        season_id=season_id,
        deal=deal,
    )


def _seats_of(players: Sequence[str]) -> list[Seat]:
    """Unsaved seats for ``players`` in seat order, each ``"v:<version id>"`` or
    ``"builtin:<name>"``."""
    return [
        Seat(
            number=number,
            bot_version_id=int(player[2:]) if player.startswith("v:") else None,
            builtin="" if player.startswith("v:") else player.removeprefix("builtin:"),
        )
        for number, player in enumerate(players)
    ]


def create_series_match(
    *,
    user: Any,
    game: str,
    players: Sequence[str],
    seed: int,
    options: Mapping[str, Any] | None = None,
    series_id: int,
    deal: uuid.UUID,
) -> Match:
    """An unrated match of ``user``'s series, queued once the caller's transaction commits.

    ``players`` as in ``create_rated_match``, checked by the series when it was created. The
    match is the user's (``created_by``), so the workers share it with the user's challenges
    (scheduler.py); the series asks ``series_room`` before creating matches.
    """
    return lifecycle.do_create(
        seats=_seats_of(players),
        game=game,
        options=dict(options or {}),
        seed=seed,
        rated=False,
        created_by=user,
        series_id=series_id,
        deal=deal,
    )


def series_room(*, user: Any) -> int:
    """How many more matches ``user`` may have queued now (0 once its hour of worker time is
    spent): a series creates its matches within the same allowance as challenges."""
    return allowance.room(user)


def cancel_queued_matches(*, matches: Any, reason: str) -> int:
    """Cancel the queued ones among ``matches`` (a queryset): they end aborted, never played
    (``lifecycle.do_cancel``); a match that a worker already started is left to finish."""
    return lifecycle.do_cancel(matches, reason)


# --- staff's actions (tournaments/site/admin.py) ----------------------------------------------


def requeue_matches(*, matches: Any) -> int:
    """Wake a worker for each of ``matches`` (a queryset) that is queued or whose lease expired
    (queued again first, as the reaper does), on the queue of its class (dispatch); how many
    were sent. A match a live worker holds, one waiting for a person and one that is over are
    left alone: a message for them would wake a worker for nothing."""
    expired, _ = lifecycle.do_requeue_expired(timezone.now(), among=matches)
    queued = Match.objects.filter(
        id__in=[*matches.values_list("id", flat=True), *expired], status=Match.Status.QUEUED
    ).values_list("id", "priority", "validation_of_id")
    sent = list(queued)
    for match_id, priority, validation_of in sent:
        transaction.on_commit(partial(dispatch.play_match, str(match_id), priority, validation_of))
    return len(sent)


def revalidate_versions(*, versions: Any) -> int:
    """Validate again the rejected ones among ``versions`` (a queryset), and send again the
    pending ones' validation; how many were sent.

    A version is validated once (docs/architecture.md, "A bot upload"): this is staff's way to
    take back a rejection that was the platform's fault (``validation failed: ...``, a worker
    that could not sandbox). The version is pending again, with a new smoke match queued as at
    the upload. A ready version is never validated again: ladders, seasons and queued matches
    may seat it, and a new verdict would pull it out of them mid-play.
    """
    chosen = versions.values("id")
    with transaction.atomic():
        BotVersion.objects.filter(id__in=chosen, status=BotVersion.Status.REJECTED).update(
            status=BotVersion.Status.PENDING, validation_error="", validated_at=None
        )
        again = BotVersion.objects.filter(id__in=chosen, status=BotVersion.Status.PENDING)
        sent = list(again.select_related("bot"))
        for version in sent:
            smoke_match_for(version)  # queued work the workers see, as at the upload
            transaction.on_commit(partial(dispatch.validate_bot_version, version.pk))
    return len(sent)


# Forks: a finished match at step N becomes a new unrated match that replays N events, then plays
# on. A match of a duplicate deal is forked only once the whole deal is over
# (``visibility.deal_over``): the fork would otherwise hand its seed and events out early. The
# fork keeps the original's seed, and chance is keyed by what it draws, not by the stream's
# position (games/engine/rng.py), so it draws the same cards as the original wherever the
# decisions are the same. Its stream begins with copies of the original's events up to step N,
# less the verdicts of any seat given to another player (so its versions after the first such
# verdict are not the original's); the runner resumes it like any interrupted match.


def decision_step(events: Sequence[StoredEvent], step: int) -> int:
    """The latest step at or before ``step`` where a seat is about to decide.

    A decision's consequences (flips, scoring, draws) are written with it; a
    stream cut between them would leave the engine half-way through its own
    work, so a fork always starts just before a decision.
    """
    for v in range(min(step, len(events) - 1), 0, -1):
        nxt = events[v]  # the event at version v + 1
        if nxt.metadata.get("actor") is not None and nxt.type not in PLATFORM_EVENTS:
            return v
    raise Invalid({"step": "no decision is taken at or before this step"})


def _same_player(user: Any, wanted: Mapping[str, Any], seat: Seat) -> bool:
    """Whether the fork's seat (``wanted``, as ``fork_match`` completes it) is played by whoever
    played ``seat``: the same version, the same built-in, or the person who forks."""
    if wanted.get("human"):
        return seat.player_id is not None and seat.player_id == user.pk
    if wanted.get("bot_version"):
        return bool(seat.bot_version_id == wanted["bot_version"])
    return (
        seat.bot_version_id is None
        and seat.player_id is None
        and seat.builtin == wanted.get("builtin")
    )


def fork_match(
    *, user: Any, original: Match, step: int, seats: Sequence[Mapping[str, Any]] | None = None
) -> Match:
    """Create the fork (queued), its seats and its first events; the runner plays it on commit.

    ``seats`` gives each seat in table order: {"bot_version": id}, {"builtin": name},
    or {} to keep the original's player.
    """
    if not is_over(original):
        raise Invalid({"match": "only a match that is over (finished or aborted) can be forked"})
    if not deal_over(original):
        # The fork would copy the seed and the events: the cards the rest of the set still plays.
        raise Invalid(
            {
                "match": "this match is part of a duplicate deal whose other matches are still "
                "being played; it can be forked once they are all over"
            }
        )
    if not (user.is_staff or seats_of(user, original)):
        raise Invalid({"match": "only the owner of a bot in this match can fork it"})
    original_seats = list(
        Seat.objects.filter(match=original).select_related("bot_version__bot").order_by("number")
    )
    wanted = list(seats) if seats else [{} for _ in original_seats]
    if len(wanted) != len(original_seats):
        raise Invalid({"seats": f"this match has {len(original_seats)} seats, not {len(wanted)}"})
    if not 1 <= step < original.last_version:
        raise Invalid({"step": f"step must be between 1 and {original.last_version - 1}"})
    kept = [
        dict(w)
        if w
        else (
            {"bot_version": s.bot_version_id}
            if s.bot_version_id
            else {"human": True}  # the one who forks plays a person's seat on
            if s.player_id
            else {"builtin": s.builtin}
        )
        for w, s in zip(wanted, original_seats, strict=True)
    ]
    hidden = [
        s.number
        for w, s in zip(wanted, original_seats, strict=True)
        if not w and s.bot_version is not None and not shows_bot(user, s.bot_version.bot)
    ]
    if hidden:
        # Named without its version id, which would place the private bot among the versions.
        raise Invalid(
            {
                "seats": [
                    f"seat {n}: its bot is private; name a built-in or a bot of yours for it"
                    for n in hidden
                ]
            }
        )
    versions = _seat_versions(user=user, game=original.game, seats=kept)
    events = store.read(original.id)
    step = decision_step(events, step)
    replaced = {
        s.number for w, s in zip(kept, original_seats, strict=True) if not _same_player(user, w, s)
    }
    copied = [
        NewEvent(
            type=ev.type,
            payload=ev.payload,
            schema_version=ev.schema_version,
            metadata={
                **ev.metadata,
                "copied_from": {"match": str(original.id), "version": ev.version},
            },
        )
        for ev in events[:step]
        # A verdict's details (a traceback quoting its bot's code, its times) are its owner's,
        # and its strikes and time bank its player's: a seat given to another player leaves
        # them in the original and starts afresh.
        if not (
            ev.type == BOT_VERDICT
            # By the seat it judged and by its actor, whom visibility shows its details to.
            and (ev.payload.get("seat") in replaced or ev.metadata.get("actor") in replaced)
        )
    ]
    with transaction.atomic():
        allowance.check_matches(user)
        fork = lifecycle.do_create(
            seats=seat_rows(kept, versions, user=user),
            events=copied,
            game=original.game,
            options=original.options,
            seed=original.seed,
            rated=False,
            created_by=user,
            forked_from=original,
            forked_at=step,
            priority=priority_of(kept),
        )
    fork.refresh_from_db()
    return fork


# --- named API tokens (tournaments/play/tokens.py) ----------------------------------------------


def create_token(*, user: Any, name: str) -> tuple[ApiToken, str]:
    """A new named token and its key, which is not kept: the caller shows it once."""
    name = name.strip()
    if not name:
        raise Invalid({"name": "give the token a name (where it will be used)"})
    if len(name) > 60:
        raise Invalid({"name": "a token's name is at most 60 characters"})
    found = unprintable(name)
    if found:
        raise Invalid({"name": f"the name has a control or invisible character ({found})"})
    if ApiToken.objects.filter(user=user).count() >= tokens.MAX_TOKENS:
        raise Invalid({"name": f"you have {tokens.MAX_TOKENS} tokens already; revoke one first"})
    if ApiToken.objects.filter(user=user, name=name).exists():
        raise Invalid({"name": f"you already have a token called {name!r}"})
    prefix = secrets.token_hex(6)
    key = f"{tokens.KEY_START}{prefix}_{secrets.token_urlsafe(32)}"
    try:
        with transaction.atomic():
            token = ApiToken.objects.create(
                user=user, name=name, prefix=prefix, digest=tokens.digest(key)
            )
    except IntegrityError:  # the same name at once (a 2**48 prefix collision reads the same)
        raise Invalid({"name": f"you already have a token called {name!r}"}) from None
    return token, key


def user_for_token(*, key: str) -> Any | None:
    """The active user a named key belongs to, or None; notes when the token was used (at most
    every ``tokens.USED_EVERY``: not one UPDATE per request)."""
    token = selectors.token_for_key(key)
    if token is None:
        return None
    now = timezone.now()
    if token.last_used_at is None or now - token.last_used_at >= tokens.USED_EVERY:
        ApiToken.objects.filter(pk=token.pk).update(last_used_at=now)
    return token.user if token.user.is_active else None


def revoke_token(*, user: Any, token_id: int) -> bool:
    """Delete one of ``user``'s tokens; False if they have none with this id."""
    deleted, _ = ApiToken.objects.filter(user=user, pk=token_id).delete()
    return deleted > 0


# --- a person's action (tournaments/play/lifecycle/people.py) ------------------------------------


def submit_action(
    *, user: Any, match_id: Any, action: Any, seat: int | None = None, step: int | None = None
) -> Match:
    """Apply a person's action for their seat, as the runner applies a bot's, and queue the bots.

    ``step``: the decision the person answers (``waiting_step`` when they were asked); a
    second submission for a decision already answered is a Conflict, not the next decision's
    action. Raises NotFound, Refused or Conflict; on Refused and Conflict nothing is stored.
    """
    mine = set(selectors.own_seats(user, match_id))
    if seat is None:
        if len(mine) > 1:
            raise Refused(f'you play seats {sorted(mine)} here: say which one with "seat"')
        seat = next(iter(mine))
    if seat not in mine:
        raise selectors.NotFound(f"seat {seat} is not yours to play")
    if not isinstance(action, dict):
        raise Refused('the action must be a JSON object, e.g. {"pass": true}')
    return lifecycle.take_action(match_id, seat, action, step)
