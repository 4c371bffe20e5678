"""Play's rows: bots, their immutable versions, matches, seats, logs, accounts' origins and the
workers' time.

A match's events live in the event store (stream id = ``Match.id``); the rows
here are what the site lists and filters: status, lease, and the result,
written once in the same transaction as the match's final event. A match names its ladder,
season or series by the model's name only ("Ladder", "Season", "Series"): play imports nothing
of competition.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from uuid_utils.compat import uuid7

from games.engine.builtin import builtin_names
from games.engine.registry import GAMES
from tournaments.play.row_changes import WatchedQuerySet


def game_choices() -> list[tuple[str, str]]:
    """Every registered game, read when asked: registering a game needs no migration."""
    return [(info.name, info.title) for info in GAMES.values()]


GAME_CHOICES = game_choices()
"""The API's choices: every game is registered by now (a settings module registers its own)."""
BUILTIN_BOTS = tuple(dict.fromkeys(name for game in GAMES for name in builtin_names(game)))
"""Every built-in bot name of any game; the ones a game offers are ``builtin_names(game)``."""


DESCRIPTION_MAX_LENGTH = 2000


class Bot(models.Model):
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="bots"
    )
    game = models.CharField(max_length=20, choices=game_choices)
    name = models.CharField(max_length=60)
    # A few lines for the bot's page and lists; the database does not cap a TextField, so this
    # max_length is the cap forms and the API check (a 400 that says so).
    description = models.TextField(blank=True, max_length=DESCRIPTION_MAX_LENGTH)
    is_active = models.BooleanField(default=True, help_text="Inactive bots are not matched.")
    is_public = models.BooleanField(
        default=True, help_text="Listed for everyone; source stays private."
    )
    created_at = models.DateTimeField(auto_now_add=True)
    # The owner's webhook (tournaments/play/webhooks.py): called on each rejected version and
    # each crash, timeout or disqualification; signed with the secret, made when a URL is set.
    webhook_url = models.URLField(
        max_length=500,
        blank=True,
        help_text="Called on each rejected version, crash, timeout"
        " or disqualification (docs/bots.md, Webhook).",
    )
    webhook_secret = models.CharField(
        max_length=64, blank=True, help_text="Signs each webhook call (HMAC-SHA256)."
    )
    # Set by its owner to keep ladders on an older version; None: the newest ready one plays.
    active_version = models.ForeignKey(
        "BotVersion",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        help_text="The ready version ladders play; empty: the newest ready one.",
    )

    # A queryset's update() of a column the cached pages show (a name, is_public, is_active)
    # retires them as a save does (row_changes.written: page_cache.BOT_SHOWN).
    objects = WatchedQuerySet.as_manager()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["owner", "name"], name="bot_name_per_owner")]
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.name} ({self.game})"


class BotVersion(models.Model):
    """One upload, immutable once saved. Validation fills ``status`` asynchronously."""

    class Status(models.TextChoices):
        PENDING = "pending"
        READY = "ready"
        REJECTED = "rejected"

    bot = models.ForeignKey(Bot, on_delete=models.PROTECT, related_name="versions")
    number = models.PositiveIntegerField()
    filename = models.CharField(max_length=255)
    upload = models.BinaryField(help_text="The uploaded .py or .zip, byte for byte.")
    sha256 = models.CharField(max_length=64)
    size = models.PositiveIntegerField()
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    validation_error = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    validated_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["bot", "number"], name="bot_version_number")]
        ordering = ["-number"]

    def __str__(self) -> str:
        return f"{self.bot.name} v{self.number}"


class Match(models.Model):
    """A match's row: what the site lists and filters. Its events are the stream ``id``.

    No Python code writes a match's result. Appending the ``match_finished`` event fires the
    trigger on the events table (tournaments/play/projection.py: its SQL, and its Python twin),
    which in the same statement sets ``status="finished"``, ``outcome``, ``finished_at`` and
    clears the lease here, and writes each seat's ``rank`` and ``score``; every append also
    sets ``last_version``. So a result is read from these rows, and exists exactly when the
    final event does; reload the row (``refresh_from_db``) after an append to see it. Every
    other change of ``status`` (and of the lease and the seats waited for), and every append
    to the stream, is a transition of tournaments/play/lifecycle/.
    """

    class Status(models.TextChoices):
        QUEUED = "queued"
        RUNNING = "running"
        WAITING = "waiting"
        """A person's seat must decide (``waiting_for``); no worker holds the match meanwhile."""
        FINISHED = "finished"
        ABORTED = "aborted"

    class Priority(models.IntegerChoices):
        """Which work a free worker takes first (tournaments/play/scheduler.py): lower first."""

        PERSON = 0, "a person's seat"
        VALIDATION = 1, "an upload's smoke match"
        PLAY = 2, "challenges, forks, ladders and seasons"

    # Time-ordered ids keep the events' (stream, version) index growing at its end.
    id = models.UUIDField(primary_key=True, default=uuid7, help_text="Also the event stream id.")
    game = models.CharField(max_length=20, choices=game_choices)
    options = models.JSONField(default=dict, blank=True)
    seed = models.BigIntegerField(
        help_text="Hidden from everyone until the match, and every match of its deal, is over."
    )
    # A duplicate deal: the set of matches that play one seed, once per seat rotation (a ladder
    # table) or per game (a season table). Every match of a set deals the same cards, so what
    # one of them dealt (its seed, its hidden events) stays closed until all are over
    # (tournaments.play.visibility.deal_over). None: the match shares its seed with no other.
    deal = models.UUIDField(
        null=True,
        blank=True,
        help_text="The duplicate deal (set of matches sharing its seed) it belongs to.",
    )
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUEUED)
    rated = models.BooleanField(default=False, help_text="Challenges are unrated.")
    # Set when the match is made and never changed; the database default for bulk loaders.
    priority = models.PositiveSmallIntegerField(
        choices=Priority.choices,
        default=Priority.PLAY,
        db_default=Priority.PLAY,
        help_text="Workers take people's matches first, then validations, then the rest, fairly"
        " between accounts (docs/reliability.md, Fair competition).",
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    # Indexed with the list's order instead (Meta.indexes: match_season_newest, match_ladder_newest).
    season = models.ForeignKey(
        "Season",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="matches",
        db_index=False,
    )
    ladder = models.ForeignKey(
        "Ladder",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="matches",
        db_index=False,
    )
    # An account's series or A/B test (competition's Series): unrated, its owner's matches.
    series = models.ForeignKey(
        "Series", null=True, blank=True, on_delete=models.PROTECT, related_name="matches"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    # The lease: a running match belongs to one worker until lease_expires_at; the
    # worker extends it at every commit, and the reaper re-queues expired ones.
    lease_owner = models.CharField(max_length=200, blank=True)
    lease_expires_at = models.DateTimeField(null=True, blank=True)
    attempts = models.PositiveIntegerField(default=0)
    last_version = models.PositiveIntegerField(default=0, help_text="Events stored so far.")
    outcome = models.JSONField(null=True, blank=True)
    error = models.TextField(
        blank=True, help_text="Why it was aborted; shown to its seats' owners and staff only."
    )
    # A version's validation run is kept as a match its owner can read (the error cites its
    # steps); it is private to the bot's owner and staff (tournaments.play.selectors).
    # Indexed with its newest first instead, smoke matches only (Meta.indexes: match_smoke_newest).
    validation_of = models.ForeignKey(
        "BotVersion",
        null=True,
        db_index=False,
        blank=True,
        on_delete=models.PROTECT,
        related_name="smoke_matches",
        help_text="Set on the smoke match that validated this version.",
    )
    # People's seats (tournaments/play/lifecycle/people.py): whose decision the match waits for, since which
    # step, and until when; past the deadline the reaper has the default action played.
    # Database defaults too: bulk loaders that COPY match rows (benchmarks) name no new column.
    waiting_for = models.JSONField(
        default=list,
        db_default=models.Value([], output_field=models.JSONField()),
        blank=True,
        help_text="Seats of people whose action the match awaits.",
    )
    waiting_step = models.PositiveIntegerField(
        null=True, blank=True, help_text="The step of the decision the match waits for."
    )
    deadline = models.DateTimeField(
        null=True, blank=True, help_text="Past it, the default action is played for them."
    )
    human_move_seconds = models.PositiveIntegerField(
        default=600, db_default=600, help_text="Each decision's deadline for a person's seat."
    )
    human_acted_at = models.DateTimeField(
        null=True, blank=True, help_text="A person's last action; abandoned a day after it."
    )
    suspended_at = models.DateTimeField(
        null=True,
        blank=True,
        help_text="When the match last stopped to wait for a person: an address's people's"
        " head start waits FAIR_HEAD_START_GAP_SECONDS after it (docs/reliability.md).",
    )
    # A fork replays another match's events up to its step ``forked_at`` (less the verdicts of
    # seats given to another player: services.fork_match), then plays on.
    forked_from = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.SET_NULL, related_name="forks"
    )
    forked_at = models.PositiveIntegerField(
        null=True, blank=True, help_text="The step of the original the fork starts from."
    )

    class Meta:
        ordering = ["-created_at"]
        verbose_name_plural = "matches"
        # A plain index: db_index on a CharField adds a LIKE index too, which nothing uses
        # and every status change (a non-HOT update) would have to maintain.
        indexes = [
            # The match lists, newest first, whole or by one filter (keyset pages,
            # tournaments/play/keyset.py): each page is read from the index of its order, at the
            # same cost whatever the table's size. A filter that can be rare (a status, a
            # ladder, a season) has its own; a game, one of two, is read from match_newest (an
            # index more for every write, which Postgres did not choose). The status one also
            # serves the scheduler's "queued matches", the ladder and season ones the foreign
            # keys' own lookups.
            models.Index(fields=["-created_at", "-id"], name="match_newest"),
            # Whether a listed match's deal plays on (selectors.sights.with_deal_state, every list):
            # Postgres answers it for a page by hashing the deals of the matches not over, read
            # here, instead of every match's deal (a scan of the whole table per page).
            models.Index(
                fields=["deal"],
                name="match_deal_playing",
                condition=~models.Q(status__in=["finished", "aborted"]),
            ),
            models.Index(fields=["status", "-created_at", "-id"], name="match_status_newest"),
            models.Index(fields=["ladder", "-created_at", "-id"], name="match_ladder_newest"),
            models.Index(fields=["season", "-created_at", "-id"], name="match_season_newest"),
            models.Index(
                fields=["deal"], name="match_deal", condition=models.Q(deal__isnull=False)
            ),
            # The scheduler's "whose people's or smoke matches stopped or ended within the gap"
            # (scheduler.py): people's and smoke matches only, a small share of the table.
            models.Index(
                fields=["suspended_at"],
                name="match_suspended",
                condition=models.Q(suspended_at__isnull=False),
            ),
            models.Index(
                fields=["finished_at"],
                name="match_urgent_finished",
                condition=models.Q(priority__lt=2),
            ),
            # The scheduler's "matches started since this one was made" (scheduler.py).
            models.Index(fields=["started_at"], name="match_started"),
            # An account's newest smoke match per game (selectors.newest_smoke_matches_of, the
            # token lists' marker on a miss): its bots' versions' smoke matches, newest first,
            # instead of a walk of match_newest through every match (the whole table for an
            # account that has none). Smoke matches only, one in a hundred of the table.
            models.Index(
                fields=["validation_of", "-created_at"],
                name="match_smoke_newest",
                condition=models.Q(validation_of__isnull=False),
            ),
        ]

    def __str__(self) -> str:
        return f"{self.game} match {self.id} ({self.status})"


class AccountOrigin(models.Model):
    """The address an account was signed up from: an address's accounts share their fair share
    of the workers, their caps and their budget (tournaments/play/allowance.py)."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, primary_key=True, on_delete=models.CASCADE, related_name="origin"
    )
    address = models.GenericIPAddressField()
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"{self.user_id} from {self.address}"


class ApiToken(models.Model):
    """A named API token of an account, beside its one original token (DRF's ``Token``).

    The key is shown once, when made; only its ``prefix`` (to find the row) and the SHA-256 of
    the whole key are kept, so a leaked database holds no usable key. A key is 32 random bytes,
    so a fast hash is enough: there is nothing to guess (tournaments/play/tokens.py).
    """

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_tokens"
    )
    name = models.CharField(max_length=60)
    prefix = models.CharField(max_length=16, unique=True)
    digest = models.CharField(max_length=64, help_text="SHA-256 of the whole key, in hex.")
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.UniqueConstraint(fields=["user", "name"], name="api_token_name_per_user")
        ]

    def __str__(self) -> str:
        return f"{self.name} ({self.prefix}…)"


class WorkerTime(models.Model):
    """Worker seconds spent on one account's (or address's, ladder's, season's) work in one
    minute: the fair choice and the hourly budget read the last hour of these.

    Written once per match played (an upsert per key: tournaments/play/worker_time.py); the reaper
    deletes rows older than the window.
    """

    key = models.CharField(
        max_length=80, help_text='"u:<user id>", "a:<address>", "ladder:<id>"...'
    )
    minute = models.DateTimeField()
    seconds = models.FloatField(default=0.0)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["key", "minute"], name="worker_time_per_key_minute")
        ]

    def __str__(self) -> str:
        return f"{self.key} {self.minute:%H:%M}: {self.seconds:.1f} s"


class Seat(models.Model):
    # No index of its own: the unique (match, number) index serves lookups by match.
    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="seats", db_index=False)
    number = models.PositiveSmallIntegerField()
    bot_version = models.ForeignKey(
        BotVersion, null=True, blank=True, on_delete=models.PROTECT, related_name="seats"
    )
    builtin = models.CharField(
        max_length=20, blank=True, help_text="A built-in bot's name instead."
    )
    player = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
        help_text="A person playing this seat through the site or the API instead.",
    )
    rank = models.PositiveSmallIntegerField(null=True, blank=True)
    score = models.FloatField(null=True, blank=True)
    verdicts = models.JSONField(default=dict, blank=True, help_text="Count per verdict.")
    strikes = models.PositiveSmallIntegerField(default=0)
    disqualified = models.BooleanField(default=False)
    time_used_ms = models.PositiveIntegerField(default=0)
    # Copied from the seat's version and match by a trigger (migration 0027) at insert, and
    # from the match if its creation time changes, never by Python: a bot's matches newest
    # first are then one index of the seats (seat_bot_newest), read a page at a time whatever
    # the size of the table or of the bot's history. NULL for built-ins' and people's seats.
    bot = models.ForeignKey(
        Bot,
        null=True,
        blank=True,
        editable=False,
        on_delete=models.DO_NOTHING,  # a bot with seats cannot go: its versions are protected
        db_constraint=False,
        db_index=False,
        related_name="+",
        help_text="The version's bot (set by the database).",
    )
    match_created_at = models.DateTimeField(
        null=True,
        blank=True,
        editable=False,
        help_text="The match's creation time (set by the database), for a bot's seats.",
    )

    class Meta:
        ordering = ["match", "number"]
        constraints = [
            models.UniqueConstraint(fields=["match", "number"], name="seat_number_per_match"),
            models.CheckConstraint(
                condition=(
                    models.Q(bot_version__isnull=False, builtin="", player__isnull=True)
                    | models.Q(bot_version__isnull=True, player__isnull=True)
                    & ~models.Q(builtin="")
                    | models.Q(bot_version__isnull=True, builtin="", player__isnull=False)
                ),
                name="seat_is_a_version_a_builtin_or_a_person",
            ),
        ]
        indexes = [
            # A bot's matches newest first (its page, the lists' bot filter, "my bots"' last
            # errors): the order of the match lists' keyset (created_at, id), from the seats.
            models.Index(
                fields=["bot", "-match_created_at", "-match"],
                name="seat_bot_newest",
                condition=models.Q(bot__isnull=False),
            ),
        ]

    def __str__(self) -> str:
        return f"seat {self.number}: {self.label}"

    @property
    def human(self) -> bool:
        return self.player_id is not None

    @property
    def label(self) -> str:
        if self.player is not None:
            return f"human:{self.player.get_username()}"
        if self.bot_version_id is None:
            return f"builtin:{self.builtin}"
        return str(self.bot_version)


class BotLog(models.Model):
    """A bot's stderr for one decision, capped; visible to the bot's owner and staff only."""

    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="logs")
    seat = models.PositiveSmallIntegerField()
    version = models.PositiveIntegerField(help_text="The step: stream version at the decision.")
    verdict = models.CharField(
        max_length=20,
        blank=True,
        help_text="The verdict on that decision ('' for lines written outside one).",
    )
    text = models.TextField()

    class Meta:
        ordering = ["match", "version", "seat"]

    def __str__(self) -> str:
        return f"log {self.match_id} seat {self.seat} @ {self.version}"


class Fault(models.Model):
    """A non-ok verdict on a decision of a bot's version: its errors page's rows.

    Written with the flush that stores the verdict's event (lifecycle/stream.py), so a bot's
    errors are read from its own index, whatever the size of the event store. ``detail`` is
    the first line of the verdict's detail, as private as the verdict's (its bot's log).
    """

    bot = models.ForeignKey(Bot, on_delete=models.CASCADE, related_name="faults", db_index=False)
    bot_version = models.ForeignKey(
        BotVersion, on_delete=models.CASCADE, related_name="faults", db_index=False
    )
    # No index of its own: the unique (match, seat, step) index serves lookups by match.
    match = models.ForeignKey(
        Match, on_delete=models.CASCADE, related_name="faults", db_index=False
    )
    seat = models.PositiveSmallIntegerField()
    # The viewer shows the verdict, and the stderr of the decision it judged, at its step.
    step = models.PositiveIntegerField(help_text="The verdict's step (its event's version).")
    asked_step = models.PositiveIntegerField(help_text="The step the bot was asked at.")
    verdict = models.CharField(max_length=20)
    detail = models.CharField(max_length=300, blank=True, help_text="The detail's first line.")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["verdict", "-id"]
        constraints = [
            models.UniqueConstraint(fields=["match", "seat", "step"], name="fault_per_decision")
        ]
        # The errors list: one bot's, grouped by verdict, newest first in each group.
        indexes = [models.Index(fields=["bot", "verdict", "-id"], name="fault_bot_verdict")]

    def __str__(self) -> str:
        return f"{self.verdict} in {self.match_id} seat {self.seat} @ {self.step}"


class FaultCount(models.Model):
    """How many faults of one verdict a bot has received, in smoke matches or in the others: a
    bot's page shows these, whatever the number of its faults or matches.

    Kept by the database (migration 0027), not by Python: statement triggers on the fault table
    add what each insert wrote (``faults.record``'s bulk insert) and take off what a delete
    removed, so every writer of faults keeps them, and a count is always its faults' number.
    """

    bot = models.ForeignKey(Bot, on_delete=models.CASCADE, related_name="+", db_index=False)
    verdict = models.CharField(max_length=20)
    smoke = models.BooleanField(help_text="Counts the faults in the bot's smoke matches.")
    count = models.PositiveIntegerField()

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["bot", "verdict", "smoke"], name="fault_count_per_bot_verdict"
            )
        ]

    def __str__(self) -> str:
        return f"bot {self.bot_id}: {self.count} {self.verdict}{' (smoke)' if self.smoke else ''}"


class WebhookDelivery(models.Model):
    """One attempt at calling a bot's webhook: what it answered (tournaments/play/webhooks.py)."""

    bot = models.ForeignKey(
        Bot, on_delete=models.CASCADE, related_name="webhook_deliveries", db_index=False
    )
    event = models.CharField(max_length=20, help_text="rejected, crash, timeout, disqualified.")
    delivery = models.UUIDField(help_text="The call's id: the same for each of its attempts.")
    attempt = models.PositiveSmallIntegerField()
    status_code = models.PositiveSmallIntegerField(null=True, blank=True)
    error = models.CharField(max_length=300, blank=True, help_text="Why no answer came.")
    sent_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-id"]
        indexes = [models.Index(fields=["bot", "-id"], name="webhook_delivery_bot")]

    def __str__(self) -> str:
        return f"{self.event} to bot {self.bot_id}, attempt {self.attempt}: {self.status_code}"
