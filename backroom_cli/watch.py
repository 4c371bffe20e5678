"""``backroom watch``: a match followed live in the terminal, one line per event.

Each event is its step (the stream's version), and its sentence as the site's log tells it
(replays.narrate); a verdict on a seat of yours is marked ``>`` (its detail is yours to read).
It polls the events endpoint after the last event it has, until the match is over.
"""

from __future__ import annotations

import argparse
import json
import time
from typing import Any

from backroom_cli.exits import Exit, Failure
from backroom_cli.remote import POLL_SECONDS, api
from replays.narrate import Narration, seat_labels

PAGE = 200


def watch(args: argparse.Namespace) -> Exit:
    server = api(args)
    path = f"/api/matches/{args.match}/events/"
    after, narration = 0, None
    deadline = None if args.timeout is None else time.monotonic() + args.timeout
    while True:
        query: dict[str, Any] = {"after": after, "limit": PAGE}
        if args.seat is not None:
            query["seat"] = args.seat
        page = server.get(path, query)
        match, mine = page["match"], set(page["view"]["seats"])
        for event in page["events"]:
            if narration is None:
                labels = seat_labels(match["game"], len(match["seats"]), event["payload"])
                narration = Narration(match["game"], labels, people=())
            _show(args, event, narration.tell(event["type"], event["payload"]), mine)
            after = event["version"]
        if page["next"]:
            continue
        if page["view"]["game_over"]:
            break
        if deadline is not None and time.monotonic() > deadline:
            raise Failure(Exit.TIMED_OUT, f"match {args.match} is still {match['status']}")
        time.sleep(POLL_SECONDS)
    _end(args, match)
    return Exit.FAILED if match["status"] == "aborted" else Exit.OK


def _show(args: argparse.Namespace, event: dict[str, Any], sentence: str, mine: set[int]) -> None:
    p = event["payload"]
    yours = event["type"] == "bot_verdict" and p.get("seat") in mine
    if args.json:
        line: dict[str, Any] = {
            "step": event["version"],
            "type": event["type"],
            "sentence": sentence,
        }
        if yours:
            line["verdict"] = {k: p.get(k) for k in ("seat", "verdict", "detail")}
        print(json.dumps(line), flush=True)
    else:
        print(f"{'>' if yours else ' '} step {event['version']:>4}  {sentence}", flush=True)


def _end(args: argparse.Namespace, match: dict[str, Any]) -> None:
    if args.json:
        print(json.dumps({"status": match["status"], "outcome": match["outcome"]}), flush=True)
        return
    print(f"match {match['id']}: {match['status']}")
    outcome = match.get("outcome")
    if outcome:
        for n, (label, rank, score) in enumerate(
            zip(match["seats"], outcome["ranks"], outcome["scores"], strict=True)
        ):
            print(f"seat {n}  rank {rank}  score {score:g}  {label}")
