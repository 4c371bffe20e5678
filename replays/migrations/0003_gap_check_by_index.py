"""The gap check looks up each stream's previous version by its index, whatever the statistics say.

The first version of the check joined the statement's new rows with the whole
table in one query. PL/pgSQL plans such a query once per session; planned while
the table was still small, the plan scanned the table, and it kept scanning it
for the life of a worker's connection as the table grew. Now each stream in the
statement (usually one) is checked with a lookup by (stream, version).
"""

from django.db import migrations

FORWARD = r"""
CREATE OR REPLACE FUNCTION replays_event_contiguous() RETURNS trigger LANGUAGE plpgsql
SET enable_seqscan = off AS $$
DECLARE
    batch record;
BEGIN
    FOR batch IN
        SELECT n.stream_id, min(n.version) AS first_version, max(n.version) AS last_version, count(*) AS size
        FROM new_rows n GROUP BY n.stream_id
    LOOP
        IF batch.last_version - batch.first_version + 1 <> batch.size
           OR (batch.first_version > 1 AND NOT EXISTS (
                SELECT 1 FROM replays_event e
                WHERE e.stream_id = batch.stream_id AND e.version = batch.first_version - 1)) THEN
            RAISE EXCEPTION 'stream % would have a gap before version %', batch.stream_id, batch.first_version
                USING ERRCODE = 'P0001', HINT = 'backroom:gap';
        END IF;
    END LOOP;
    RETURN NULL;
END $$;
"""

BACKWARD = r"""
CREATE OR REPLACE FUNCTION replays_event_contiguous() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    bad record;
BEGIN
    SELECT n.stream_id, min(n.version) AS first_version INTO bad
    FROM new_rows n
    GROUP BY n.stream_id
    HAVING max(n.version) - min(n.version) + 1 <> count(*)
        OR (min(n.version) > 1 AND NOT EXISTS (
            SELECT 1 FROM replays_event e
            WHERE e.stream_id = n.stream_id AND e.version = min(n.version) - 1))
    LIMIT 1;
    IF FOUND THEN
        RAISE EXCEPTION 'stream % would have a gap before version %', bad.stream_id, bad.first_version
            USING ERRCODE = 'P0001', HINT = 'backroom:gap';
    END IF;
    RETURN NULL;
END $$;
"""


class Migration(migrations.Migration):
    dependencies = [("replays", "0002_append_only")]
    operations = [migrations.RunSQL(FORWARD, BACKWARD)]
