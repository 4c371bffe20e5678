"""A write straight into a partition is checked as one through the events table.

Statement triggers fire only for statements on the table they are on: the gap check
(``replays_event_contiguous``) and the results' projection (``tournaments_follow_events``)
are on ``replays_event``, so an ``INSERT`` or ``COPY`` naming a partition went round both (the
store never writes there; anyone with the database could). Each partition now gets its own
copy of every statement trigger the table has on INSERT (``replays_event_adopt``), made with the
partition (``replays_event_add_partition``) and here for those that exist. Postgres fires a
statement's triggers on the table the statement names only, so no write is checked twice.

The column ``position`` draws from the table's identity sequence only for a row written through
the table; each partition gets it as its default too, so that a row written straight into a
partition is numbered like any other (a partition's own column has no identity to draw from).

A statement trigger added to ``replays_event`` later must reach the partitions as well: its
migration calls ``replays_event_adopt`` on each (tests/replays/test_partitions.py fails
otherwise).
"""

from django.db import migrations

ADOPT = r"""
CREATE FUNCTION replays_event_adopt(part regclass) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    t record;
BEGIN
    -- (A Postgres whose partitions share the table's identity, 17 on, needs no default.)
    IF NOT EXISTS (SELECT 1 FROM pg_attribute a WHERE a.attrelid = part
                   AND a.attname = 'position' AND a.attidentity <> '') THEN
        EXECUTE format('ALTER TABLE %s ALTER COLUMN position SET DEFAULT nextval(%L::regclass)',
            part, pg_get_serial_sequence('replays_event', 'position'));
    END IF;
    FOR t IN
        SELECT p.tgname, p.tgfoid::regproc AS fn, p.tgnewtable, p.tgnargs, p.tgqual
        FROM pg_trigger p
        WHERE p.tgrelid = 'replays_event'::regclass AND NOT p.tgisinternal
          -- statement-level (bit 0 clear), AFTER (bits 1 and 6 clear), on INSERT (bit 2)
          AND p.tgtype & 1 = 0 AND p.tgtype & 2 = 0 AND p.tgtype & 64 = 0 AND p.tgtype & 4 <> 0
          AND NOT EXISTS (SELECT 1 FROM pg_trigger c WHERE c.tgrelid = part AND c.tgname = p.tgname)
    LOOP
        IF t.tgnargs > 0 OR t.tgqual IS NOT NULL THEN
            -- Copied by its name, function and transition table only: a trigger with more
            -- would be copied wrong, so it is refused until this function learns it.
            RAISE EXCEPTION 'replays_event_adopt cannot copy trigger % (it has arguments or a WHEN clause)',
                t.tgname;
        END IF;
        EXECUTE format('CREATE TRIGGER %I AFTER INSERT ON %s%s FOR EACH STATEMENT EXECUTE FUNCTION %s()',
            t.tgname, part,
            CASE WHEN t.tgnewtable IS NULL THEN ''
                 ELSE format(' REFERENCING NEW TABLE AS %I', t.tgnewtable) END,
            t.fn);
    END LOOP;
END $$;
"""

# replays_event_add_partition as 0005 made it, and with the adoption (``%s``: what follows the
# partition's TRUNCATE guard).
_ADD_PARTITION = r"""
CREATE OR REPLACE FUNCTION replays_event_add_partition(month date) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    first_day date := date_trunc('month', month)::date;
    partition_name text := 'replays_event_p' || to_char(first_day, 'YYYYMM');
BEGIN
    IF EXISTS (SELECT 1 FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
               WHERE i.inhparent = 'replays_event'::regclass AND c.relname = partition_name) THEN
        RETURN NULL;
    END IF;
    EXECUTE format('CREATE TABLE %%I PARTITION OF replays_event FOR VALUES FROM (%%L) TO (%%L)',
        partition_name,
        replays_event_stream_bound(first_day::timestamp AT TIME ZONE 'UTC'),
        replays_event_stream_bound((first_day + interval '1 month')::timestamp AT TIME ZONE 'UTC'));
    EXECUTE format('CREATE TRIGGER replays_event_release_partition BEFORE TRUNCATE ON %%I FOR EACH STATEMENT EXECUTE FUNCTION replays_event_release_partition()', partition_name);
%s    RETURN partition_name;
END $$;
"""

FORWARD = (
    ADOPT
    + _ADD_PARTITION % "    PERFORM replays_event_adopt(partition_name::regclass);\n"
    + r"""
SELECT replays_event_adopt(i.inhrelid::regclass)
FROM pg_inherits i WHERE i.inhparent = 'replays_event'::regclass;
"""
)

BACKWARD = (
    r"""
DO $$
DECLARE
    part regclass;
    t record;
BEGIN
    FOR part IN SELECT i.inhrelid::regclass FROM pg_inherits i
                WHERE i.inhparent = 'replays_event'::regclass LOOP
        FOR t IN SELECT p.tgname FROM pg_trigger p
                 WHERE p.tgrelid = 'replays_event'::regclass AND NOT p.tgisinternal
                   AND p.tgtype & 1 = 0 AND p.tgtype & 4 <> 0 LOOP
            EXECUTE format('DROP TRIGGER IF EXISTS %I ON %s', t.tgname, part);
        END LOOP;
        IF NOT EXISTS (SELECT 1 FROM pg_attribute a WHERE a.attrelid = part
                       AND a.attname = 'position' AND a.attidentity <> '') THEN
            EXECUTE format('ALTER TABLE %s ALTER COLUMN position DROP DEFAULT', part);
        END IF;
    END LOOP;
END $$;
DROP FUNCTION replays_event_adopt(regclass);
"""
    + _ADD_PARTITION % ""
)


class Migration(migrations.Migration):
    dependencies = [("replays", "0006_keep_partitions")]
    operations = [migrations.RunSQL(FORWARD, BACKWARD)]
