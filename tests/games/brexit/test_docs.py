"""docs/games/brexit.md must match the code: every JSON block is replayed or checked here."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path
from typing import Any

import pytest

from games.brexit.bots import random_legal
from games.brexit.rules import RULES
from games.engine.errors import IllegalAction
from games.engine.match import LocalMatch, replay

DOC = Path(__file__).resolve().parents[3] / "docs" / "games" / "brexit.md"
BLOCK = re.compile(r"<!-- example: (?P<name>[^>]*?) -->\n```json\n(?P<body>.*?)\n```", re.S)


def _examples() -> list[tuple[str, dict[str, str], Any]]:
    text = DOC.read_text(encoding="utf-8")
    out = []
    for mt in BLOCK.finditer(text):
        kind, *attrs = mt["name"].split()
        out.append((kind, dict(a.split("=", 1) for a in attrs), json.loads(mt["body"])))
    return out


def _seat(value: str) -> int | None:
    return None if value == "None" else int(value)


def test_every_json_block_is_a_checked_example() -> None:
    text = DOC.read_text(encoding="utf-8")
    assert text.count("```json") == len(_examples()) > 10


def test_doc_cites_every_ruling() -> None:
    text = DOC.read_text(encoding="utf-8")
    missing = [f"B-{i}" for i in range(1, 32) if not re.search(rf"\bB-{i}\b", text)]
    assert missing == []
    assert "E-B1" in text and "E-B2" in text


def test_doc_states_each_ruling_itself() -> None:
    """A bot author needs nothing outside the repository: no pointer to the rules file or seeds."""
    text = DOC.read_text(encoding="utf-8")
    for outside in ("shared/", "RULINGS", "seeds/", "section 2"):
        assert outside not in text
    rows = dict(re.findall(r"^\| (B-\d+) \| (.+?) \|", text, re.M))
    assert sorted(rows, key=lambda r: int(r[2:])) == [f"B-{i}" for i in range(1, 32)]
    assert all(len(ruling) > 60 for ruling in rows.values()), "each ruling is stated, not cited"


def test_card_tables_are_the_card_data() -> None:
    data = json.loads((DOC.parents[2] / "games" / "brexit" / "cards.json").read_text("utf-8"))
    text = DOC.read_text(encoding="utf-8")
    countries = re.findall(r"^\| `(C\d\d)` \| ([^|]+) \| ([^|]+) \|$", text, re.M)
    assert [(c, n.strip(), re.findall(r"`(\w+)`", s)) for c, n, s in countries] == [
        (c["id"], c["name"], c["symbols"]) for c in data["countries"]
    ]
    agendas = re.findall(r"^\| `(AG_\w+)` \| ([^|]+) \| `(\w+)` \|$", text, re.M)
    assert [(a, n.strip(), s) for a, n, s in agendas] == [
        (a["id"], a["name"], a["symbol"]) for a in data["agendas"]
    ]


def _documented_fields(event_type: str) -> set[str]:
    text = DOC.read_text(encoding="utf-8")
    (row,) = re.findall(rf"^\| `{event_type}` \| (.+?) \|", text, re.M)
    return set(re.findall(r"`(\w+)`", row))


def test_events_table_names_every_payload_field() -> None:
    """Every key of every event of whole games (and of round_scored results) is in its row."""
    for seats, seed in ((2, 1), (3, 2), (4, 3), (5, 4)):
        m = LocalMatch(RULES, seats, seed)
        m.play_out([random_legal.act] * seats, random.Random(seed))
        seen: dict[str, set[str]] = {}
        for ev in m.events:
            keys = seen.setdefault(ev["type"], set())
            keys.update(ev["payload"])
            if ev["type"] == "round_scored":
                keys.update(k for r in ev["payload"]["results"] for k in r)
            if ev["type"] == "game_ended":
                keys.update(ev["payload"]["detail"])
        missing = {t: sorted(keys - _documented_fields(t)) for t, keys in seen.items()}
        assert {t: keys for t, keys in missing.items() if keys} == {}


def test_worked_example_replays_from_the_stated_setup() -> None:
    examples = _examples()
    (scenario,) = [body for kind, _, body in examples if kind == "scenario"]
    actions = sorted(
        ((int(a["after"]), int(a["seat"]), body) for kind, a, body in examples if kind == "action"),
        key=lambda x: x[0],
    )
    assert [k for k, _, _ in actions] == list(range(len(actions)))
    # Play the documented actions, keeping the state before each and the events after each.
    m = LocalMatch(RULES, scenario["seats"], scenario["seed"], scenario["options"])
    produced = {0: json.loads(json.dumps(m.events))}
    states = {0: RULES.dump(m.state)}
    for k, seat, action in actions:
        assert m.pending()[0]["seat"] == seat
        RULES.check(m.state, seat, action)  # the example action is legal where it stands
        produced[k + 1] = json.loads(json.dumps(m.play(seat, action)))
        states[k + 1] = RULES.dump(m.state)
    assert replay(RULES, [e for k in sorted(produced) for e in produced[k]]) == m.state
    checked = 0
    for kind, attrs, body in examples:
        after = int(attrs.get("after", 0))
        state = RULES.load(states[after])
        if kind == "events":
            assert body == produced[after], f"events after action {after}"
        elif kind == "legal":
            assert body == RULES.legal(state, int(attrs["seat"]))
        elif kind == "observation":
            obs = RULES.observe(state, _seat(attrs["seat"]))
            assert list(body) == list(obs)  # exactly the keys observe() produces
            assert body == json.loads(json.dumps(obs))
        elif kind == "errors":
            for case in body:
                with pytest.raises(IllegalAction) as err:
                    RULES.decide(state, case["seat"], case["action"], random.Random(0))
                assert str(err.value) == case["error"]
                assert RULES.dump(state) == states[after]
        elif kind == "setup":
            m = LocalMatch(
                RULES, body["setup"]["seats"], body["setup"]["seed"], body["setup"]["options"]
            )
            obs = RULES.observe(m.state, _seat(attrs["seat"]))
            assert body["observation"] == {k: obs[k] for k in body["observation"]}
        elif kind not in ("scenario", "action"):
            raise AssertionError(f"unknown example kind {kind!r}")
        checked += 1
    assert checked == len(examples)
