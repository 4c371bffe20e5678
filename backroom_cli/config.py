"""The tokens ``backroom login`` stores, per server, in ``$XDG_CONFIG_HOME/backroom/``.

One JSON file, readable by its user only (a token is the account's password for the API):
``{"server": the last server logged in to, "tokens": {server URL: token}}``.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from backroom_cli.exits import Exit, Failure

SERVER_ENV = "BACKROOM_SERVER"


def folder() -> Path:
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "backroom"


def path() -> Path:
    return folder() / "config.json"


def load() -> dict[str, Any]:
    try:
        found = json.loads(path().read_text())
    except FileNotFoundError:
        return {"server": None, "tokens": {}}
    except (OSError, ValueError) as exc:
        raise Failure(Exit.USAGE, f"cannot read {path()}: {exc}") from None
    return {"server": found.get("server"), "tokens": dict(found.get("tokens") or {})}


def save_token(server: str, token: str) -> Path:
    saved = load()
    saved["server"] = server
    saved["tokens"][server] = token
    folder().mkdir(mode=0o700, parents=True, exist_ok=True)
    target = path()
    # Created 0600 before the token is written: never readable by others, even for a moment.
    fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as out:
        json.dump(saved, out, indent=1)
    os.chmod(target, 0o600)
    return target


def normal(server: str) -> str:
    server = server.strip().rstrip("/")
    if not server.startswith(("http://", "https://")):
        raise Failure(Exit.USAGE, f"--server {server}: give a URL, such as http://127.0.0.1:8000")
    return server


def server(given: str | None) -> str:
    """``--server``, else $BACKROOM_SERVER, else the server last logged in to."""
    chosen = given or os.environ.get(SERVER_ENV) or load()["server"]
    if not chosen:
        raise Failure(Exit.USAGE, "which server? give --server URL (or run backroom login first)")
    return normal(chosen)


def token(server: str) -> str:
    found = load()["tokens"].get(server)
    if not found:
        raise Failure(Exit.AUTH, f"not logged in to {server}: run backroom login --server {server}")
    return str(found)
