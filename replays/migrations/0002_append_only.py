"""The database itself keeps the event store append-only and every stream gap-free.

* UPDATE and DELETE are rejected row by row, always.
* TRUNCATE is rejected unless the session sets ``backroom.allow_event_truncate``
  to ``on``: the one escape hatch, used only to wipe a test database between
  tests (see config/settings/test.py). Production never sets it.
* A statement-level trigger checks, once per INSERT or COPY, that each stream's
  new versions are consecutive and continue from the stored ones; a stale
  writer fails on the unique (stream, version) constraint instead.
"""

from django.db import migrations

FORWARD = r"""
CREATE FUNCTION replays_event_reject_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'TRUNCATE' AND current_setting('backroom.allow_event_truncate', true) = 'on' THEN
        RETURN NULL;
    END IF;
    RAISE EXCEPTION 'replays_event is append-only: % is not allowed', TG_OP
        USING ERRCODE = 'insufficient_privilege';
END $$;

CREATE TRIGGER replays_event_no_update BEFORE UPDATE ON replays_event
    FOR EACH ROW EXECUTE FUNCTION replays_event_reject_change();
CREATE TRIGGER replays_event_no_delete BEFORE DELETE ON replays_event
    FOR EACH ROW EXECUTE FUNCTION replays_event_reject_change();
CREATE TRIGGER replays_event_no_truncate BEFORE TRUNCATE ON replays_event
    FOR EACH STATEMENT EXECUTE FUNCTION replays_event_reject_change();

CREATE FUNCTION replays_event_contiguous() RETURNS trigger LANGUAGE plpgsql AS $$
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

CREATE TRIGGER replays_event_contiguous AFTER INSERT ON replays_event
    REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION replays_event_contiguous();
"""

BACKWARD = r"""
DROP TRIGGER replays_event_contiguous ON replays_event;
DROP FUNCTION replays_event_contiguous();
DROP TRIGGER replays_event_no_truncate ON replays_event;
DROP TRIGGER replays_event_no_delete ON replays_event;
DROP TRIGGER replays_event_no_update ON replays_event;
DROP FUNCTION replays_event_reject_change();
"""


class Migration(migrations.Migration):
    dependencies = [("replays", "0001_initial")]
    operations = [migrations.RunSQL(FORWARD, BACKWARD)]
