"""Tables of the event store. Rows are written by ``replays.store`` only."""

from __future__ import annotations

from typing import Any

from django.db import models
from django.db.models.functions import Now


class XID8Field(models.Field):  # type: ignore[type-arg]
    """Postgres ``xid8``: the id of the transaction that wrote the row.

    The global feed compares it with ``pg_snapshot_xmin`` so that it never
    skips an event whose transaction commits after a later position.
    """

    description = "Postgres 64-bit transaction id"

    def db_type(self, connection: Any) -> str:
        return "xid8"


class Event(models.Model):
    """One event of one stream (a match). Append-only: triggers reject UPDATE, DELETE, TRUNCATE.

    Range-partitioned by ``stream_id``, a month of UUIDv7 ids a partition (migrations/0005);
    in the database the primary key is (position, stream_id), positions coming from one
    sequence."""

    position = models.BigAutoField(primary_key=True, help_text="Global order across all streams.")
    event_id = models.UUIDField(help_text="Client-chosen id: a retried append is idempotent.")
    stream_id = models.UUIDField(db_index=False)
    version = models.PositiveIntegerField(help_text="1, 2, 3... within the stream, without gaps.")
    event_type = models.CharField(max_length=64)
    schema_version = models.PositiveSmallIntegerField(default=1)
    payload = models.JSONField()
    metadata = models.JSONField(default=dict, help_text="actor seat, visibility, engine version")
    recorded_at = models.DateTimeField(db_default=Now())
    tx_id = XID8Field(
        db_default=models.Func(function="pg_current_xact_id", output_field=XID8Field()),
        editable=False,
    )

    class Meta:
        db_table = "replays_event"
        constraints = [
            models.UniqueConstraint(
                fields=["stream_id", "version"], name="replays_event_stream_version"
            ),
            # Unique within its stream: a partitioned table's unique keys hold the partition key.
            models.UniqueConstraint(
                fields=["event_id", "stream_id"], name="replays_event_event_id_stream"
            ),
            models.CheckConstraint(
                condition=models.Q(version__gte=1), name="replays_event_version_positive"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.stream_id}#{self.version} {self.event_type}"


class Snapshot(models.Model):
    """A folded state at some version of a stream. Disposable: rebuilt from events at will."""

    stream_id = models.UUIDField()
    version = models.PositiveIntegerField()
    state_version = models.CharField(max_length=64, help_text="Engine/state schema that wrote it.")
    state = models.JSONField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        db_table = "replays_snapshot"
        constraints = [
            models.UniqueConstraint(
                fields=["stream_id", "state_version", "version"], name="replays_snapshot_unique"
            ),
        ]

    def __str__(self) -> str:
        return f"snapshot {self.stream_id}@{self.version} ({self.state_version})"


class FeedCheckpoint(models.Model):
    """How far one read-model consumer has read the global feed."""

    consumer = models.CharField(max_length=100, primary_key=True)
    position = models.BigIntegerField(default=0)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        db_table = "replays_feed_checkpoint"

    def __str__(self) -> str:
        return f"{self.consumer} @ {self.position}"


class ArchiveDictionary(models.Model):
    """A zstd dictionary trained on one game's matches; the archives compressed with it need it
    to decode, so it is never changed or deleted (a trigger rejects both)."""

    game = models.CharField(max_length=64, help_text="The game whose matches it was trained on.")
    content = models.BinaryField()
    digest = models.CharField(
        max_length=64, help_text="sha256 of the content: readers cache the dictionary by it."
    )
    created_at = models.DateTimeField(db_default=Now())

    class Meta:
        db_table = "replays_archive_dictionary"

    def __str__(self) -> str:
        return f"dictionary {self.pk} ({self.game})"


class Archive(models.Model):
    """One compacted stream: its events, versions 1..``last_version``, as one compressed document
    (replays/archive.py). Written only once it decodes to exactly the stream's stored rows; its
    hot rows can then be removed, and no other row of the table can ever be (the append-only
    trigger, migrations/0004_archive.py). Never changed or deleted either."""

    stream_id = models.UUIDField(primary_key=True)
    dictionary = models.ForeignKey(ArchiveDictionary, on_delete=models.PROTECT)
    last_version = models.PositiveIntegerField(help_text="Its events are versions 1..this.")
    first_position = models.BigIntegerField()
    last_position = models.BigIntegerField()
    document = models.BinaryField()
    archived_at = models.DateTimeField(db_default=Now())

    class Meta:
        db_table = "replays_archive"

    def __str__(self) -> str:
        return f"archive {self.stream_id} (1..{self.last_version})"


class ArchivedEvent(models.Model):
    """An archived event of a type readers look up by global position (``match_finished``:
    the ratings read every result in position order), kept whole beside its document."""

    position = models.BigIntegerField(primary_key=True)
    event_id = models.UUIDField()
    stream_id = models.UUIDField()
    version = models.PositiveIntegerField()
    event_type = models.CharField(max_length=64)
    schema_version = models.PositiveSmallIntegerField()
    payload = models.JSONField()
    metadata = models.JSONField()
    recorded_at = models.DateTimeField()

    class Meta:
        db_table = "replays_archived_event"
        indexes = [models.Index(fields=["event_type", "position"], name="replays_archived_by_type")]

    def __str__(self) -> str:
        return f"{self.stream_id}#{self.version} {self.event_type} (archived)"
