"""Rewrite the computed JSON blocks of docs/games/brexit.md from the engine.

The scenario and the action blocks are the input; every ``events``, ``legal``,
``observation`` and ``errors`` block is recomputed. Run it after a deliberate
engine change (``.venv/bin/python tests/games/brexit/refresh_docs.py``), read
the diff, and commit it; test_docs.py fails until the doc matches the code.
"""

from __future__ import annotations

import json
import random
import re
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

from games.brexit.rules import RULES
from games.engine.errors import IllegalAction
from games.engine.match import LocalMatch

DOC = Path(__file__).resolve().parents[3] / "docs" / "games" / "brexit.md"
BLOCK = re.compile(r"<!-- example: (?P<name>[^>]*?) -->\n```json\n(?P<body>.*?)\n```", re.S)


def _one_line(text: str) -> str:
    return re.sub(r"\s*\n\s*", " ", text).replace("[ ", "[").replace(" ]", "]")


def pretty(obj: Any) -> str:
    """Indented JSON with short arrays and objects of scalars kept on one line."""
    text = json.dumps(obj, indent=2)
    for _ in range(3):
        text = re.sub(r"\[[^\[\]{}]*\]", lambda mt: _one_line(mt[0]), text)
        text = re.sub(
            r"\{[^\[\]{}]*\}",
            lambda mt: (
                _one_line(mt[0]).replace("{ ", "{").replace(" }", "}")
                if len(_one_line(mt[0])) < 90
                else mt[0]
            ),
            text,
        )
        text = re.sub(
            r"\[(\s*\{[^\[\]{}]*\},?)+\s*\]",
            lambda mt: _small(mt[0]),
            text,
        )
    return text


def _small(text: str) -> str:
    line = _one_line(text).replace("{ ", "{").replace(" }", "}")
    return line if len(line) < 90 else text


def stream(events: list[Any]) -> str:
    return "[\n" + ",\n".join("  " + json.dumps(e) for e in events) + "\n]"


def refresh(text: str) -> str:
    blocks = [(mt[0], mt["name"].split(), json.loads(mt["body"])) for mt in BLOCK.finditer(text)]
    (scenario,) = [body for _, (kind, *_), body in blocks if kind == "scenario"]
    attrs = {raw: dict(a.split("=", 1) for a in rest) for raw, (_, *rest), _ in blocks}
    actions = sorted(
        (int(attrs[raw]["after"]), int(attrs[raw]["seat"]), body)
        for raw, (kind, *_), body in blocks
        if kind == "action"
    )
    m = LocalMatch(RULES, scenario["seats"], scenario["seed"], scenario["options"])
    produced, states = {0: m.events[:]}, {0: RULES.dump(m.state)}
    for k, seat, action in actions:
        produced[k + 1] = m.play(seat, action)
        states[k + 1] = RULES.dump(m.state)
    for raw, (kind, *_), body in blocks:
        a = attrs[raw]
        state = RULES.load(states[int(a.get("after", 0))])
        if kind == "events":
            new = stream(produced[int(a["after"])])
        elif kind == "legal":
            new = pretty(RULES.legal(state, int(a["seat"])))
        elif kind == "observation":
            new = pretty(RULES.observe(state, None if a["seat"] == "None" else int(a["seat"])))
        elif kind == "errors":
            cases = []
            for case in body:
                try:
                    RULES.decide(state, case["seat"], case["action"], random.Random(0))
                except IllegalAction as e:
                    cases.append({**case, "error": str(e)})
                else:
                    raise SystemExit(f"documented illegal action is now legal: {case}")
            new = pretty(cases)
        else:
            continue
        head = raw[: raw.index("```json\n") + len("```json\n")]
        text = text.replace(raw, f"{head}{new}\n```", 1)
    return text


if __name__ == "__main__":
    DOC.write_text(refresh(DOC.read_text(encoding="utf-8")), encoding="utf-8")
    print(f"refreshed {DOC}")
