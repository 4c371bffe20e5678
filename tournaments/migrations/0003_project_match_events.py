"""A match's row follows its event stream inside the database.

Each append to the events table updates the match's ``last_version``; the
``match_finished`` event also writes the result (status, outcome, the seats'
ranks and scores) in the same statement, so the result exists exactly when,
and only if, the final event does. The runner then needs no statement of its
own to record a built-in match: its one COPY is the whole write.

The trigger belongs to tournaments (the events table knows nothing of
matches); streams that are not matches update nothing.
"""

from django.db import migrations

FORWARD = r"""
CREATE FUNCTION tournaments_follow_events() RETURNS trigger LANGUAGE plpgsql
SET enable_seqscan = off AS $$
DECLARE
    batch record;
BEGIN
    FOR batch IN
        SELECT n.stream_id, max(n.version) AS last_version,
               (array_agg(n.payload) FILTER (WHERE n.event_type = 'match_finished'))[1] AS finished
        FROM new_rows n GROUP BY n.stream_id
    LOOP
        IF batch.finished IS NULL THEN
            UPDATE tournaments_match SET last_version = batch.last_version
            WHERE id = batch.stream_id;
        ELSE
            UPDATE tournaments_match SET
                last_version = batch.last_version,
                status = 'finished',
                outcome = batch.finished -> 'outcome',
                started_at = coalesce(started_at, now()),
                finished_at = now(),
                lease_owner = '',
                lease_expires_at = NULL
            WHERE id = batch.stream_id;
            UPDATE tournaments_seat SET
                rank = (batch.finished #>> ARRAY['outcome', 'ranks', number::text])::int,
                score = (batch.finished #>> ARRAY['outcome', 'scores', number::text])::float8
            WHERE match_id = batch.stream_id;
        END IF;
    END LOOP;
    RETURN NULL;
END $$;

CREATE TRIGGER tournaments_follow_events AFTER INSERT ON replays_event
    REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION tournaments_follow_events();
"""

BACKWARD = r"""
DROP TRIGGER tournaments_follow_events ON replays_event;
DROP FUNCTION tournaments_follow_events();
"""


class Migration(migrations.Migration):
    dependencies = [
        ("tournaments", "0002_match_ids_time_ordered"),
        ("replays", "0003_gap_check_by_index"),
    ]
    operations = [migrations.RunSQL(FORWARD, BACKWARD)]
