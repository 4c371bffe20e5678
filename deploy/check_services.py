#!/usr/bin/env python3
"""Stop at once, in one line per service, if Postgres, RabbitMQ or Redis is not reachable.

Run before anything that needs them (``make up``, ``make test``). Reads the same
environment variables as the settings, with the same defaults. Standard library only,
so that it runs before the virtual environment exists.
"""

from __future__ import annotations

import os
import socket
import sys
from urllib.parse import urlsplit

SERVICES = [
    (
        "PostgreSQL",
        "DATABASE_URL",
        "postgres://postgres@127.0.0.1:5432/backroom",
        5432,
        "pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start",
    ),
    (
        "RabbitMQ",
        "CELERY_BROKER_URL",
        "amqp://guest:guest@127.0.0.1:5672//",
        5672,
        "rabbitmq-server -detached",
    ),
    (
        "Redis",
        "REDIS_URL",
        "redis://127.0.0.1:6379/0",
        6379,
        'redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no'
        " --dir /var/lib/redis --logfile /var/log/redis/ci.log",
    ),
]


def reachable(host: str, port: int) -> bool:
    try:
        with socket.create_connection((host, port), timeout=2):
            return True
    except OSError:
        return False


def main() -> int:
    failed = 0
    for name, variable, default, default_port, start in SERVICES:
        url = urlsplit(os.environ.get(variable, default))
        host, port = url.hostname or "127.0.0.1", url.port or default_port
        if not reachable(host, port):
            print(
                f"{name} is not reachable at {host}:{port} ({variable}); start it with: {start}",
                file=sys.stderr,
            )
            failed += 1
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
