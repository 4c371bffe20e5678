"""Diagnostics for the owner: each log line's verdict, and each version's smoke match.

Existing log lines get their verdict from the bot_verdict event of the same seat
and step, which the match driver records right after the decision (version step + 1).
"""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('tournaments', '0004_lean_result_writes'),
        ('replays', '0003_gap_check_by_index'),
    ]

    operations = [
        migrations.AddField(
            model_name='botlog',
            name='verdict',
            field=models.CharField(blank=True, help_text="The verdict on that decision ('' for lines written outside one).", max_length=20),
        ),
        migrations.AddField(
            model_name='match',
            name='validation_of',
            field=models.ForeignKey(blank=True, help_text='Set on the smoke match that validated this version.', null=True, on_delete=django.db.models.deletion.PROTECT, related_name='smoke_matches', to='tournaments.botversion'),
        ),
        migrations.AlterField(
            model_name='botlog',
            name='version',
            field=models.PositiveIntegerField(help_text='The step: stream version at the decision.'),
        ),
        migrations.AlterField(
            model_name='match',
            name='error',
            field=models.TextField(blank=True, help_text="Why it was aborted; shown to its seats' owners and staff only."),
        ),
        migrations.RunSQL(
            """
            UPDATE tournaments_botlog AS l SET verdict = e.payload->>'verdict'
            FROM replays_event AS e
            WHERE e.stream_id = l.match_id AND e.version = l.version + 1
              AND e.event_type = 'bot_verdict' AND (e.payload->>'seat')::int = l.seat
            """,
            migrations.RunSQL.noop,
        ),
    ]
