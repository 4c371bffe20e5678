"""Cheaper result and heartbeat writes on matches and seats.

The final event's trigger updates a match and its seats, and every flush of a
sandboxed match updates the match (lease, progress): free space left in each page
lets updates that touch no indexed column stay on the page (HOT) without new index
entries, and two indexes that nothing reads are dropped (a LIKE index on status,
and seat.match_id, covered by the unique (match, number) index).
"""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('tournaments', '0003_project_match_events'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AlterField(
            model_name='match',
            name='status',
            field=models.CharField(choices=[('queued', 'Queued'), ('running', 'Running'), ('finished', 'Finished'), ('aborted', 'Aborted')], default='queued', max_length=10),
        ),
        migrations.AlterField(
            model_name='seat',
            name='match',
            field=models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.CASCADE, related_name='seats', to='tournaments.match'),
        ),
        migrations.AddIndex(
            model_name='match',
            index=models.Index(fields=['status'], name='match_status'),
        ),
        migrations.RunSQL(
            "ALTER TABLE tournaments_match SET (fillfactor = 80);"
            " ALTER TABLE tournaments_seat SET (fillfactor = 80);",
            "ALTER TABLE tournaments_match RESET (fillfactor);"
            " ALTER TABLE tournaments_seat RESET (fillfactor);",
        ),
    ]
