#!/usr/bin/env python3
"""Create the database named in DATABASE_URL if it does not exist (idempotent, stdlib only)."""

from __future__ import annotations

import os
import subprocess
import sys
from urllib.parse import urlsplit

url = urlsplit(os.environ.get("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/backroom"))
name = url.path.lstrip("/") or "backroom"
env = {**os.environ, "PGPASSWORD": url.password or ""}
base = [
    "-h",
    url.hostname or "127.0.0.1",
    "-p",
    str(url.port or 5432),
    "-U",
    url.username or "postgres",
]
# psql quotes the name itself (:'name'): a name from DATABASE_URL never becomes SQL.
exists = subprocess.run(  # noqa: S603 (fixed argv, no shell)
    [  # noqa: S607 (psql from PATH, as the operator's own shell would find it)
        "psql",
        *base,
        "-d",
        "postgres",
        "-At",
        "-v",
        f"name={name}",
    ],
    input="SELECT 1 FROM pg_database WHERE datname = :'name'",
    capture_output=True,
    text=True,
    env=env,
)
if exists.returncode != 0:
    print(f"cannot query PostgreSQL: {exists.stderr.strip()}", file=sys.stderr)
    sys.exit(1)
if exists.stdout.strip() != "1":
    # createdb takes the name as one argument (no shell, no SQL of ours); found on PATH.
    subprocess.run(["createdb", *base, name], check=True, env=env)  # noqa: S603, S607
    print(f"created database {name}")
