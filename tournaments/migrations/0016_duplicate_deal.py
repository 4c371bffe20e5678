"""Duplicate deals: the matches that play one seed (a ladder table's rotations, a season table's
games) share a deal key, and what they dealt stays closed until all of them are over.

The sets still being played when this runs get their key here, so that a rotation finished
before the upgrade does not open while its set-mates play on: a ladder's set is its matches of
one seed, a season's is a table's fixtures (they share the seed) and their matches. A set that
is wholly over needs no key (it opens as any match that is over). The key is derived from the
competition and the seed, so a fixture and its match get the same one.
"""

from django.conf import settings
from django.db import migrations, models

KEY_LADDER_SETS = """
UPDATE tournaments_match SET deal = md5('ladder:' || ladder_id || ':' || seed)::uuid
WHERE ladder_id IS NOT NULL AND (ladder_id, seed) IN (
    SELECT ladder_id, seed FROM tournaments_match
    WHERE ladder_id IS NOT NULL AND status NOT IN ('finished', 'aborted')
)
"""
# A season still playing may yet play any of its fixtures (unplayed ones, void ones re-run).
KEY_SEASON_FIXTURES = """
UPDATE tournaments_fixture f SET deal = md5('season:' || f.season_id || ':' || f.seed)::uuid
FROM tournaments_season s WHERE s.id = f.season_id AND s.state NOT IN ('finished', 'cancelled')
"""
KEY_SEASON_MATCHES = """
UPDATE tournaments_match m SET deal = md5('season:' || m.season_id || ':' || m.seed)::uuid
FROM tournaments_season s WHERE s.id = m.season_id AND s.state NOT IN ('finished', 'cancelled')
"""


class Migration(migrations.Migration):

    dependencies = [
        ('tournaments', '0015_game_choices_from_registry'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AddField(
            model_name='fixture',
            name='deal',
            field=models.UUIDField(blank=True, help_text="The table's duplicate deal: its games' matches share this key (Match.deal).", null=True),
        ),
        migrations.AddField(
            model_name='match',
            name='deal',
            field=models.UUIDField(blank=True, help_text='The duplicate deal (set of matches sharing its seed) it belongs to.', null=True),
        ),
        migrations.AlterField(
            model_name='match',
            name='seed',
            field=models.BigIntegerField(help_text='Hidden from everyone until the match, and every match of its deal, is over.'),
        ),
        migrations.AddIndex(
            model_name='fixture',
            index=models.Index(condition=models.Q(('deal__isnull', False)), fields=['deal'], name='fixture_deal'),
        ),
        migrations.AddIndex(
            model_name='match',
            index=models.Index(condition=models.Q(('deal__isnull', False)), fields=['deal'], name='match_deal'),
        ),
        migrations.RunSQL(
            [KEY_LADDER_SETS, KEY_SEASON_FIXTURES, KEY_SEASON_MATCHES], migrations.RunSQL.noop
        ),
    ]
