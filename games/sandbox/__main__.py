"""``python -m games.sandbox [--compile-packages]``: what bots may import on this host.

Prints the packages bots are offered beside the standard library (packages.py), and exits 1
if one is not installed; ``--compile-packages`` first writes their bytecode, as
``make install`` does.
"""

from __future__ import annotations

import argparse
import sys

from games.sandbox import packages


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m games.sandbox", description=__doc__)
    parser.add_argument(
        "--compile-packages", action="store_true", help="write their bytecode first"
    )
    args = parser.parse_args(argv)
    if args.compile_packages and not packages.compile_bytecode():
        print("bot packages: some modules did not compile", file=sys.stderr)
        return 1
    lacking = packages.missing()
    if lacking:
        print(f"bot packages: not installed: {', '.join(lacking)} (make install)", file=sys.stderr)
        return 1
    print(f"bot packages: {packages.described()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
