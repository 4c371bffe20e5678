"""``manage.py verify`` against played matches, tampered rows, and a restored backup."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import uuid
from collections.abc import Iterator
from io import StringIO
from pathlib import Path

import psycopg
import pytest
from django.core.management import CommandError, call_command
from django.db import connection

from tests.e2e.conftest import ROOT
from tests.factories import MatchFactory, SeatFactory
from tests.faults.services import need
from tests.tournaments.test_rating_feed import settle
from tournaments import rating_feed, runner, services
from tournaments.models import Match, Rating, Seat

pytestmark = [pytest.mark.faults, pytest.mark.django_db(transaction=True)]


def played(game: str, seed: int, bots: list[str]) -> Match:
    """A rated match of built-in bots, played to its end by the workers' runner."""
    match = MatchFactory(game=game, seed=seed, rated=True)
    for number, name in enumerate(bots):
        SeatFactory(match=match, number=number, bot_version=None, builtin=name)
    assert runner.run_match(match.id) is runner.RunResult.FINISHED
    return match


@pytest.fixture
def store_of_matches() -> list[Match]:
    """Two finished rated matches, one cancelled, one queued."""
    matches = [
        played("brexit", 1, ["random", "greedy"]),
        played("brasilis", 2, ["random", "greedy", "search"]),
    ]
    cancelled = MatchFactory()
    SeatFactory(match=cancelled, number=0, bot_version=None, builtin="random")
    services.cancel_queued_matches(matches=Match.objects.filter(id=cancelled.id), reason="test")
    MatchFactory()  # queued, never played: no events yet
    return matches


def verify() -> tuple[dict[str, int], list[str]]:
    out, err = StringIO(), StringIO()
    try:
        call_command("verify", stdout=out, stderr=err)
    except CommandError as exc:
        assert "disagree with the events" in str(exc)
    return json.loads(out.getvalue()), err.getvalue().splitlines()


def test_verify_accepts_the_store_and_names_each_tampered_row(
    store_of_matches: list[Match],
) -> None:
    settle(rating_feed.consume, 5)  # the ratings read model has taken both results (5 seats)
    summary, lines = verify()
    assert (summary["matches"], summary["mismatches"], lines) == (4, 0, [])
    assert summary["events"] > 50

    brexit, brasilis = store_of_matches
    seat = Seat.objects.get(match=brexit, number=0)
    Seat.objects.filter(id=seat.id).update(rank=(seat.rank or 0) + 1)
    Match.objects.filter(id=brasilis.id).update(outcome={"ranks": [1, 1, 1], "scores": [0, 0, 0]})
    greedy = Rating.objects.filter(player="builtin:greedy").order_by("pool").first()
    assert greedy is not None
    Rating.objects.filter(pk=greedy.pk).update(mu=42.0)  # in one pool of the two it plays in

    summary, lines = verify()
    assert summary["mismatches"] == len(lines) == 3, lines
    assert any(str(brexit.id) in line and "seat 0" in line for line in lines)
    assert any(str(brasilis.id) in line and "stored outcome" in line for line in lines)
    assert any(line.startswith("rating ") and "builtin:greedy" in line for line in lines)
    with pytest.raises(CommandError):
        call_command("verify", stdout=StringIO(), stderr=StringIO())


def _pg_tool(name: str) -> str:
    """The client matching the server (15 on this machine's kind), else the one on PATH."""
    found = sorted(Path("/usr/lib/postgresql").glob(f"*/bin/{name}"))
    return need(str(found[-1]) if found else shutil.which(name), name)


@pytest.fixture
def restored_name() -> Iterator[str]:
    name = f"{connection.settings_dict['NAME']}_restore_{uuid.uuid4().hex[:6]}"
    yield name
    db = connection.settings_dict
    with psycopg.connect(
        host=db["HOST"], port=db["PORT"], user=db["USER"], dbname="postgres", autocommit=True
    ) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def test_a_backup_restores_into_a_new_database_that_verifies(
    store_of_matches: list[Match], restored_name: str, tmp_path: Path
) -> None:
    """The commands of docs/reliability.md, "Backup and restore"."""
    db = connection.settings_dict
    server = ["-h", str(db["HOST"]), "-p", str(db["PORT"]), "-U", str(db["USER"])]
    dump = tmp_path / "backroom.dump"
    subprocess.run([_pg_tool("pg_dump"), *server, "-Fc", "-f", str(dump), db["NAME"]], check=True)
    subprocess.run([_pg_tool("createdb"), *server, restored_name], check=True)
    subprocess.run(
        [_pg_tool("pg_restore"), *server, "--no-owner", "-d", restored_name, str(dump)], check=True
    )
    url = f"postgres://{db['USER']}@{db['HOST']}:{db['PORT']}/{restored_name}"
    env = {**os.environ, "DATABASE_URL": url, "DJANGO_SETTINGS_MODULE": "config.settings.test"}

    def verify_restored() -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "manage.py", "verify"],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )

    good = verify_restored()
    assert good.returncode == 0, good.stderr
    summary = json.loads(good.stdout)
    assert (summary["matches"], summary["mismatches"]) == (4, 0)

    # The restored copy is checked, not the original: tamper with the copy only.
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("UPDATE tournaments_seat SET score = score + 1 WHERE number = 1")
    bad = verify_restored()
    assert bad.returncode != 0
    assert bad.stderr.count("seat 1: rank") == 2, bad.stderr  # one per finished match
