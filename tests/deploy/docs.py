"""The shell commands that docs/deploy.md and docs/scaling.md show, block by block."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# A block whose first line is one of these is not run here: the test suite has neither.
ELSEWHERE = ("# needs a Docker engine", "# on a production host")


def blocks(doc: str) -> list[str]:
    text = (ROOT / "docs" / doc).read_text()
    return re.findall(r"```sh\n(.*?)```", text, re.S)


def commands(doc: str) -> list[str]:
    """Each command of the blocks that run here, comments and continuations resolved."""
    found = []
    for block in blocks(doc):
        if block.startswith(ELSEWHERE):
            continue
        for line in block.replace("\\\n", " ").splitlines():
            line = line.split("  #")[0].strip()
            if line and not line.startswith("#"):
                found.append(line)
    return found


def command_with(doc: str, word: str) -> str:
    [line] = [c for c in commands(doc) if word in c.split()[0]]
    return line
