"""Every command docs/deploy.md and docs/scaling.md show outside the blocks marked for a Docker
engine or a production host is run here, or by the test named for it below."""

from __future__ import annotations

import os
import re
import runpy
import subprocess
import sys
from pathlib import Path

import pytest
from django.core import signing
from django.db import connection
from django.test import override_settings

from config.settings import base
from tests.deploy.conftest import PRODUCTION, ROOT
from tests.deploy.docs import ELSEWHERE, blocks, command_with, commands

# Commands run by another test (file, test function), which checks what they print.
ELSEWHERE_TESTED = {
    # `make lint` runs it on the real files; the test checks lint runs it (and what it runs).
    "make deploy-check": ("tests/deploy/test_files.py", "test_make_lint_runs_the_deploy_check"),
    "pg_dump": ("tests/deploy/test_backup.py", "test_the_documented_backup_restores"),
    "createdb": ("tests/deploy/test_backup.py", "test_the_documented_backup_restores"),
    "pg_restore": ("tests/deploy/test_backup.py", "test_the_documented_backup_restores"),
    ".venv/bin/gunicornc": (
        "tests/deploy/test_gunicorn.py",
        "test_two_instances_on_one_host_keep_a_control_socket_each",
    ),
    ".venv/bin/python manage.py bench scale": (
        "tests/tournaments/test_scale_bench.py",
        "test_bench_scale_prints_matches_per_minute_for_one_and_two_processes",
    ),
    ".venv/bin/python manage.py bench match": (
        "tests/tournaments/test_bench_command.py",
        "test_bench_match_prints_every_figure_for_each_game",
    ),
    ".venv/bin/python manage.py bench eventstore": (
        "tests/tournaments/test_bench_command.py",
        "test_the_database_benches_run_in_a_throwaway_database",
    ),
    ".venv/bin/python manage.py bench fairness": (
        "tests/tournaments/test_fairness_bench.py",
        "test_bench_fairness_counts_the_flood_matches_that_started_before_the_other_challenge",
    ),
    ".venv/bin/python manage.py bench human": (
        "tests/tournaments/test_human_bench.py",
        "test_bench_human_times_the_bots_reply_to_each_move_while_a_ladder_plays",
    ),
    ".venv/bin/python manage.py bench ratings": (
        "tests/tournaments/test_rating_bench.py",
        "test_bench_ratings_prints_rebuild_and_consumer_figures",
    ),
    # These two call the bench's function, not the command (the command adds only JSON output).
    ".venv/bin/python manage.py bench sandbox": (
        "tests/games/sandbox/test_isolation.py",
        "test_bench_reports_both_ways_and_ratios",
    ),
    ".venv/bin/python manage.py bench lists": (
        "tests/tournaments/test_lists_bench.py",
        "test_bench_lists_reads_every_list_s_full_pages_at_each_size_and_prints_the_worst_ratio",
    ),
    ".venv/bin/python manage.py bench endpoints": (
        "tests/e2e/test_bench_endpoints.py",
        "test_bench_endpoints_counts_web_and_postgres_cpu_for_each_endpoint",
    ),
    ".venv/bin/python manage.py bench replay": (
        "tests/viewer/test_bench_replay.py",
        "test_bench_replay_reports_both_sides_and_their_ratio",
    ),
}
RUN_HERE = {
    "make check-deploy": "test_make_check_deploy_passes",
    ".venv/bin/python manage.py migrate --check": "test_migrate_check_tells_a_migrated_database_from_a_new_one",
    'python -c "import secrets; print(secrets.token_urlsafe(50))"': (
        "test_a_new_key_with_the_old_one_as_fallback_keeps_old_signatures_valid"
    ),
}


def covered(command: str) -> bool:
    if command in RUN_HERE:
        return True
    for prefix, (path, test) in ELSEWHERE_TESTED.items():
        if command.startswith(prefix):
            assert f"def {test}" in (ROOT / path).read_text(), (path, test)
            return True
    return False


def test_every_command_shown_is_run_by_a_test_or_marked_for_elsewhere() -> None:
    shown = commands("deploy.md") + commands("scaling.md")
    assert len(shown) >= 14
    assert not [c for c in shown if not covered(c)]
    marked = [
        b for doc in ("deploy.md", "scaling.md") for b in blocks(doc) if b.startswith(ELSEWHERE)
    ]
    assert any("docker compose" in b for b in marked) and any("systemctl" in b for b in marked)
    for name, test in RUN_HERE.items():
        assert f"def {test}" in Path(__file__).read_text(), name


def test_every_bench_the_docs_name_exists() -> None:
    out = subprocess.run(
        [sys.executable, "manage.py", "bench", "--help"], cwd=ROOT, capture_output=True, text=True
    ).stdout
    for command in commands("scaling.md"):
        name = command.split()[3]
        assert re.search(rf"\b{name}\b", out), name


def test_make_check_deploy_passes() -> None:
    # No operator's configuration here: check-deploy puts in its placeholders, and says so.
    # (`make deploy-check`, which deploy.md shows too, is run by `make lint`: test_files checks.)
    bare = {k: v for k, v in os.environ.items() if k not in ("SECRET_KEY", "ALLOWED_HOSTS")}
    assert "make check-deploy" in commands("deploy.md")
    done = subprocess.run(
        ["make", "check-deploy"], cwd=ROOT, env=bare, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "SECRET_KEY is not set" in done.stderr
    assert "ALLOWED_HOSTS is not set" in done.stderr


def test_make_check_deploy_checks_the_operators_own_secret_key() -> None:
    """The environment's SECRET_KEY is the one checked (it used to be replaced by a good one)."""
    weak = {**os.environ, "SECRET_KEY": "too-short", "ALLOWED_HOSTS": "backroom.example"}
    done = subprocess.run(
        ["make", "check-deploy"], cwd=ROOT, env=weak, capture_output=True, text=True, timeout=300
    )
    assert done.returncode != 0
    assert "security.W009" in done.stdout + done.stderr
    assert "is not set" not in done.stderr


@pytest.mark.django_db(transaction=True)
def test_migrate_check_tells_a_migrated_database_from_a_new_one() -> None:
    command = ".venv/bin/python manage.py migrate --check"
    assert command in commands("deploy.md")
    db = connection.settings_dict
    url = f"postgres://{db['USER']}@{db['HOST']}:{db['PORT']}"

    def check(dbname: str) -> int:
        env = {**os.environ, "DATABASE_URL": f"{url}/{dbname}"}
        argv = [sys.executable, *command.split()[1:]]
        return subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, timeout=120).returncode

    assert check(db["NAME"]) == 0  # the test database is migrated
    empty = f"{db['NAME']}_docs_empty"  # the test database's suffix: one per xdist worker
    with connection.cursor() as cursor:
        cursor.execute(f"DROP DATABASE IF EXISTS {empty} WITH (FORCE)")
        cursor.execute(f"CREATE DATABASE {empty}")
    try:
        assert check(empty) != 0  # nothing applied: migrations pending
    finally:
        with connection.cursor() as cursor:
            cursor.execute(f"DROP DATABASE {empty} WITH (FORCE)")


def test_a_new_key_with_the_old_one_as_fallback_keeps_old_signatures_valid() -> None:
    """The rotation docs/deploy.md describes: new SECRET_KEY, old one in SECRET_KEY_FALLBACKS."""
    command = 'python -c "import secrets; print(secrets.token_urlsafe(50))"'
    assert command in commands("deploy.md")

    def new_key() -> str:
        argv = [sys.executable, "-c", "import secrets; print(secrets.token_urlsafe(50))"]
        return subprocess.run(argv, capture_output=True, text=True, check=True).stdout.strip()

    old, new = new_key(), new_key()
    assert old != new and len(new) >= 50

    with override_settings(SECRET_KEY=old):
        signed = signing.dumps("session")
    with (
        override_settings(SECRET_KEY=new, SECRET_KEY_FALLBACKS=[]),
        pytest.raises(signing.BadSignature),
    ):
        signing.loads(signed)  # the new key alone refuses what the old one signed
    # The settings read the fallbacks from the environment, as docs/deploy.md sets them.
    loaded = subprocess.run(
        [
            sys.executable,
            "manage.py",
            "shell",
            "-c",
            f"from django.core import signing; print(signing.loads({signed!r}))",
        ],
        cwd=ROOT,
        env={**os.environ, **PRODUCTION, "SECRET_KEY": new, "SECRET_KEY_FALLBACKS": old},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert loaded.stdout.splitlines()[-1:] == ["session"], loaded.stderr


def test_the_control_socket_the_docs_show_is_the_one_a_default_instance_opens(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    shown = command_with("deploy.md", ".venv/bin/gunicornc").split()
    for name in ("RUNTIME_DIRECTORY", "WEB_HOST", "WEB_PORT", "GUNICORN_BIND"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.delenv("GUNICORN_CONTROL_SOCKET", raising=False)
    settings = runpy.run_path(str(ROOT / "deploy" / "gunicorn.conf.py"))
    assert settings["control_socket"] == str(ROOT / shown[shown.index("-s") + 1])


def test_the_systemd_recipe_gives_the_service_user_the_folders_it_writes() -> None:
    """collectstatic runs as the web unit's user and writes STATIC_ROOT; the checkout is root's
    (cloned as root), so the recipe must create var/static and var/media for that user first."""
    [recipe] = [b for b in blocks("deploy.md") if "useradd" in b]  # the first install
    lines = recipe.splitlines()
    web = (ROOT / "deploy" / "systemd" / "backroom-web.service").read_text()
    [user] = re.findall(r"^User=(\w+)$", web, re.M)
    [collect] = [i for i, line in enumerate(lines) if "collectstatic" in line]
    assert lines[collect].startswith(f"sudo -u {user} ")
    made = [
        i
        for i, line in enumerate(lines)
        if line.startswith(f"install -d -o {user} -g {user} ")
        and {"var/static", "var/media"} <= set(line.split("#")[0].split())
    ]
    assert made and made[0] < collect
    # ... which are where the settings put them by default (and nginx serves the first).
    assert Path(base.STATIC_ROOT) == ROOT / "var" / "static"
    assert Path(base.MEDIA_ROOT) == ROOT / "var" / "media"
    nginx = (ROOT / "deploy" / "nginx" / "backroom.conf").read_text()
    assert "alias /srv/backroom/var/static/;" in nginx
