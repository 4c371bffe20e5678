"""deploy/gunicorn.conf.py: two instances on one host keep a control socket each (issue #13:
gunicorn's default is one shared path in $HOME, and a second instance took the first one's
over), the web container's health check tells a serving instance from a dead one, and workers
at their request limit never restart all at once (issue 21)."""

from __future__ import annotations

import http.client
import json
import os
import re
import runpy
import subprocess
import sys
import threading
import urllib.request
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace

import pytest

from tests.deploy.conftest import PRODUCTION, ROOT
from tests.support.processes import (
    BIN,
    Proc,
    Processes,
    free_port,
    wait_for_port,
    wait_until,
)


@pytest.fixture
def start_gunicorn(processes: Processes) -> Callable[..., Proc]:
    """Start gunicorn with deploy/gunicorn.conf.py, once its port answers; stopped after the
    test by the harness (tests/support/processes.py), its output kept for a failure."""

    def start(port: int, *app: str, **env: str) -> Proc:
        gunicorn = processes.start(
            [str(BIN / "gunicorn"), "--config", "deploy/gunicorn.conf.py", *app],
            {**os.environ, "WEB_PORT": str(port), "WEB_CONCURRENCY": "1", **env},
            what="gunicorn",
        )
        wait_for_port(port, 30, "gunicorn", gunicorn)
        return gunicorn

    return start


def parent_of(pid: int) -> int:
    return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])


def show_workers(control: Path) -> list[int]:
    done = subprocess.run(
        [str(BIN / "gunicornc"), "-s", str(control), "-c", "show workers", "-j"],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert done.returncode == 0, done.stderr
    return [w["pid"] for w in json.loads(done.stdout)["workers"]]


def test_two_instances_on_one_host_keep_a_control_socket_each(
    start_gunicorn: Callable[..., Proc], tmp_path: Path
) -> None:
    ports = free_port(), free_port()
    masters = [start_gunicorn(port, RUNTIME_DIRECTORY=str(tmp_path)) for port in ports]
    controls = [tmp_path / f"gunicorn-127.0.0.1-{port}.ctl" for port in ports]
    wait_until(lambda: all(c.exists() for c in controls), 30, "both control sockets", *masters)
    for master, control in zip(masters, controls, strict=True):
        wait_until(
            lambda c=control: bool(show_workers(c)), 30, f"workers on {control.name}", master
        )  # type: ignore[misc]
        # Each socket answers for its own instance: its workers are that master's children.
        assert {parent_of(pid) for pid in show_workers(control)} == {master.process.pid}


def test_the_health_check_passes_on_a_serving_production_instance_and_fails_without_one(
    start_gunicorn: Callable[..., Proc], collected_static: Path, tmp_path: Path
) -> None:
    port = free_port()
    env = {**PRODUCTION, "STATIC_ROOT": str(collected_static), "WEB_PORT": str(port)}
    check = [sys.executable, "deploy/healthcheck.py"]

    def health() -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            check, cwd=ROOT, env={**os.environ, **env}, capture_output=True, text=True, timeout=30
        )

    down = health()
    assert down.returncode == 1 and "does not answer" in down.stderr
    web = start_gunicorn(port, RUNTIME_DIRECTORY=str(tmp_path), **env)
    # The port opens with the master; the first answer waits for a worker to load the app.
    wait_until(lambda: health().returncode == 0, 90, "the health check to pass", web)
    # Every static file a page names is served: only the hashed names are kept
    # (WHITENOISE_KEEP_ONLY_HASHED_FILES), so a page naming an unhashed one would break here.
    for page in ("/accounts/login/", "/api/docs/"):
        status, body = fetch(port, page)
        assert status == 200, (page, status)
        for asset in static_names(body):
            assert fetch(port, asset)[0] == 200, f"{page} names {asset}, which is not served"
    # Told a host the site does not serve, the check fails on the 400 rather than passing.
    env["ALLOWED_HOSTS"] = "elsewhere.example"
    wrong = health()
    assert wrong.returncode == 1 and "answered 400" in wrong.stderr


PROXIED = {"Host": PRODUCTION["ALLOWED_HOSTS"], "X-Forwarded-Proto": "https"}


def fetch(port: int, path: str) -> tuple[int, str]:
    """A path as the proxy asks for it (a Host the site serves, over HTTPS): status and body."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    connection.request("GET", path, headers=PROXIED)
    response = connection.getresponse()
    return response.status, response.read().decode(errors="replace")


def static_names(page: str) -> set[str]:
    names = set(re.findall(r'(?:href|src)="(/static/[^"]+)"', page))
    assert names, "the page names no static file"
    return names


def serving_timeline(log: str) -> list[int]:
    """How many workers served after each worker loaded the app or began restarting, in the
    order the log says it happened (a restart begins with gunicorn's "Autorestarting" line)."""
    counts, serving = [], 0
    for line in log.splitlines():
        if "slow app loaded in" in line:
            serving += 1
        elif "Autorestarting worker" in line:
            serving -= 1
        else:
            continue
        counts.append(serving)
    return counts


def test_workers_at_their_request_limit_never_restart_all_at_once(
    start_gunicorn: Callable[..., Proc], tmp_path: Path
) -> None:
    """Two workers with the same small limit (no jitter) and an app as slow to load as Django
    on a busy host, under steady requests from four clients: one worker at a time restarts,
    the other serves meanwhile."""
    port = free_port()
    web = start_gunicorn(
        port,
        # Only gunicorn's own log is read: thousands of access lines would bury it.
        *("--access-logfile", "/dev/null", "tests.deploy.slow_app:app"),
        WEB_CONCURRENCY="2",
        GUNICORN_MAX_REQUESTS="15",
        GUNICORN_MAX_REQUESTS_JITTER="0",
        RUNTIME_DIRECTORY=str(tmp_path),
    )
    try:
        wait_until(lambda: web.log.count("slow app loaded") >= 2, 60, "both workers", web)
        # The workers that served (a set: an idle machine serves thousands of requests a second,
        # and a cap on the count once stopped the clients before the restarts were due).
        served: set[int] = set()
        done = threading.Event()

        def client() -> None:
            while not done.is_set():
                url = f"http://127.0.0.1:{port}/"
                with urllib.request.urlopen(url, timeout=60) as response:
                    served.add(int(response.read()))

        clients = [threading.Thread(target=client) for _ in range(4)]
        for thread in clients:
            thread.start()
        try:
            wait_until(lambda: web.log.count("Autorestarting") >= 6, 180, "restarts", web)
        finally:
            done.set()
            for thread in clients:
                thread.join(60)
    finally:
        web.stop()  # its whole log read, the shutdown's lines too
    timeline = serving_timeline(web.log)
    assert len(served) > 2  # the replacements served too
    # After both first loaded the app, a worker was always serving.
    assert timeline[:2] == [1, 2] and min(timeline[2:]) >= 1, timeline


def test_each_request_is_logged_with_the_cpu_it_cost_when_the_bench_asks(
    start_gunicorn: Callable[..., Proc], tmp_path: Path
) -> None:
    """BACKROOM_REQUEST_CPU_LOG: one line per request in the worker's file, its CPU growing
    with the work the request did (what `bench load` attributes its web CPU with)."""
    port, folder = free_port(), tmp_path / "cpu"
    folder.mkdir()
    master = start_gunicorn(
        port,
        "tests.deploy.slow_app:app",
        RUNTIME_DIRECTORY=str(tmp_path),
        BACKROOM_REQUEST_CPU_LOG=str(folder),
        SLOW_APP_LOAD_SECONDS="0",
    )
    asked = ["/light", "/light?spin=1", "/heavy?spin=3000000", "/light"]
    for path in asked:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=60) as response:
            worker = int(response.read())
    assert parent_of(worker) == master.process.pid
    log = folder / f"{worker}.log"
    # post_request runs after the answer is sent: wait for the last line.
    wait_until(
        lambda: log.exists() and log.read_text().count("\n") == len(asked), 30, "4 lines", master
    )
    assert [p.name for p in folder.iterdir()] == [log.name]
    lines = [line.split() for line in log.read_text().splitlines()]
    assert [line[:3] for line in lines] == [
        ["GET", "/light", "200"],
        ["GET", "/light", "200"],
        ["GET", "/heavy", "200"],
        ["GET", "/light", "200"],
    ]
    cpu = [float(line[3]) for line in lines]
    light = max(cpu[0], cpu[1], cpu[3])
    assert cpu[2] > 20 and cpu[2] > 5 * light, cpu


def test_without_the_variable_the_hooks_measure_and_write_nothing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("BACKROOM_REQUEST_CPU_LOG", raising=False)
    monkeypatch.setenv("GUNICORN_CONTROL_SOCKET", "/nonexistent/gunicorn.ctl")
    hooks = runpy.run_path(str(ROOT / "deploy" / "gunicorn.conf.py"))
    worker = SimpleNamespace(nr=0, max_requests=2000)
    hooks["pre_request"](worker, SimpleNamespace(method="GET", path="/"))
    hooks["post_request"](worker, SimpleNamespace(method="GET", path="/"), {}, None)
    # Neither a start time kept nor a file opened: the worker was not touched.
    assert vars(worker) == {"nr": 0, "max_requests": 2000}
