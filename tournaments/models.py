"""Bots, their immutable versions, matches and seats.

A match's events live in the event store (stream id = ``Match.id``); the rows
here are what the site lists and filters: status, lease, and the result,
written once in the same transaction as the match's final event.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from uuid_utils.compat import uuid7

from games.engine.builtin import builtin_names
from games.engine.registry import GAMES


def game_choices() -> list[tuple[str, str]]:
    """Every registered game, read when asked: registering a game needs no migration."""
    return [(info.name, info.title) for info in GAMES.values()]


GAME_CHOICES = game_choices()
"""The API's choices: every game is registered by now (a settings module registers its own)."""
BUILTIN_BOTS = tuple(dict.fromkeys(name for game in GAMES for name in builtin_names(game)))
"""Every built-in bot name of any game; the ones a game offers are ``builtin_names(game)``."""


class Ladder(models.Model):
    """A standing competition for one game and seat count, played in rounds by Celery beat.

    Members are the game's active, ready bot versions (the newest of each bot)
    and the built-in bots listed here; see docs/ladders.md for the matchmaking.
    """

    name = models.CharField(max_length=100, unique=True)
    game = models.CharField(max_length=20, choices=game_choices)
    seats = models.PositiveSmallIntegerField(default=4)
    options = models.JSONField(default=dict, blank=True)
    is_active = models.BooleanField(default=True, help_text="Inactive ladders play no rounds.")
    builtins = models.JSONField(
        default=list,
        blank=True,
        help_text='Built-in bots in the ladder, e.g. ["random", "greedy"].',
    )
    duplicate_deals = models.BooleanField(
        default=True, help_text="Each table plays the same deal once per seat rotation."
    )
    games_per_day = models.PositiveIntegerField(
        default=200, help_text="A bot sits out once it has played this many games in 24 hours."
    )
    window = models.PositiveSmallIntegerField(
        default=6, help_text="Tables are filled at random from this many nearest-rated bots."
    )
    tables_per_round = models.PositiveSmallIntegerField(
        null=True, blank=True, help_text="At most this many tables a round (empty: all)."
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["game", "seats"], name="ladder_per_game_and_seats")
        ]

    def __str__(self) -> str:
        return self.name


class LadderRound(models.Model):
    """A ladder's round of one time slot, played once however many beats ask for it.

    Two beat processes started by mistake each send every round's task; the unique
    (ladder, slot) row, taken under the ladder's lock, lets only the first one play it.
    """

    ladder = models.ForeignKey(Ladder, on_delete=models.CASCADE, related_name="rounds")
    slot = models.DateTimeField(help_text="Start of the time slot (a multiple of the interval).")
    matches = models.PositiveIntegerField(default=0, help_text="Matches queued by the round.")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["ladder", "-slot"]
        constraints = [
            models.UniqueConstraint(fields=["ladder", "slot"], name="ladder_round_per_slot")
        ]

    def __str__(self) -> str:
        return f"{self.ladder} round {self.slot:%Y-%m-%d %H:%M:%S}"


class Season(models.Model):
    """A league season run by staff from the admin: a fixed field, a schedule, final standings."""

    class State(models.TextChoices):
        DRAFT = "draft"
        OPEN = "open"
        RUNNING = "running"
        PAUSED = "paused"
        FINISHED = "finished"
        CANCELLED = "cancelled"

    class Format(models.TextChoices):
        ROUND_ROBIN = "round_robin", "round robin (every table of the field)"
        BALANCED = "balanced", "sampled balanced (every pair meets equally often)"
        SWISS = "swiss", "Swiss rounds (large fields)"

    name = models.CharField(max_length=100, unique=True)
    game = models.CharField(max_length=20, choices=game_choices)
    seats = models.PositiveSmallIntegerField(default=4)
    options = models.JSONField(default=dict, blank=True)
    state = models.CharField(max_length=10, choices=State.choices, default=State.DRAFT)
    format = models.CharField(max_length=12, choices=Format.choices, default=Format.BALANCED)
    rounds = models.PositiveSmallIntegerField(
        default=3, help_text="Balanced: tables per entrant. Swiss: rounds. Ignored by round robin."
    )
    games_per_table = models.PositiveSmallIntegerField(
        default=0, help_text="Games per table (0: one per seat rotation, the duplicate deal)."
    )
    starts_at = models.DateTimeField(null=True, blank=True)
    matches_per_hour = models.PositiveIntegerField(default=60)
    standings = models.JSONField(null=True, blank=True, help_text="Frozen when finished.")
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return self.name


class SeasonEntrant(models.Model):
    season = models.ForeignKey(Season, on_delete=models.CASCADE, related_name="entrants")
    bot_version = models.ForeignKey(
        "BotVersion", null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    builtin = models.CharField(max_length=20, blank=True, help_text="A built-in bot instead.")

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["season", "bot_version"],
                condition=models.Q(bot_version__isnull=False),
                name="season_entrant_version_once",
            ),
            models.UniqueConstraint(
                fields=["season", "builtin"],
                condition=~models.Q(builtin=""),
                name="season_entrant_builtin_once",
            ),
            models.CheckConstraint(
                condition=(
                    models.Q(bot_version__isnull=False, builtin="")
                    | models.Q(bot_version__isnull=True) & ~models.Q(builtin="")
                ),
                name="season_entrant_is_a_version_or_a_builtin",
            ),
        ]

    def __str__(self) -> str:
        return str(self.bot_version) if self.bot_version_id else f"builtin:{self.builtin}"

    @property
    def player(self) -> str:
        return f"v:{self.bot_version_id}" if self.bot_version_id else f"builtin:{self.builtin}"

    def clean(self) -> None:
        from django.core.exceptions import ValidationError

        if bool(self.bot_version_id) == bool(self.builtin):
            raise ValidationError("give exactly one of a bot version or a built-in bot")
        if self.builtin and self.builtin not in BUILTIN_BOTS:
            raise ValidationError(
                {"builtin": f"unknown built-in bot; choose one of {', '.join(BUILTIN_BOTS)}"}
            )


class Fixture(models.Model):
    """One scheduled game of a season: who sits where, on which deal; its match once started."""

    season = models.ForeignKey(Season, on_delete=models.CASCADE, related_name="fixtures")
    round = models.PositiveIntegerField()
    table = models.PositiveIntegerField()
    game_number = models.PositiveSmallIntegerField()
    players = models.JSONField(help_text='Seat order: "v:<version id>" or "builtin:<name>".')
    seed = models.BigIntegerField()
    deal = models.UUIDField(
        null=True,
        blank=True,
        help_text="The table's duplicate deal: its games' matches share this key (Match.deal).",
    )
    match = models.OneToOneField(
        "Match", null=True, blank=True, on_delete=models.SET_NULL, related_name="fixture"
    )

    class Meta:
        ordering = ["season", "round", "table", "game_number"]
        indexes = [
            models.Index(
                fields=["deal"], name="fixture_deal", condition=models.Q(deal__isnull=False)
            )
        ]

    def __str__(self) -> str:
        return f"{self.season} r{self.round} t{self.table} g{self.game_number}"


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


RESULT_TRIGGER = "tournaments_follow_events"
"""The database trigger (migration 0003) that writes every match's result; see Match."""


class Match(models.Model):
    """A match's row: what the site lists and filters. Its events are the stream ``id``.

    No Python code writes a match's result. Appending the ``match_finished`` event (through
    replays.store, whoever appends it: the runner, a test) fires the trigger RESULT_TRIGGER on
    the events table (migration tournaments/0003), which in the same statement sets
    ``status="finished"``, ``outcome``, ``finished_at`` and clears the lease here, and writes
    each seat's ``rank`` and ``score``; every append also sets ``last_version``. So a result is
    read from these rows, and exists exactly when the final event does; reload the row
    (``refresh_from_db``) after an append to see it. Only an aborted match is written from
    Python (tournaments.play.runner: ``status``, ``error``), beside its ``match_aborted`` event.
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
    season = models.ForeignKey(
        Season, null=True, blank=True, on_delete=models.PROTECT, related_name="matches"
    )
    ladder = models.ForeignKey(
        Ladder, null=True, blank=True, on_delete=models.PROTECT, related_name="matches"
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
    validation_of = models.ForeignKey(
        "BotVersion",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="smoke_matches",
        help_text="Set on the smoke match that validated this version.",
    )
    # People's seats (tournaments/play/humans.py): whose decision the match waits for, since which
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
    # A fork replays the first ``forked_at`` events of another match, then plays on.
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
            models.Index(fields=["status"], name="match_status"),
            models.Index(
                fields=["deal"], name="match_deal", condition=models.Q(deal__isnull=False)
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


class Rating(models.Model):
    """A player's live rating in one pool (a ladder, a season, or a game's other rated matches).

    A read model of the event store, written only by ``tournaments.rating.rating_feed``.
    """

    pool = models.CharField(max_length=40)
    player = models.CharField(max_length=40, help_text='"v:<version id>" or "builtin:<name>".')
    ladder = models.ForeignKey(
        Ladder, null=True, blank=True, on_delete=models.CASCADE, related_name="ratings"
    )
    season = models.ForeignKey(
        Season, null=True, blank=True, on_delete=models.CASCADE, related_name="ratings"
    )
    bot_version = models.ForeignKey(
        BotVersion, null=True, blank=True, on_delete=models.CASCADE, related_name="ratings"
    )
    builtin = models.CharField(max_length=20, blank=True)
    mu = models.FloatField()
    sigma = models.FloatField()
    elo = models.FloatField(help_text="Classic multiplayer Elo.")
    rating = models.FloatField(help_text="Plackett-Luce mean on the Elo-like scale.")
    deviation = models.FloatField()
    conservative = models.FloatField(
        help_text="rating - 3 deviation, the conservative estimate (ladders rank by their score, the deviation capped at the field's median: docs/ladders.md)."
    )
    games = models.PositiveIntegerField(default=0)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["pool", "-conservative"]
        constraints = [
            models.UniqueConstraint(fields=["pool", "player"], name="rating_per_pool_player")
        ]

    def __str__(self) -> str:
        return f"{self.player} in {self.pool}: {self.rating:.0f} ± {self.deviation:.0f}"


class RatingHistory(models.Model):
    """One player's rating change from one rated match (charts, the API)."""

    # The key is (match, player): each result counts once, and the key is the backstop of
    # that, so a row needs no id, no sequence and no third index of its own (the rating
    # feed writes four rows a result by the thousand).
    pk = models.CompositePrimaryKey("match", "player")
    # Neither a database foreign key nor an index of its own: the rating feed writes four
    # rows a match by the thousand, and the key's check locked the match row for each of
    # them (a third of the database's work). The rows are derived from events: written
    # only for a match the same transaction has just read, deleted with it by Django's
    # cascade, replaced by `ratings rebuild`. The (match, player) primary key finds them.
    match = models.ForeignKey(
        Match,
        on_delete=models.CASCADE,
        related_name="rating_changes",
        db_constraint=False,
        db_index=False,
    )
    position = models.BigIntegerField(help_text="The match_finished event's feed position.")
    pool = models.CharField(max_length=40)
    player = models.CharField(max_length=40)
    # As for the match: no database key nor index of its own (history is read by pool and
    # player); Django's cascade still deletes the rows with their version.
    bot_version = models.ForeignKey(
        BotVersion,
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="+",
        db_constraint=False,
        db_index=False,
    )
    builtin = models.CharField(max_length=20, blank=True)
    rank = models.PositiveSmallIntegerField()
    mu_before = models.FloatField()
    sigma_before = models.FloatField()
    mu_after = models.FloatField()
    sigma_after = models.FloatField()
    rating_before = models.FloatField()
    rating_after = models.FloatField()
    elo_before = models.FloatField()
    elo_after = models.FloatField()

    class Meta:
        ordering = ["position", "player"]
        indexes = [models.Index(fields=["pool", "player", "position"], name="rating_history_by")]

    def __str__(self) -> str:
        return f"{self.player} {self.rating_before:.0f} -> {self.rating_after:.0f}"

    @property
    def change(self) -> float:
        return self.rating_after - self.rating_before
