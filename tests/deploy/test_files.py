"""deploy/: the compose file, the Dockerfile, the systemd units and the nginx site are checked
here without a Docker engine or a production host: systemd-analyze, and the parts that can run on
this machine (the image's build commands, collectstatic) run for real. The schema check and
hadolint run on the real files in `make lint` (its deploy-check); here they run on broken ones,
as that target runs them, to prove they refuse them."""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.deploy.conftest import dockerfile_collectstatic

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"
BIN = Path(sys.executable).parent


def run(*args: str | Path, **kwargs: Any) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(a) for a in args], cwd=ROOT, capture_output=True, text=True, timeout=120, **kwargs
    )


def make_recipe(target: str) -> list[str]:
    """The command lines of a Makefile target, with $(BIN) spelled out."""
    lines = (ROOT / "Makefile").read_text().splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(f"{target}:"))
    recipe = []
    for line in lines[start + 1 :]:
        if not line.startswith("\t"):
            break
        recipe.append(line.strip().replace("$(BIN)", ".venv/bin"))
    return recipe


# The compose file


def compose() -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.safe_load((DEPLOY / "compose.yml").read_text())
    return loaded


def lint_prerequisites() -> list[str]:
    line = next(x for x in (ROOT / "Makefile").read_text().splitlines() if x.startswith("lint:"))
    return line.split(":", 1)[1].split()


def deploy_check_command(tool: str, checked: str, instead: Path) -> list[str]:
    """The command `make deploy-check` runs with ``tool``, on ``instead`` of ``checked``."""
    [command] = [c for c in make_recipe("deploy-check") if tool in c]
    args = shlex.split(command)
    assert checked in args, command
    args[args.index(checked)] = str(instead)
    return args


def test_make_lint_runs_the_deploy_check() -> None:
    # `make lint` (CI runs it beside the suite) validates the compose file and runs hadolint on
    # the Dockerfile: the suite does not run them again on the real files, only on broken ones.
    assert "deploy-check" in lint_prerequisites()
    assert any("check-jsonschema" in c for c in make_recipe("deploy-check"))
    assert any("hadolint" in c for c in make_recipe("deploy-check"))


def test_the_schema_check_rejects_a_broken_compose_file(tmp_path: Path) -> None:
    broken = compose()
    broken["services"]["web"]["depends_on"]["migrate"]["condition"] = "whenever"
    broken["services"]["worker"]["healthcheck"]["interval"] = ["30s"]
    path = tmp_path / "compose.yml"
    path.write_text(yaml.safe_dump(broken))
    done = run(*deploy_check_command("check-jsonschema", "deploy/compose.yml", path))
    assert done.returncode != 0 and "whenever" in done.stdout + done.stderr


def test_the_compose_file_holds_the_platform_and_its_references_resolve() -> None:
    spec = compose()
    services = spec["services"]
    assert set(services) == {
        "postgres",
        "rabbitmq",
        "redis",
        "migrate",
        "web",
        "worker",
        "people",
        "beat",
    }
    for name, service in services.items():
        for needed in service.get("depends_on", {}):
            assert needed in services, f"{name} depends on a missing {needed}"
        for volume in service.get("volumes", []):
            source = volume.split(":")[0]
            assert source in spec["volumes"], f"{name} mounts an undeclared volume {source}"
    assert "pgdata" in " ".join(services["postgres"]["volumes"])
    for name in ("postgres", "rabbitmq", "redis", "web", "worker", "people"):
        assert services[name]["healthcheck"]["test"], name
    # Scalable worker: no fixed container name or published port; beat is one, never scaled.
    assert "container_name" not in services["worker"] and "ports" not in services["worker"]
    assert services["beat"].get("deploy", {}).get("replicas", 1) == 1
    # The worker kept for people reads their queue alone, isolated as every worker is.
    people = services["people"]
    assert people["command"][people["command"].index("--queues") + 1] == "people"
    for key in ("user", "cap_drop", "cap_add", "security_opt", "build"):
        assert people[key] == services["worker"][key], key
    # The app services run the image built from deploy/Dockerfile, with the Procfile's programs.
    procfile = (DEPLOY / "Procfile").read_text()
    for name, program in (("web", "gunicorn"), ("worker", "worker"), ("beat", "beat")):
        assert services[name]["build"]["dockerfile"] == "deploy/Dockerfile"
        assert program in " ".join(services[name]["command"]) and program in procfile
    assert "--config deploy/gunicorn.conf.py" in procfile
    migrate = " ".join(services["migrate"]["command"])
    assert "migrate --no-input" in migrate and "seed_demo" in migrate  # the demo ladder, as make up
    # No superuser with the well-known demo password on a deployed platform.
    assert services["migrate"]["environment"]["DEMO_ADMIN_PASSWORD"].startswith("${DEMO_ADMIN_")
    assert ":?" in services["migrate"]["environment"]["DEMO_ADMIN_PASSWORD"]


def test_redis_is_a_bounded_cache_that_evicts_expiring_keys_first() -> None:
    """The replay cache grows with what is viewed: Redis has a memory bound and LRU eviction."""
    command = compose()["services"]["redis"]["command"]
    assert command[command.index("--maxmemory") + 1].endswith("mb")
    assert command[command.index("--maxmemory-policy") + 1] == "volatile-lru"


def test_the_migrate_step_and_the_web_health_check_name_real_files_and_commands() -> None:
    spec = compose()
    assert (ROOT / spec["services"]["web"]["healthcheck"]["test"][-1]).exists()
    commands = run(sys.executable, "manage.py", "help", "--commands").stdout.split()
    for step in " ".join(spec["services"]["migrate"]["command"]).split("&&"):
        words = step.split()
        assert words[words.index("manage.py") + 1] in commands, step


# The Dockerfile


def dockerfile_runs() -> list[str]:
    """The RUN instructions of deploy/Dockerfile, continuation lines joined."""
    text = (DEPLOY / "Dockerfile").read_text().replace("\\\n", " ")
    return [line[4:].strip() for line in text.splitlines() if line.startswith("RUN ")]


def test_hadolint_fails_a_dockerfile_that_breaks_its_rules(tmp_path: Path) -> None:
    bad = tmp_path / "Dockerfile"
    bad.write_text("FROM debian\nRUN cd /tmp && apt-get install curl\n")
    done = run(*deploy_check_command("hadolint", "deploy/Dockerfile", bad))
    assert done.returncode != 0 and "DL3006" in done.stdout  # untagged base image


def test_the_image_is_multi_stage_non_root_and_has_the_sandbox_tool() -> None:
    text = (DEPLOY / "Dockerfile").read_text()
    stages = re.findall(r"^FROM \S+ AS (\w+)", text, re.M)
    assert stages == ["build", "runtime"]
    runtime = text.split("AS runtime", 1)[1]
    assert "bubblewrap" in runtime and "libseccomp2" in runtime
    [user] = re.findall(r"^USER (\S+)", runtime, re.M)
    assert not user.startswith("0") and not user.startswith("root")
    assert "COPY --from=build" in runtime


def test_the_image_builds_with_the_commands_readme_and_ci_use() -> None:
    """`make install` is the build step (the Makefile's install is `uv pip sync` of the lock);
    .ci/run runs `make test`, which depends on it; the README's `make up` too."""
    runs = " && ".join(dockerfile_runs())
    assert "make install" in runs
    install = (ROOT / "Makefile").read_text().split("$(STAMP):", 1)[1].split("\n\n")[0]
    assert "uv pip sync" in install and "requirements.lock" in install
    assert re.search(r"^test: .*\binstall\b", (ROOT / "Makefile").read_text(), re.M)
    assert re.search(r"^up: .*\binstall\b", (ROOT / "Makefile").read_text(), re.M)
    assert "make test" in (ROOT / ".ci" / "run").read_text()
    assert "make up" in (ROOT / "README.md").read_text()


def test_the_images_collectstatic_step_runs_here(collected_static: Path) -> None:
    """The Dockerfile's own collectstatic command, run with its settings (production)."""
    env, command = dockerfile_collectstatic()
    assert env["DJANGO_SETTINGS_MODULE"] == "config.settings.production"
    assert command[-4:] == ["collectstatic", "--no-input", "--verbosity", "0"]
    assert (collected_static / "staticfiles.json").exists()  # the manifest whitenoise serves from
    assert list(collected_static.glob("admin/css/base.*.css"))
    # The site's own assets, the viewer's script, and each shipped game's styles from its package
    # (replays/game_static.py); the tests' own game is not registered in production.
    for name in ("site/site.*.css", "site/play.*.js", "replays/viewer.*.js"):
        assert list(collected_static.glob(name)), name
    for game in ("brexit", "brasilis"):
        assert list(collected_static.glob(f"{game}/styles.*.css")), game
    assert not (collected_static / "highcard").exists()
    # Only the hashed names, the ones {% static %} gives, are kept (settings/base.py).
    assert not (collected_static / "site" / "site.css").exists()
    # Served compressed, but not the source maps only developer tools fetch (settings/base.py).
    assert list(collected_static.glob("admin/css/base.*.css.br"))
    assert list(collected_static.rglob("*.map")) and not list(collected_static.rglob("*.map.*"))
    # Swagger UI, which the API docs page serves; not ReDoc, which no page does (config/staticfiles.py).
    assert list(
        collected_static.glob("drf_spectacular_sidecar/swagger-ui-dist/swagger-ui-bundle.*.js")
    )
    assert not (collected_static / "drf_spectacular_sidecar" / "redoc").exists()


def test_the_build_context_leaves_local_state_out() -> None:
    ignored = (ROOT / ".dockerignore").read_text().split()
    assert {".git", ".venv", "var"} <= set(ignored)


# systemd units


@pytest.mark.skipif(not shutil.which("systemd-analyze"), reason="systemd-analyze not installed")
def test_the_systemd_units_verify(tmp_path: Path) -> None:
    """systemd-analyze verify, with the units' /srv/backroom pointed at this checkout."""
    names = []
    for unit in sorted((DEPLOY / "systemd").glob("*.service")):
        text = unit.read_text().replace("/srv/backroom", str(ROOT))
        text = text.replace("User=backroom", "User=root").replace("Group=backroom", "Group=root")
        text = text.replace("EnvironmentFile=/etc", "EnvironmentFile=-/etc")
        name = unit.name.replace("@.", "@matches.")
        (tmp_path / name).write_text(text)
        names.append(name)
    assert set(names) == {
        "backroom-web.service",
        "backroom-worker.service",
        "backroom-worker@matches.service",
        "backroom-beat.service",
    }
    done = run("systemd-analyze", "verify", *[tmp_path / n for n in names])
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_units_run_the_procfiles_programs() -> None:
    units = {u.name: u.read_text() for u in (DEPLOY / "systemd").glob("*.service")}
    assert "gunicorn --config deploy/gunicorn.conf.py" in units["backroom-web.service"]
    assert "RuntimeDirectory=" in units["backroom-web.service"]  # the control socket's home
    assert "celery -A config worker" in units["backroom-worker.service"]
    assert "--queues %i" in units["backroom-worker@.service"]
    assert "celery -A config beat" in units["backroom-beat.service"]


# nginx


def test_the_nginx_site_serves_the_static_root_and_proxies_the_gunicorn_port() -> None:
    site = (DEPLOY / "nginx" / "backroom.conf").read_text()
    assert re.search(r"location /static/ \{\s*alias /srv/backroom/var/static/;", site)
    assert "server 127.0.0.1:8000" in site and "proxy_pass http://backroom_web;" in site
    assert "X-Forwarded-Proto $scheme" in site  # what production's SECURE_PROXY_SSL_HEADER reads
    gunicorn = (DEPLOY / "gunicorn.conf.py").read_text()
    assert "'WEB_PORT', '8000'" in gunicorn
