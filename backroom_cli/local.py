"""``backroom play`` and ``backroom simulate``: on this machine, with no database or broker.

The same code as ``manage.py play`` and ``simulate`` (games.sandbox.local): the workers' match
driver, bots on disk in the platform's sandbox under its default limits, and the match document
of replays.document.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path

from backroom_cli.exits import Exit, Failure
from games.engine import simulate
from games.sandbox import local
from games.sandbox.limits import Limits
from replays.document import match_document


def play(args: argparse.Namespace) -> Exit:
    try:
        match = local.lineup(args.game, args.seat, args.options)
        seed = args.seed if args.seed is not None else random.getrandbits(62)
        if not args.json:
            print(f"playing {match.info.name}, seed {seed}...", file=sys.stderr)
        played = local.play(match, seed, limits=Limits(), max_steps=args.max_steps)
    except (local.BadMatch, local.BadSeat) as exc:
        raise Failure(Exit.USAGE, str(exc)) from None
    doc = match_document(
        match_id=None,
        game=match.info.name,
        options=match.options,
        seed=seed,
        seats=match.specs,
        status=played.status,
        outcome=played.outcome,
        events=played.events,
    )
    if args.out:
        Path(args.out).write_text(json.dumps(doc, indent=1))
    said = local.report(match.specs, played)
    if args.json:
        verdicts = [
            e["payload"]
            for e in played.events
            if e["type"] == "bot_verdict" and e["payload"]["verdict"] != "ok"
        ]
        body = {**doc["match"], "events": len(doc["events"]), "verdicts": verdicts}
        print(json.dumps({**body, "out": args.out, "reason": played.reason or None}))
    else:
        print("\n".join(said.out))
    for line in said.err:
        print(line, file=sys.stderr)
    if played.reason:
        raise Failure(Exit.FAILED, f"the match was aborted: {played.reason}")
    return Exit.OK


def simulate_games(args: argparse.Namespace) -> Exit:
    try:
        done = local.run_simulation(
            args.game,
            args.seat,
            args.games,
            seed=args.seed,
            limits=Limits(),
            jobs=args.jobs,
            budget_ms=args.budget_ms,
            iterations=args.iterations,
            progress=None if args.no_progress else _bar,
        )
    except (local.BadMatch, local.BadSeat) as exc:
        raise Failure(Exit.USAGE, str(exc)) from None
    if args.json:
        print(done.as_json(args.game))
    else:
        print("\n".join(done.lines(args.game, "backroom play")))
    return Exit.OK


def _bar(
    stream: Iterator[list[simulate.SeatResult]], total: int
) -> Iterable[list[simulate.SeatResult]]:
    from tqdm import tqdm

    return tqdm(stream, total=total, unit="game", file=sys.stderr)
