"""The commands that talk to a server: login, upload, challenge, logs, errors, download."""

from __future__ import annotations

import argparse
import getpass
import json
import sys
import time
from pathlib import Path
from typing import Any

from backroom_cli import config
from backroom_cli.api import Api
from backroom_cli.exits import Exit, Failure
from games.sandbox.local import BadSeat, read_upload

POLL_SECONDS = 0.5
"""How often a pending version or a live match is asked about again."""


def api(args: argparse.Namespace) -> Api:
    """The server, with the token ``backroom login`` stored for it."""
    server = config.server(args.server)
    return Api(server, config.token(server))


def show(args: argparse.Namespace, body: Any, *lines: str) -> None:
    """``--json``: the server's answer as one JSON document; else the lines for people."""
    print(json.dumps(body) if args.json else "\n".join(lines))


def login(args: argparse.Namespace) -> Exit:
    server = config.server(args.server)
    username = args.username or input("username: ")
    if args.password_stdin:
        password = sys.stdin.readline().rstrip("\n")
    else:
        password = getpass.getpass(f"password for {username} on {server}: ")
    found = Api(server).post("/api/accounts/token/", {"username": username, "password": password})
    saved = config.save_token(server, found["token"])
    body = {"server": server, "username": username, "config": str(saved)}
    show(args, body, f"logged in to {server} as {username}; token saved in {saved}")
    return Exit.OK


def upload(args: argparse.Namespace) -> Exit:
    if not Path(args.path).exists():
        raise Failure(Exit.USAGE, f"{args.path}: no such file or folder")
    try:
        filename, content = read_upload(args.path)  # a folder is zipped, as play reads it
    except BadSeat as exc:
        raise Failure(Exit.USAGE, str(exc)) from None
    server = api(args)
    bot_id = args.bot
    if bot_id is None:
        body = {"game": args.game, "name": args.new, "is_public": args.public}
        bot_id = server.post("/api/bots/", body)["id"]
    version = server.upload(f"/api/bots/{bot_id}/versions/", filename, content)
    if args.wait and version["status"] == "pending":
        version = _validated(server, version, args.timeout, quiet=args.json)
    lines = [f"bot {bot_id} version {version['number']} ({filename}): {version['status']}"]
    if version.get("validation_error"):
        lines.append(version["validation_error"])
    show(args, version, *lines)
    return Exit.FAILED if version["status"] == "rejected" else Exit.OK


def _validated(server: Api, version: dict[str, Any], timeout: float | None, quiet: bool) -> Any:
    """The version once its validation (a smoke match on the workers) has decided."""
    from tqdm import tqdm

    path = f"/api/bots/{version['bot']}/versions/{version['number']}/"
    deadline = None if timeout is None else time.monotonic() + timeout
    with tqdm(desc="validating", unit=" checks", file=sys.stderr, disable=quiet) as bar:
        while version["status"] == "pending":
            if deadline is not None and time.monotonic() > deadline:
                raise Failure(Exit.TIMED_OUT, f"version {version['number']} still pending")
            time.sleep(POLL_SECONDS)
            version = server.get(path)
            bar.update()
    return version


def seat(server: Api, spec: str) -> dict[str, Any]:
    """A seat as the API takes it: builtin:NAME, version:ID, bot:ID (its newest ready
    version) or me (a seat you play yourself, on the match's page)."""
    kind, _, value = spec.partition(":")
    if spec == "me":
        return {"human": True}
    if kind == "builtin" and value:
        return {"builtin": value}
    if kind in ("version", "bot") and value.isdigit():
        if kind == "version":
            return {"bot_version": int(value)}
        ready = [v for v in server.pages(f"/api/bots/{value}/versions/") if v["status"] == "ready"]
        if not ready:
            raise Failure(Exit.REFUSED, f"--seat {spec}: bot {value} has no ready version")
        return {"bot_version": ready[0]["id"]}
    raise Failure(Exit.USAGE, f"--seat {spec}: give builtin:NAME, version:ID, bot:ID or me")


def challenge(args: argparse.Namespace) -> Exit:
    server = api(args)
    try:
        options = json.loads(args.options)
    except ValueError as exc:
        raise Failure(Exit.USAGE, f"--options: {exc}") from None
    body: dict[str, Any] = {
        "game": args.game,
        "seats": [seat(server, spec) for spec in args.seat],
        "options": options,
    }
    if args.seed is not None:
        body["seed"] = args.seed
    match = server.post("/api/matches/", body)
    page = f"{server.server}/matches/{match['id']}/"
    show(args, match, f"match {match['id']}: {match['status']}", f"watch it live: {page}")
    return Exit.OK


def logs(args: argparse.Namespace) -> Exit:
    found = api(args).pages(f"/api/matches/{args.match}/logs/")
    lines = [
        f"[seat {x['seat']} step {x['step']}] {x['verdict']}: {x['text'].rstrip()}" for x in found
    ]
    show(args, found, *(lines or ["no logs of your bots in this match"]))
    return Exit.OK


def errors(args: argparse.Namespace) -> Exit:
    path = f"/api/bots/{args.bot}/errors/"
    try:
        found = api(args).pages(path)
    except Failure as exc:
        if exc.code == Exit.NOT_FOUND:
            raise Failure(
                Exit.NOT_FOUND,
                f"{exc.message}: no bot {args.bot} that you may see, or this server has no"
                f" errors list (GET {path})",
            ) from None
        raise
    lines = [
        f"{x.get('verdict', x.get('kind'))}  match {x.get('match')} step {x.get('step')}:"
        f" {x.get('detail', '')}"
        for x in found
    ]
    show(args, found, *(lines or [f"no errors for bot {args.bot}"]))
    return Exit.OK


def download(args: argparse.Namespace) -> Exit:
    query = {"view": args.view} if args.view else None
    doc = api(args).get(f"/api/matches/{args.match}/download/", query)
    out = Path(args.out or f"match-{args.match}.json")
    out.write_text(json.dumps(doc, indent=1))
    body = {"out": str(out), "events": len(doc["events"]), "status": doc["match"]["status"]}
    show(args, body, f"{out}: {len(doc['events'])} events, {doc['match']['status']}")
    return Exit.OK
