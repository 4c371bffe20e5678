"""Rating's rows: live ratings per pool and each rated match's changes, a read model of the
event store's feed (written only by its consumer, ``tournaments.rating.rating_feed``).

A rating names its ladder or season by the model's name ("Ladder", "Season"): rating imports
nothing of competition; its versions and matches are play's.
"""

from __future__ import annotations

from django.db import models

from tournaments.play.models import BotVersion, Match


class Rating(models.Model):
    """A player's live rating in one pool (a ladder, a season, or a game's other rated matches).

    A read model of the event store, written only by ``tournaments.rating.rating_feed``.
    """

    pool = models.CharField(max_length=40)
    player = models.CharField(max_length=40, help_text='"v:<version id>" or "builtin:<name>".')
    ladder = models.ForeignKey(
        "Ladder", null=True, blank=True, on_delete=models.CASCADE, related_name="ratings"
    )
    season = models.ForeignKey(
        "Season", null=True, blank=True, on_delete=models.CASCADE, related_name="ratings"
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
        # No default ordering: a pool's order is the ladder's (tournaments.rating.ladder_order),
        # and a default one would be a second order, ready to be listed by mistake.
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
