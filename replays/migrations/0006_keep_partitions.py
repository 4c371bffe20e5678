"""The events table's partitions are neither dropped nor detached while they hold events.

0005's triggers refuse TRUNCATE of a partition unless an archive covers every one of its rows;
DDL went round them: ``DROP TABLE replays_event_p202503`` or ``ALTER TABLE replays_event DETACH
PARTITION replays_event_p202503`` took its events away, archived or not. Event triggers (the
only triggers DDL fires; creating them takes a superuser) now refuse that:

* ``DROP`` of a table that is a partition of ``replays_event`` at the time, by any command
  (``DROP TABLE``, ``DROP SCHEMA ... CASCADE``, ``DROP OWNED``): once a table is dropped its rows
  can no longer be read to check them, so a partition is detached first and dropped after;
* ``DETACH PARTITION`` of a partition that holds a row no archive covers (the check TRUNCATE of a
  partition makes, ``replays_event_unarchived``), and of the default partition at all: while the
  table has a default partition Postgres refuses ``DETACH ... CONCURRENTLY``, whose first
  transaction commits the partition out of every new query's sight before any check at the end
  of the command could refuse it.

Which tables are the partitions is noted as each DDL command starts
(``backroom.event_partitions``, local to the transaction, set again by every command): after a
drop they are gone from the catalogs, and a detached one no longer says whose it was. The
functions resolve ``replays_event`` with the search path of this migration, not the caller's
(pg_restore, for one, runs with an empty one). Nothing of the archive's path changes: it empties
a partition with TRUNCATE and leaves it attached.
"""

from django.db import migrations

# The first row of a table of events that no archive covers (its version and position), if any:
# what TRUNCATE of a partition and DETACH of one both check.
UNARCHIVED = r"""
CREATE FUNCTION replays_event_unarchived(events regclass, OUT stream uuid, OUT version integer)
LANGUAGE plpgsql STABLE AS $$
BEGIN
    EXECUTE format(
        'SELECT e.stream_id, e.version FROM %s e WHERE NOT EXISTS ('
        ' SELECT 1 FROM replays_archive a WHERE a.stream_id = e.stream_id'
        ' AND e.version <= a.last_version'
        ' AND e.position BETWEEN a.first_position AND a.last_position) LIMIT 1',
        events) INTO stream, version;
END $$;
"""

RELEASE = r"""
CREATE OR REPLACE FUNCTION replays_event_release_partition() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    found record;
BEGIN
    IF current_setting('backroom.allow_event_truncate', true) = 'on' THEN
        RETURN NULL;
    END IF;
    IF current_setting('backroom.compacting', true) = 'on' THEN
        found := replays_event_unarchived(TG_RELID::regclass);
        IF found.stream IS NULL THEN
            RETURN NULL;
        END IF;
        RAISE EXCEPTION 'replays_event is append-only: % holds %#%, which no archive covers',
            TG_TABLE_NAME, found.stream, found.version
            USING ERRCODE = 'insufficient_privilege';
    END IF;
    RAISE EXCEPTION 'replays_event is append-only: TRUNCATE of % is not allowed', TG_TABLE_NAME
        USING ERRCODE = 'insufficient_privilege';
END $$;
"""

GUARDS = r"""
CREATE FUNCTION replays_event_note_partitions() RETURNS event_trigger LANGUAGE plpgsql
SET search_path FROM CURRENT AS $$
BEGIN
    PERFORM set_config('backroom.event_partitions', coalesce((
        SELECT string_agg(i.inhrelid::text, ',') FROM pg_inherits i
        WHERE i.inhparent = to_regclass('replays_event')), ''), true);
END $$;

CREATE FUNCTION replays_event_noted_partitions() RETURNS oid[] LANGUAGE sql STABLE AS $$
    SELECT string_to_array(nullif(current_setting('backroom.event_partitions', true), ''), ',')::oid[]
$$;

CREATE FUNCTION replays_event_keep_partitions() RETURNS event_trigger LANGUAGE plpgsql
SET search_path FROM CURRENT AS $$
DECLARE
    dropped text;
BEGIN
    SELECT string_agg(d.object_identity, ', ') INTO dropped
    FROM pg_event_trigger_dropped_objects() d
    WHERE d.classid = 'pg_class'::regclass AND d.objsubid = 0
      AND d.objid = ANY(replays_event_noted_partitions());
    IF dropped IS NOT NULL THEN
        RAISE EXCEPTION 'replays_event is append-only: DROP of its partition % is not allowed', dropped
            USING ERRCODE = 'insufficient_privilege',
                  HINT = 'Detach it first: DETACH PARTITION is refused while it holds an event no archive covers.';
    END IF;
END $$;

CREATE FUNCTION replays_event_check_detached() RETURNS event_trigger LANGUAGE plpgsql
SET search_path FROM CURRENT AS $$
DECLARE
    events regclass := to_regclass('replays_event');
    detached regclass;
    found record;
BEGIN
    IF events IS NULL THEN
        RETURN;
    END IF;
    IF (SELECT p.partdefid FROM pg_partitioned_table p WHERE p.partrelid = events) = 0 THEN
        RAISE EXCEPTION 'replays_event keeps its default partition: DETACH of it is not allowed'
            USING ERRCODE = 'insufficient_privilege',
                  HINT = 'Without one, Postgres would allow DETACH PARTITION ... CONCURRENTLY, which no check can refuse in time.';
    END IF;
    FOR detached IN
        SELECT c.oid::regclass FROM pg_class c
        WHERE c.oid = ANY(replays_event_noted_partitions())
          AND NOT EXISTS (SELECT 1 FROM pg_inherits i
                          WHERE i.inhrelid = c.oid AND i.inhparent = events)
    LOOP
        found := replays_event_unarchived(detached);
        IF found.stream IS NOT NULL THEN
            RAISE EXCEPTION 'replays_event is append-only: DETACH of % is not allowed: it holds %#%, which no archive covers',
                detached, found.stream, found.version
                USING ERRCODE = 'insufficient_privilege';
        END IF;
    END LOOP;
END $$;

CREATE EVENT TRIGGER replays_event_note_partitions ON ddl_command_start
    EXECUTE FUNCTION replays_event_note_partitions();
CREATE EVENT TRIGGER replays_event_keep_partitions ON sql_drop
    EXECUTE FUNCTION replays_event_keep_partitions();
CREATE EVENT TRIGGER replays_event_check_detached ON ddl_command_end WHEN TAG IN ('ALTER TABLE')
    EXECUTE FUNCTION replays_event_check_detached();
"""

FORWARD = UNARCHIVED + RELEASE + GUARDS

# 0005's function as it was, before the check moved into replays_event_unarchived.
BACKWARD = r"""
DROP EVENT TRIGGER replays_event_check_detached;
DROP EVENT TRIGGER replays_event_keep_partitions;
DROP EVENT TRIGGER replays_event_note_partitions;
DROP FUNCTION replays_event_check_detached();
DROP FUNCTION replays_event_keep_partitions();
DROP FUNCTION replays_event_noted_partitions();
DROP FUNCTION replays_event_note_partitions();
CREATE OR REPLACE FUNCTION replays_event_release_partition() RETURNS trigger LANGUAGE plpgsql AS $$
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
DROP FUNCTION replays_event_unarchived(regclass);
"""


class Migration(migrations.Migration):
    dependencies = [("replays", "0005_partition_events")]
    operations = [migrations.RunSQL(FORWARD, BACKWARD)]
