"""The events table becomes range-partitioned by stream id: one partition a month, and a default.

Stream ids are UUIDv7 (match ids): their first 48 bits are the millisecond they were made, and
Postgres compares uuids byte by byte, so a range of stream ids is a range of time and a
match's events all sit in the partition of the month it was created. A month's partition is
``replays_event_pYYYYMM`` (UTC); ids of no month's partition (another UUID version, or a month
nobody created ahead of time) go to ``replays_event_default``. ``replays_event_add_partitions``
creates the current month's and the next ones' ahead of time (beat every hour, and ``manage.py archive``):
creating a month's partition is refused once the default partition holds rows of that month.

What stays as it was:

* every trigger of the table (append-only, gap-free versions, the results' projection) is
  recreated on the partitioned table as it is defined when this migration runs: row triggers
  are cloned onto each partition, and statement triggers fire for statements on the parent,
  which is where the store writes;
* (stream_id, version) is unique: it holds the partition key;
* positions keep coming from one sequence, continuing where the old table's stopped.

What changes, because a partitioned table's unique indexes must hold its partition key:

* the primary key is (position, stream_id): positions are unique because one identity
  sequence hands them out, and the index serves the feed's reads in position order;
* an event id is unique within its stream, (event_id, stream_id): an idempotent retry
  re-appends the same stream, and its lookup still leads on the event id.

A partition can be emptied whole (TRUNCATE of that partition, by the archive only: a
session that sets ``backroom.compacting`` to ``on``) once every one of its rows is covered by
its stream's archive; otherwise, as for the parent, TRUNCATE is refused unless the test
database's escape hatch is set (``replays_event_release_partition``, a trigger each partition
gets when it is created). Rows are moved by this migration into the partitioned table before
its triggers exist, so that moving them projects nothing again.
"""

from django.db import migrations, models

# Every partition's guard on TRUNCATE (``%I``: the partition), made by ``add_partition`` and
# for the default partition.
_RELEASE_TRIGGER = (
    "CREATE TRIGGER replays_event_release_partition BEFORE TRUNCATE ON %I"
    " FOR EACH STATEMENT EXECUTE FUNCTION replays_event_release_partition()"
)

# ``stream_bound``: the smallest UUIDv7 of a moment (its millisecond, then zeros).
FUNCTIONS = (
    r"""
CREATE FUNCTION replays_event_stream_bound(at timestamptz) RETURNS uuid
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT (lpad(to_hex(floor(extract(epoch FROM at) * 1000)::bigint), 12, '0')
            || '00000000000000000000')::uuid
$$;

CREATE FUNCTION replays_event_release_partition() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    stream uuid;
    missing integer;
BEGIN
    IF current_setting('backroom.allow_event_truncate', true) = 'on' THEN
        RETURN NULL;
    END IF;
    IF current_setting('backroom.compacting', true) = 'on' THEN
        EXECUTE format(
            'SELECT e.stream_id, e.version FROM %I.%I e WHERE NOT EXISTS ('
            ' SELECT 1 FROM replays_archive a WHERE a.stream_id = e.stream_id'
            ' AND e.version <= a.last_version'
            ' AND e.position BETWEEN a.first_position AND a.last_position) LIMIT 1',
            TG_TABLE_SCHEMA, TG_TABLE_NAME) INTO stream, missing;
        IF stream IS NULL THEN
            RETURN NULL;
        END IF;
        RAISE EXCEPTION 'replays_event is append-only: % holds %#%, which no archive covers',
            TG_TABLE_NAME, stream, missing
            USING ERRCODE = 'insufficient_privilege';
    END IF;
    RAISE EXCEPTION 'replays_event is append-only: TRUNCATE of % is not allowed', TG_TABLE_NAME
        USING ERRCODE = 'insufficient_privilege';
END $$;

CREATE FUNCTION replays_event_add_partition(month date) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    first_day date := date_trunc('month', month)::date;
    partition_name text := 'replays_event_p' || to_char(first_day, 'YYYYMM');
BEGIN
    IF EXISTS (SELECT 1 FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
               WHERE i.inhparent = 'replays_event'::regclass AND c.relname = partition_name) THEN
        RETURN NULL;
    END IF;
    EXECUTE format('CREATE TABLE %I PARTITION OF replays_event FOR VALUES FROM (%L) TO (%L)',
        partition_name,
        replays_event_stream_bound(first_day::timestamp AT TIME ZONE 'UTC'),
        replays_event_stream_bound((first_day + interval '1 month')::timestamp AT TIME ZONE 'UTC'));
    EXECUTE format('""" + _RELEASE_TRIGGER + r"""', partition_name);
    RETURN partition_name;
END $$;

CREATE FUNCTION replays_event_add_partitions(ahead integer) RETURNS SETOF text
LANGUAGE plpgsql AS $$
DECLARE
    month date;
    made text;
BEGIN
    FOR month IN
        SELECT generate_series(date_trunc('month', now() AT TIME ZONE 'UTC'),
                               date_trunc('month', now() AT TIME ZONE 'UTC')
                               + make_interval(months => ahead), interval '1 month')::date
    LOOP
        BEGIN
            made := replays_event_add_partition(month);
        EXCEPTION WHEN check_violation THEN
            -- Its rows went to the default partition already; they stay readable there.
            RAISE WARNING 'replays_event: the default partition holds rows of %; not partitioned',
                to_char(month, 'YYYY-MM');
            made := NULL;
        END;
        IF made IS NOT NULL THEN
            RETURN NEXT made;
        END IF;
    END LOOP;
END $$;
"""
)

# The other apps' triggers and indexes on the table (the results' projection, the ratings'
# index of finished events) are recreated from their definitions as they stand.
_TRIGGERS_AND_INDEXES = r"""
    SELECT array_agg(d ORDER BY step) INTO ddl FROM (
        SELECT replace(pg_get_indexdef(i.indexrelid), ' ON ONLY ', ' ON ') AS d, 1 AS step
        FROM pg_index i
        WHERE i.indrelid = 'replays_event'::regclass
          AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = i.indexrelid)
        UNION ALL
        SELECT pg_get_triggerdef(t.oid), 2 FROM pg_trigger t
        WHERE t.tgrelid = 'replays_event'::regclass AND NOT t.tgisinternal) found;
    EXECUTE format('SELECT CASE WHEN is_called THEN last_value + 1 ELSE last_value END FROM %s',
        pg_get_serial_sequence('replays_event', 'position')) INTO next_position;
    ALTER TABLE replays_event RENAME TO replays_event_moving;
"""



def _recreate(keys: str) -> str:
    """The moved table under its name, with its keys, its sequence where it was, and the
    indexes and triggers of the old one."""
    return (
        r"""
    DROP TABLE replays_event_moving;
    ALTER TABLE replays_event_new RENAME TO replays_event;
    ALTER TABLE replays_event """
        + keys
        + r""";
    EXECUTE format('ALTER SEQUENCE %s RENAME TO replays_event_position_seq',
        pg_get_serial_sequence('replays_event', 'position'));
    EXECUTE format('ALTER TABLE replays_event ALTER COLUMN position RESTART WITH %s', next_position);
    ALTER TABLE replays_event ADD CONSTRAINT replays_event_stream_version
        UNIQUE (stream_id, version);
    FOREACH statement IN ARRAY coalesce(ddl, '{}') LOOP
        EXECUTE statement;
    END LOOP;
"""
    )

_LIKE = (
    "CREATE TABLE replays_event_new (LIKE replays_event_moving INCLUDING DEFAULTS"
    " INCLUDING CONSTRAINTS INCLUDING IDENTITY INCLUDING STORAGE INCLUDING COMPRESSION)"
)

FORWARD = (
    r"""
DO $$
DECLARE
    ddl text[];
    statement text;
    next_position bigint;
    month date;
BEGIN
"""
    + _TRIGGERS_AND_INDEXES
    + f"    {_LIKE} PARTITION BY RANGE (stream_id);"
    + r"""
    CREATE TABLE replays_event_default PARTITION OF replays_event_new DEFAULT;
    EXECUTE format('""" + _RELEASE_TRIGGER + r"""', 'replays_event_default');
    -- Partitions for the months the stored streams were made in (UUIDv7 ids only).
    ALTER TABLE replays_event_new RENAME TO replays_event;
    FOR month IN
        SELECT DISTINCT date_trunc('month', to_timestamp(
            ('x' || substr(replace(stream_id::text, '-', ''), 1, 12))::bit(48)::bigint / 1000.0)
            AT TIME ZONE 'UTC')::date
        FROM replays_event_moving WHERE substr(stream_id::text, 15, 1) = '7'
    LOOP
        CONTINUE WHEN month > now() + interval '1 year';
        PERFORM replays_event_add_partition(month);
    END LOOP;
    PERFORM replays_event_add_partitions(2);
    ALTER TABLE replays_event RENAME TO replays_event_new;
    INSERT INTO replays_event_new SELECT * FROM replays_event_moving;
"""
    + _recreate(
        "ADD CONSTRAINT replays_event_pkey PRIMARY KEY (position, stream_id),"
        " ADD CONSTRAINT replays_event_event_id_stream UNIQUE (event_id, stream_id)"
    )
    + "END $$;"
)

BACKWARD = (
    r"""
DO $$
DECLARE
    ddl text[];
    statement text;
    next_position bigint;
BEGIN
"""
    + _TRIGGERS_AND_INDEXES
    + f"    {_LIKE};"
    + r"""
    INSERT INTO replays_event_new SELECT * FROM replays_event_moving;
"""
    + _recreate(
        "ADD CONSTRAINT replays_event_pkey PRIMARY KEY (position),"
        " ADD CONSTRAINT replays_event_event_id_key UNIQUE (event_id)"
    )
    + r"""
END $$;
DROP FUNCTION replays_event_add_partitions(integer);
DROP FUNCTION replays_event_add_partition(date);
DROP FUNCTION replays_event_release_partition();
DROP FUNCTION replays_event_stream_bound(timestamptz);
"""
)


class Migration(migrations.Migration):
    dependencies = [
        ("replays", "0004_archive"),
        # Their trigger and index on the table are moved with it.
        ("tournaments", "0026_list_indexes"),
    ]

    operations = [
        migrations.RunSQL(FUNCTIONS, migrations.RunSQL.noop),
        migrations.SeparateDatabaseAndState(
            database_operations=[migrations.RunSQL(FORWARD, BACKWARD)],
            state_operations=[
                migrations.AlterField(
                    model_name="event",
                    name="event_id",
                    field=models.UUIDField(
                        help_text="Client-chosen id: a retried append is idempotent."
                    ),
                ),
                migrations.AddConstraint(
                    model_name="event",
                    constraint=models.UniqueConstraint(
                        fields=("event_id", "stream_id"), name="replays_event_event_id_stream"
                    ),
                ),
            ],
        ),
    ]
