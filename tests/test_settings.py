"""Settings come from the environment; production settings pass Django's deployment checks."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def run_manage(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    clean = {
        k: v
        for k, v in os.environ.items()
        if k not in {"DJANGO_SETTINGS_MODULE", "SECRET_KEY", "DEBUG"}
    }
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env={**clean, **env},
        capture_output=True,
        text=True,
    )


def test_production_settings_pass_check_deploy() -> None:
    result = run_manage(
        "check",
        "--deploy",
        "--fail-level",
        "WARNING",
        DJANGO_SETTINGS_MODULE="config.settings.production",
        SECRET_KEY="x" * 20 + "a-long-random-production-secret-value-0123456789",
        ALLOWED_HOSTS="backroom.example",
    )
    assert result.returncode == 0, result.stderr + result.stdout


def test_production_refuses_to_start_without_a_secret_key() -> None:
    result = run_manage(
        "check", DJANGO_SETTINGS_MODULE="config.settings.production", ALLOWED_HOSTS="x"
    )
    assert result.returncode != 0
    assert "SECRET_KEY" in result.stderr


def test_urls_come_from_the_environment() -> None:
    code = "from django.conf import settings as s; print(s.DATABASES['default']['NAME'], s.CELERY_BROKER_URL, s.CACHES['default']['LOCATION'])"
    result = run_manage(
        "shell",
        "-c",
        code,
        DATABASE_URL="postgres://u@db.example:5433/elsewhere",
        CELERY_BROKER_URL="amqp://x:y@mq.example:5673//",
        REDIS_URL="redis://cache.example:6380/2",
    )
    assert result.stdout.strip().splitlines()[-1].split() == [
        "elsewhere",
        "amqp://x:y@mq.example:5673//",
        "redis://cache.example:6380/2",
    ], result.stderr


def test_each_test_run_has_queues_of_its_own() -> None:
    """Two suites on one broker never share (or purge) each other's queues."""
    code = (
        "from django.conf import settings; "
        "print(settings.CELERY_TASK_DEFAULT_QUEUE, settings.MATCH_QUEUE, "
        "sorted(q.name for q in settings.CELERY_TASK_QUEUES), "
        "settings.CELERY_TASK_ROUTES['tournaments.play_match']['queue'])"
    )

    def queues(**env: str) -> str:
        # A process of its own, not an xdist worker (which would suffix the prefix with its id).
        clean = {
            k: v
            for k, v in os.environ.items()
            if k not in {"TEST_QUEUE_PREFIX", "PYTEST_XDIST_WORKER"}
        }
        out = subprocess.run(
            [sys.executable, "-c", code],
            cwd=ROOT,
            env={**clean, "DJANGO_SETTINGS_MODULE": "config.settings.test", **env},
            capture_output=True,
            text=True,
            check=True,
        )
        return out.stdout.strip()

    first, second = queues(), queues()
    assert first != second
    assert queues(TEST_QUEUE_PREFIX="run-7") == (
        "run-7-celery run-7-matches "
        "['run-7-celery', 'run-7-matches', 'run-7-people', 'run-7-ratings', 'run-7-validation']"
        " run-7-matches"
    )


def test_matches_validation_and_ratings_each_have_a_queue_of_their_own() -> None:
    """A flood of challenges cannot starve validation or the ladder's ratings (issue #14)."""
    code = (
        "from config.celery import app; r = app.amqp.router; "
        "print(*[r.route({}, name)['queue'].name for name in ("
        "'tournaments.play_match', 'tournaments.validate_bot_version', "
        "'tournaments.update_ratings', 'tournaments.run_seasons', 'tournaments.reap_matches', "
        "'tournaments.play_person_match')])"
    )
    result = run_manage("shell", "-c", code, DJANGO_SETTINGS_MODULE="config.settings.local")
    assert result.stdout.splitlines()[-1].split() == [
        "matches",
        "validation",
        "ratings",
        "ratings",
        "celery",
        "people",
    ], result.stderr
    moved = run_manage(
        "shell",
        "-c",
        code,
        DJANGO_SETTINGS_MODULE="config.settings.local",
        MATCH_QUEUE="m2",
        VALIDATION_QUEUE="v2",
        RATINGS_QUEUE="r2",
        CELERY_DEFAULT_QUEUE="c2",
        PEOPLE_QUEUE="p2",
    )
    assert moved.stdout.splitlines()[-1].split() == ["m2", "v2", "r2", "r2", "c2", "p2"], (
        moved.stderr
    )
