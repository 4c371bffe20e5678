"""Competition's rows: ladders and their rounds, seasons, their entrants and fixtures.

A fixture names its match by the model's name ("Match"); the game fields take play's choices.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models

from tournaments.play.models import BUILTIN_BOTS, game_choices


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
        default=3,
        help_text=(
            "Balanced and Swiss: how many rounds. Each round seats every entrant at one table"
            " except those left over when the field does not fill whole tables, who sit that"
            " round out (balanced: those who have sat out least; Swiss: the lowest rated, in"
            " turn). So 5 entrants at 3 seats play one table a round, and 2 rounds give one"
            " entrant 2 tables and the others 1. Ignored by round robin."
        ),
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


class Series(models.Model):
    """An account's unrated series: its players play ``deals`` duplicate deals, each once per
    seat rotation; or, with a ``test`` block, a sequential A/B test of a candidate against a
    baseline on pairs of twin games (tournaments/competition/series.py, docs/ab-tests.md).

    Its matches (``Match.series``) are the owner's (``created_by``), created a few at a time as
    earlier ones finish, so they share the workers as the owner's challenges do. Players are
    play's keys, ``"v:<version id>"`` or ``"builtin:<name>"``, in table order.
    """

    class State(models.TextChoices):
        RUNNING = "running"
        FINISHED = "finished"
        CANCELLED = "cancelled"

    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="series"
    )
    name = models.CharField(max_length=100, blank=True)
    game = models.CharField(max_length=20, choices=game_choices)
    seats = models.PositiveSmallIntegerField()
    players = models.JSONField(
        default=list, blank=True, help_text="A plain series' table, in seat order (play's keys)."
    )
    deals = models.PositiveIntegerField(
        help_text="Deals to play (a plain series); an A/B test's pairs cap is its test's."
    )
    options = models.JSONField(default=dict, blank=True)
    state = models.CharField(max_length=10, choices=State.choices, default=State.RUNNING)
    test = models.JSONField(
        null=True,
        blank=True,
        help_text="An A/B test: candidate, baseline, field, elo0, elo1, alpha, beta, max_games.",
    )
    deals_started = models.PositiveIntegerField(
        default=0, help_text="Deals whose matches were created so far."
    )
    verdict = models.CharField(
        max_length=10, blank=True, help_text="An A/B test's verdict: H0, H1 or cap."
    )
    decided_pairs = models.PositiveIntegerField(
        null=True, blank=True, help_text="The pairs the verdict was reached on, in finishing order."
    )
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        verbose_name_plural = "series"

    def __str__(self) -> str:
        return self.name or f"series {self.pk}"
