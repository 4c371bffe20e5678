"""A match table of a chosen size, filled in SQL: what `bench lists` and `bench endpoints` read.

The rows are made by ``INSERT ... SELECT`` over ``generate_series`` inside Postgres (a million
matches and three million seats in a minute or two on the shared VM, nothing sent over the
wire), shaped like a platform that has run for a while: two games, mostly finished matches and a
few running, queued and aborted ones, a third of them ladder matches, a sixth season matches, one
in a hundred a smoke match (private to its bot's owner), a third in a duplicate deal, one uploaded bot's seat in each match
beside two built-ins. Ids are UUIDv7 made from each row's ``created_at``, as the platform's are.

``extend`` adds rows *older* than every row already there, so the newest pages of every list show
the same matches at every size: what changes between sizes is only the table underneath.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from typing import Any

from django.contrib.auth import get_user_model
from django.db import connection

from tournaments.competition.models import Ladder, Season
from tournaments.play.models import Bot, BotVersion
from tournaments.rating.models import Rating

LIVE = 5_000
"""Only the newest matches may still be queued or running: the matches not over are bounded by
the workers' pace, not by how many were ever played."""
BOTS = 40
"""Uploaded bots (20 a game), two versions each; every tenth is private."""
GROWN = ("match", "seat", "fault", "faultcount")
"""The tables ``extend`` writes (tournaments_<name>); the others are the cast's."""
TABLES_READ = (*GROWN, "fixture", "season", "ladder", "bot", "botversion")


@dataclass
class Cast:
    """What the filled rows refer to: the filters' targets, and an owner to log in as."""

    owner: Any
    bots: list[int]
    private_bot: int
    ladders: list[int]
    seasons: list[int]
    versions: list[int]


def cast(run: str) -> Cast:
    """Accounts, bots and their versions, a ladder and a season per game, ladder ratings."""
    owner = get_user_model().objects.create_user(
        username=f"{run}-owner", password=secrets.token_urlsafe(16)
    )
    others = get_user_model().objects.create_user(
        username=f"{run}-other", password=secrets.token_urlsafe(16)
    )
    bots = Bot.objects.bulk_create(
        Bot(
            owner=owner if n % 2 else others,
            name=f"bench-{n}",
            game="brexit" if n % 2 == 0 else "brasilis",
            is_public=n % 10 != 9,
        )
        for n in range(BOTS)
    )
    versions = BotVersion.objects.bulk_create(
        BotVersion(
            bot=bot,
            number=number,
            filename="bot.py",
            upload=b"def act(o, l): return l['actions'][0]\n",
            sha256="0" * 64,
            size=40,
            status=BotVersion.Status.READY,
        )
        for bot in bots
        for number in (1, 2)
    )
    ladders = [
        Ladder.objects.create(name=f"{run} {game}", game=game, seats=3, builtins=["random"])
        for game in ("brexit", "brasilis")
    ]
    seasons = [
        Season.objects.create(name=f"{run} {game}", game=game, seats=3, state="running")
        for game in ("brexit", "brasilis")
    ]
    Rating.objects.bulk_create(
        Rating(
            pool=f"ladder:{ladder.pk}",
            player=f"v:{version.pk}",
            ladder=ladder,
            bot_version=version,
            mu=25.0,
            sigma=3.0 + n % 5,
            elo=1500.0 + n,
            rating=1500.0 + 7 * n,
            deviation=100.0 + n,
            conservative=1200.0 + 7 * n,
            games=5 + n,
        )
        for ladder in ladders
        for n, version in enumerate(v for v in versions if v.bot.game == ladder.game)
    )
    return Cast(
        owner=owner,
        bots=[b.pk for b in bots],
        private_bot=bots[9].pk,
        ladders=[lad.pk for lad in ladders],
        seasons=[s.pk for s in seasons],
        versions=[v.pk for v in versions],
    )


def extend(the_cast: Cast, first: int, count: int) -> None:
    """Matches number ``first`` to ``first + count - 1``, counted back from the newest (0): match
    n was made n seconds before the newest, so a larger n is older. Then ANALYZE."""
    if count <= 0:
        return
    versions = the_cast.versions
    ladders, seasons = the_cast.ladders, the_cast.seasons
    with connection.cursor() as cur:
        cur.execute(
            """
            INSERT INTO tournaments_match (
                id, game, options, seed, status, rated, created_at, started_at, finished_at,
                lease_owner, attempts, last_version, outcome, error, ladder_id, season_id,
                validation_of_id, created_by_id, deal
            )
            SELECT
                (lpad(to_hex((extract(epoch FROM made) * 1000)::bigint), 12, '0') || '7'
                 || substr(h, 1, 3) || '8' || substr(h, 4, 15))::uuid,
                CASE WHEN n %% 2 = 0 THEN 'brexit' ELSE 'brasilis' END,
                '{}'::jsonb, n, status, n %% 3 = 0, made, made,
                CASE WHEN status = 'finished' THEN made + 30 * interval '1 second' END,
                '', 1, CASE WHEN status = 'queued' THEN 0 ELSE 150 END,
                CASE WHEN status = 'finished' THEN '{"scores": [3, 2, 1], "ranks": [1, 2, 3]}'::jsonb END, '',
                CASE WHEN n %% 3 = 0 THEN (%(ladders)s::bigint[])[1 + n %% 2] END,
                CASE WHEN n %% 6 IN (1, 2) THEN (%(seasons)s::bigint[])[1 + n %% 2] END,
                CASE WHEN n %% 100 = 50 THEN (%(versions)s::bigint[])[1 + n %% %(nversions)s] END,
                %(owner)s,
                CASE WHEN n %% 3 = 0 THEN md5('deal' || (n / 9)::text)::uuid END
            FROM (
                SELECT n, timestamptz '2026-12-01 00:00:00+00' - n * interval '1 second' AS made,
                       md5(n::text) AS h,
                       CASE WHEN n < %(live)s AND n %% 97 = 5 THEN 'running'
                            WHEN n < %(live)s AND n %% 89 = 7 THEN 'queued'
                            WHEN n %% 53 = 3 THEN 'aborted' ELSE 'finished' END AS status
                FROM generate_series(%(first)s::bigint, %(last)s::bigint) AS n
            ) AS made
            """,
            {
                "first": first,
                "last": first + count - 1,
                "ladders": ladders,
                "seasons": seasons,
                "versions": versions,
                "nversions": len(versions),
                "owner": the_cast.owner.pk,
                "live": LIVE,
            },
        )
        # Seat 0 an uploaded bot of the match's game (bots alternate games with their index,
        # two versions each), seats 1 and 2 built-ins. The bot's seat carries its bot and its
        # match's creation time, as the platform's trigger copies them (migration 0027; a
        # table copied for `bench lists` has no trigger), and one in 101 received a timeout.
        cur.execute(
            """
            INSERT INTO tournaments_seat (
                match_id, number, builtin, rank, verdicts, strikes, disqualified, time_used_ms,
                bot_version_id, bot_id, match_created_at
            )
            SELECT m.id, s.number, CASE WHEN s.number = 0 THEN '' ELSE 'random' END,
                   CASE WHEN m.status = 'finished' THEN s.number + 1 END,
                   CASE WHEN s.number = 0 AND m.seed %% 101 = 0 THEN '{"timeout": 1}'::jsonb
                        ELSE '{}'::jsonb END,
                   0, false, 0, v.id, v.bot_id, CASE WHEN v.id IS NOT NULL THEN m.created_at END
            FROM tournaments_match m CROSS JOIN generate_series(0, 2) AS s(number)
            LEFT JOIN tournaments_botversion v ON s.number = 0 AND v.id = (%(versions)s::bigint[])[
                1 + 4 * ((m.seed / 2) %% (%(nbots)s / 2)) + 2 * (m.seed %% 2) + (m.seed / 7) %% 2]
            WHERE m.created_by_id = %(owner)s AND m.seed BETWEEN %(first)s AND %(last)s
            """,
            {
                "first": first,
                "last": first + count - 1,
                "versions": versions,
                "nbots": BOTS,
                "owner": the_cast.owner.pk,
            },
        )
        # Each timeout a fault's row, and the bots' running counts made again from them (the
        # fault table's triggers kept them already, but a copied table has none).
        cur.execute(
            """
            INSERT INTO tournaments_fault (
                bot_id, bot_version_id, match_id, seat, step, asked_step, verdict, detail,
                created_at
            )
            SELECT s.bot_id, s.bot_version_id, s.match_id, s.number, 10, 9, 'timeout', '',
                   s.match_created_at
            FROM tournaments_seat s JOIN tournaments_match m ON m.id = s.match_id
            WHERE m.created_by_id = %(owner)s AND m.seed BETWEEN %(first)s AND %(last)s
              AND s.number = 0 AND m.seed %% 101 = 0
            """,
            {"first": first, "last": first + count - 1, "owner": the_cast.owner.pk},
        )
        cur.execute(
            "DELETE FROM tournaments_faultcount WHERE bot_id = ANY(%(bots)s)",
            {"bots": the_cast.bots},
        )
        cur.execute(
            """
            INSERT INTO tournaments_faultcount (bot_id, verdict, smoke, count)
            SELECT f.bot_id, f.verdict, m.validation_of_id IS NOT NULL, count(*)
            FROM tournaments_fault f JOIN tournaments_match m ON m.id = f.match_id
            WHERE f.bot_id = ANY(%(bots)s)
            GROUP BY 1, 2, 3
            """,
            {"bots": the_cast.bots},
        )
        # What autovacuum would have done by then, the small tables the lists join included
        # (unanalyzed, an empty fixture table is planned as 640 rows).
        for table in TABLES_READ:
            cur.execute(f"ANALYZE tournaments_{table}")
