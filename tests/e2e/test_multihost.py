"""Two worker hosts sharing one broker and one database (issue #14, docs/deploy.md: add worker
hosts). Each worker runs in a network namespace made here, a separate host on the network: it
reaches Postgres, RabbitMQ and Redis only through its veth link, at this machine's end of it,
where a relay hands the connection to the service on 127.0.0.1. A batch of matches is sent; each
is played exactly once, and both hosts take a share."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import uuid
from collections.abc import Iterator

import pytest
from django.conf import settings
from django.db import connection

from replays import store
from tests.e2e import netns
from tests.support.processes import (
    Proc,
    Processes,
    all_queues,
    platform_env,
    wait_until,
    worker_args,
)
from tournaments import tasks
from tournaments.play.models import Match, Seat

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.e2e]

MATCHES = 24
SERVICES = {"postgres": 5432, "rabbitmq": 5672, "redis": 6379}


@pytest.fixture
def hosts() -> Iterator[list[netns.Host]]:
    why = netns.unavailable()
    if why is not None:
        if os.environ.get("CI") and os.geteuid() == 0:
            pytest.fail(f"CI runs as root, where the multi-host test must run: {why}")
        pytest.skip(f"no network namespaces here: {why}")
    made: list[netns.Host] = []
    try:
        made.extend(netns.Host.create() for _ in range(2))
        yield made
    finally:
        for host in made:
            host.remove()


def redis_database() -> str:
    """The suite's Redis database (config/settings/test.py): the worker shares its cache keys."""
    return str(settings.CACHES["default"]["LOCATION"]).rsplit("/", 1)[1]


def start_worker(processes: Processes, host: netns.Host, name: str) -> Proc:
    """A worker on ``host``, configured as a worker host is: the services at the gateway."""
    db = connection.settings_dict
    env = platform_env(
        DATABASE_URL=f"postgres://{db['USER']}@{host.gateway}:5432/{db['NAME']}",
        CELERY_BROKER_URL=f"amqp://guest:guest@{host.gateway}:5672//",
        REDIS_URL=f"redis://{host.gateway}:6379/{redis_database()}",
    )
    command = host.command(*worker_args(all_queues(), f"{name}@%h"))
    return processes.start(command, env, " ready.", f"worker on {host.namespace}")


def played(worker: Proc) -> int:
    """How many matches this worker played to the end. A message only wakes a worker, which
    plays the next match the scheduler gives it (tournaments/play/scheduler.py), so a task id names
    no match: the task's result says whether it finished one."""
    return len(
        re.findall(
            r"Task tournaments\.play_match\[[0-9a-f-]+\] succeeded in [0-9.e-]+s: 'finished'",
            worker.log,
        )
    )


@pytest.mark.timeout(300)
def test_two_worker_hosts_share_a_batch_and_play_each_match_once(
    hosts: list[netns.Host], processes: Processes
) -> None:
    db_port = int(connection.settings_dict["PORT"] or 5432)
    targets = {"postgres": db_port, "rabbitmq": 5672, "redis": 6379}
    relays = [
        netns.Relay((host.gateway, port), ("127.0.0.1", targets[service])).start()
        for host in hosts
        for service, port in SERVICES.items()
    ]
    workers: list[Proc] = []
    try:
        # A host has its own loopback: the services are not there, only through the link.
        probe = f"import socket; socket.create_connection(('127.0.0.1', {db_port}), timeout=2)"
        inside = subprocess.run(
            hosts[0].command(sys.executable, "-c", probe), capture_output=True, timeout=30
        )
        assert inside.returncode != 0, "the namespace reached 127.0.0.1's Postgres directly"

        workers = [
            start_worker(processes, h, f"host{i}-{uuid.uuid4().hex[:6]}")
            for i, h in enumerate(hosts)
        ]
        matches = []
        for n in range(MATCHES):
            match = Match.objects.create(game="brexit", seed=1000 + n, options={})
            Seat.objects.bulk_create(
                Seat(match=match, number=s, builtin="random") for s in range(4)
            )
            matches.append(match)
        for m in matches:
            tasks.play_match.apply_async((str(m.id),), queue=settings.MATCH_QUEUE)
        sent = [m.id for m in matches]
        wait_until(
            lambda: Match.objects.filter(id__in=sent, status="finished").count() == MATCHES,
            180,
            "every match finished",
            workers[0],
        )
        wait_until(
            lambda: played(workers[0]) + played(workers[1]) == MATCHES,
            30,
            "both workers' logs to report their tasks",
        )
    finally:
        for worker in workers:
            worker.stop()
        for relay in relays:
            relay.stop()

    # Each match played once: one claim, one result, one gap-free event stream.
    first, second = played(workers[0]), played(workers[1])
    assert first + second == MATCHES
    assert set(Match.objects.filter(id__in=sent).values_list("attempts", flat=True)) == {1}
    for match_id in sent:
        events = store.read(match_id)
        assert [e.version for e in events] == list(range(1, len(events) + 1))
        assert [e.type for e in events].count("match_finished") == 1
    # The work was shared, and each host's traffic came over its own link.
    assert first and second, f"one host played everything: {first} / {second}"
    for i, host in enumerate(hosts):
        for relay in relays[i * len(SERVICES) : (i + 1) * len(SERVICES)]:
            if relay.target[1] != 6379:  # Redis is reached only by requests that throttle
                assert relay.peers[host.address] > 0, (host.namespace, relay.listen)
            assert set(relay.peers) <= {host.address}
