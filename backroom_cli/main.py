"""``backroom``: arguments, the command each one runs, and the exit code it ends with."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from importlib import metadata

from backroom_cli import local, remote, watch
from backroom_cli.exits import Exit, Failure
from games.engine.driver import MatchLimits
from games.engine.registry import GAMES

Command = Callable[[argparse.Namespace], Exit]

EPILOG = """exit codes: 0 done; 1 the match was aborted or the version rejected; 2 bad arguments
or files; 3 the server refused the request; 4 not logged in, or the token refused; 5 not found;
6 the server unreachable or failing; 7 --timeout passed (docs/cli.md)"""


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(
        prog="backroom",
        description="Play bots locally, and upload, challenge and watch on a Backroom server.",
        epilog=EPILOG,
    )
    top.add_argument("--version", action="version", version=f"backroom {_version()}")
    top.add_argument("--json", action="store_true", help="print JSON for scripts")
    commands = top.add_subparsers(dest="command", required=True, metavar="COMMAND")
    output = argparse.ArgumentParser(add_help=False)
    # Also after the command. SUPPRESS: a subcommand without it must not reset the
    # `backroom --json COMMAND` before it to false.
    output.add_argument(
        "--json", action="store_true", default=argparse.SUPPRESS, help="print JSON for scripts"
    )
    online = argparse.ArgumentParser(add_help=False, parents=[output])
    online.add_argument(
        "--server", help="the server's URL (default: $BACKROOM_SERVER, else the last login)"
    )

    def command(
        name: str, run: Command, about: str, *, remote: bool = True
    ) -> argparse.ArgumentParser:
        sub = commands.add_parser(
            name, help=about, description=about, parents=[online if remote else output]
        )
        sub.set_defaults(run=run)
        return sub

    def game_and_seats(sub: argparse.ArgumentParser, seats: str) -> None:
        sub.add_argument("--game", required=True, choices=sorted(GAMES))
        sub.add_argument("--seat", action="append", required=True, help=seats)

    on_disk = "a bot per seat, in order (repeat): builtin:NAME, or a bot's .py, .zip or folder"

    play = command("play", local.play, "play one match here, bots in the sandbox", remote=False)
    game_and_seats(play, on_disk)
    play.add_argument("--seed", type=int, default=None)
    play.add_argument("--options", default="{}", help="the game's options as JSON")
    play.add_argument("--out", help="write the match document (backroom-match/1) here")
    play.add_argument("--max-steps", type=int, default=MatchLimits().max_steps)

    sim = command("simulate", local.simulate_games, "many games here: win rates", remote=False)
    game_and_seats(sim, on_disk + " (a built-in bot also by its bare name)")
    sim.add_argument("--games", type=int, default=100)
    sim.add_argument("--seed", type=int, default=1)
    sim.add_argument("--jobs", type=int, default=1, help="processes")
    sim.add_argument("--budget-ms", type=float, default=None, help="search bots: time per move")
    sim.add_argument("--iterations", type=int, default=None, help="search bots: rollouts per move")
    sim.add_argument("--no-progress", action="store_true")

    login = command("login", remote.login, "get your API token and store it for this server")
    login.add_argument("--username")
    login.add_argument(
        "--password-stdin", action="store_true", help="read the password from standard input"
    )

    upload = command("upload", remote.upload, "upload a bot's next version (.py, .zip or folder)")
    upload.add_argument("path")
    which = upload.add_mutually_exclusive_group(required=True)
    which.add_argument("--bot", type=int, help="your bot's id")
    which.add_argument("--new", metavar="NAME", help="create a bot of this name first (--game)")
    upload.add_argument("--game", choices=sorted(GAMES), help="--new: the bot's game")
    upload.add_argument("--public", action="store_true", help="--new: listed for everyone")
    upload.add_argument("--wait", action="store_true", help="until validation has decided")
    upload.add_argument("--timeout", type=float, default=None, help="--wait: at most (seconds)")

    chal = command("challenge", remote.challenge, "start an unrated match on the server")
    game_and_seats(
        chal, "a seat per bot, in order (repeat): builtin:NAME, version:ID, bot:ID or me"
    )
    chal.add_argument("--seed", type=int, default=None)
    chal.add_argument("--options", default="{}", help="the game's options as JSON")

    follow = command("watch", watch.watch, "follow a match live: step, sentence, your verdicts")
    follow.add_argument("match")
    follow.add_argument("--seat", type=int, default=None, help="as this seat of yours sees it")
    follow.add_argument("--timeout", type=float, default=None, help="at most (seconds)")

    logs = command("logs", remote.logs, "your bots' stderr in a match, per step")
    logs.add_argument("match")

    errors = command("errors", remote.errors, "every non-ok verdict of a bot, by kind")
    errors.add_argument("bot", type=int)

    down = command("download", remote.download, "a match as a file (backroom-match/1)")
    down.add_argument("match")
    down.add_argument("--out", "-o", help="default: match-ID.json")
    down.add_argument("--view", help="public, seatK or all")
    return top


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
    if args.command == "upload" and args.new and not args.game:
        parser().error("upload --new needs --game")
    try:
        return int(args.run(args))
    except Failure as exc:
        if args.json:
            print(json.dumps({"error": exc.message, "exit": int(exc.code)}))
        print(f"backroom {args.command}: {exc.message}", file=sys.stderr)
        return int(exc.code)
    except KeyboardInterrupt:
        return 130


def _version() -> str:
    try:
        return metadata.version("backroom")
    except metadata.PackageNotFoundError:
        return "unknown"
