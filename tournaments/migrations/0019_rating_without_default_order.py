"""Ratings have no default order: a pool is listed in the ladder's order
(tournaments.rating.ladder_order), and ``pool, -conservative`` was a second one (uncapped,
ties undefined) that any query without its own ORDER BY took, the feed consumer's included.
Model state only: no SQL."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("tournaments", "0018_person_head_start_gap"),
    ]

    operations = [
        migrations.AlterModelOptions(
            name="rating",
            options={},
        ),
    ]
