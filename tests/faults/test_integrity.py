"""``manage.py verify`` against played matches, tampered rows, and a restored backup."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import threading
import uuid
from collections.abc import Iterator
from io import StringIO
from pathlib import Path

import psycopg
import pytest
from django.core.management import CommandError, call_command
from django.db import connection
from django.db import connections as django_connections

from tests.factories import MatchFactory, SeatFactory
from tests.faults.services import need
from tests.support import ROOT
from tests.tournaments.test_rating_feed import settle
from tournaments.play import runner, services
from tournaments.play.models import Match, Seat
from tournaments.rating import integrity, rating_feed
from tournaments.rating.models import Rating

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
        # quick, not search: a searching seat without a clock (search's 40 ms a decision made
        # this fixture the module's costliest step, 1.8 s against 0.2, 2026-12-04).
        played("brasilis", 2, ["random", "greedy", "quick"]),
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


def test_a_match_that_finishes_while_verify_reads_is_no_mismatch(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """verify reads a match's row, then its events: a match finished in between (on a live
    platform, by a worker) must not look like a row that disagrees with its stream."""
    match = MatchFactory(game="brexit", seed=3)
    for number, name in enumerate(["random", "greedy"]):
        SeatFactory(match=match, number=number, bot_version=None, builtin=name)
    real_check = integrity.check_match
    played: list[runner.RunResult] = []

    def worker() -> None:  # a thread: a connection of its own, as a worker's
        try:
            played.append(runner.run_match(match.id))
        finally:
            django_connections.close_all()

    def check_once_it_has_finished(found: Match, seats: list[Seat]) -> tuple[int, list[str]]:
        if not played:  # after verify read the match rows, before it reads the first events
            thread = threading.Thread(target=worker)
            thread.start()
            thread.join(120)
        return real_check(found, seats)

    monkeypatch.setattr(integrity, "check_match", check_once_it_has_finished)
    summary, lines = verify()
    assert played == [runner.RunResult.FINISHED]
    assert (summary["matches"], summary["mismatches"], lines) == (1, 0, [])
    assert summary["events"] == 0  # the snapshot's view: the match queued, not one event yet
    summary, lines = verify()  # a new snapshot sees it finished, and it agrees
    assert (summary["mismatches"], lines) == (0, []) and summary["events"] > 50


def backup_commands() -> list[str]:
    """The shell commands of docs/reliability.md, "Backup and restore"."""
    doc = (ROOT / "docs" / "reliability.md").read_text()
    section = doc.split("## Backup and restore", 1)[1]
    [block] = re.findall(r"```sh\n(.*?)```", section.split("\n## ", 1)[0], re.S)
    return block.strip().splitlines()


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
    """The documented commands, run as shown on the test database (and a copy of its own)."""
    for tool in ("pg_dump", "psql", "pg_restore"):
        need(shutil.which(tool), tool)
    db = connection.settings_dict
    server = f"postgres://{db['USER']}@{db['HOST']}:{db['PORT']}"
    env = {
        **os.environ,
        "DATABASE_URL": f"{server}/{db['NAME']}",
        "SERVER": server,
        "DJANGO_SETTINGS_MODULE": "config.settings.test",
    }

    def run(command: str) -> subprocess.CompletedProcess[str]:
        command = (
            command.replace("backroom_restored", restored_name)
            .replace("backroom.dump", str(tmp_path / "backroom.dump"))
            .replace(".venv/bin/python", sys.executable)
        )
        return subprocess.run(
            ["bash", "-c", command], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
        )

    *restore, verify_copy = backup_commands()
    assert "manage.py verify" in verify_copy
    for command in restore:
        done = run(command)
        assert done.returncode == 0, (command, done.stderr)
    good = run(verify_copy)
    assert good.returncode == 0, good.stderr
    summary = json.loads(good.stdout)
    assert (summary["matches"], summary["mismatches"]) == (4, 0)

    # The copy is what was checked, not the original: tamper with the copy only.
    with psycopg.connect(f"{server}/{restored_name}", autocommit=True) as conn:
        conn.execute("UPDATE tournaments_seat SET score = score + 1 WHERE number = 1")
    bad = run(verify_copy)
    assert bad.returncode != 0
    assert bad.stderr.count("seat 1: rank") == 2, bad.stderr  # one per finished match
    assert verify()[0]["mismatches"] == 0
