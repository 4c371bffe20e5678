"""docs/deploy.md's backup and restore, as written there: pg_dump of a database with played
matches, createdb and pg_restore into a new one, which then holds the same events and results
and is still append-only."""

from __future__ import annotations

import os
import shlex
import subprocess
import uuid
from pathlib import Path

import psycopg
import pytest
from django.db import connection

from tests.deploy.docs import command_with
from tests.tournaments.conftest import MakeMatch
from tournaments.play import runner

pytestmark = pytest.mark.django_db(transaction=True)


def server(dbname: str) -> psycopg.Connection:
    db = connection.settings_dict
    return psycopg.connect(
        host=db["HOST"], port=db["PORT"], user=db["USER"], dbname=dbname, autocommit=True
    )


def snapshot(dbname: str) -> tuple[list[tuple[object, ...]], list[tuple[object, ...]]]:
    with server(dbname) as conn:
        events = conn.execute(
            "SELECT stream_id, version, event_type, payload FROM replays_event"
            " ORDER BY stream_id, version"
        ).fetchall()
        matches = conn.execute(
            "SELECT id, status, outcome FROM tournaments_match ORDER BY id"
        ).fetchall()
    return events, matches


def test_the_documented_backup_restores_every_event_and_result(
    builtin_match: MakeMatch, tmp_path: Path
) -> None:
    for seed in (1, 2):
        assert runner.run_match(builtin_match(seed=seed).id) is runner.RunResult.FINISHED
    db = connection.settings_dict
    source = db["NAME"]
    restored = f"restored_{uuid.uuid4().hex[:8]}"
    env = {
        **os.environ,
        "DATABASE_URL": f"postgresql://{db['USER']}@{db['HOST']}:{db['PORT']}/{source}",
        "PGHOST": db["HOST"],
        "PGPORT": str(db["PORT"]),
        "PGUSER": db["USER"],
    }

    def run(command: str) -> None:
        words = [w.replace("backroom_restored", restored) for w in shlex.split(command)]
        words = [env["DATABASE_URL"] if w == "$DATABASE_URL" else w for w in words]
        done = subprocess.run(words, cwd=tmp_path, env=env, capture_output=True, text=True)
        assert done.returncode == 0, f"{command}\n{done.stderr}"

    try:
        run(command_with("deploy.md", "pg_dump"))
        run(command_with("deploy.md", "createdb"))
        run(command_with("deploy.md", "pg_restore"))
        before, after = snapshot(source), snapshot(restored)
        assert before == after and len(after[0]) > 100 and len(after[1]) == 2
        with server(restored) as conn, pytest.raises(psycopg.Error, match="append-only"):
            conn.execute("DELETE FROM replays_event")
    finally:
        with server("postgres") as conn:
            conn.execute(f"DROP DATABASE IF EXISTS {restored} WITH (FORCE)")
