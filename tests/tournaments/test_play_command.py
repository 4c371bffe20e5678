"""manage.py play: a local match in the same format as stored ones, optionally persisted."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from games.engine.match import replay
from games.engine.platform_events import game_events
from games.engine.registry import get
from replays import store
from tournaments.models import Match

BOT = """
import random, sys
def act(observation, legal):
    print("local debug line", file=sys.stderr)
    if legal["actions"]:
        return random.choice(legal["actions"])
    return {"place": []}
"""


@pytest.fixture
def bot_file(tmp_path: Path) -> Path:
    path = tmp_path / "my_bot.py"
    path.write_text(BOT)
    return path


def play_against_random(bot_file: Path, seed: int, *extra: str) -> None:
    """Play ``bot_file`` against two built-in random bots in a Brexit match."""
    seats = ["--seat", str(bot_file), "--seat", "builtin:random", "--seat", "builtin:random"]
    call_command("play", "--game", "brexit", *seats, "--seed", str(seed), *extra)


def test_play_writes_the_match_document(bot_file: Path, tmp_path: Path) -> None:
    out = tmp_path / "match.json"
    play_against_random(bot_file, 7, "--out", str(out))
    doc = json.loads(out.read_text())
    assert doc["format"] == "backroom-match/1"
    assert doc["match"]["seed"] == 7 and doc["match"]["status"] == "finished"
    events = doc["events"]
    assert [e["version"] for e in events] == list(range(1, len(events) + 1))
    rules = get("brexit").rules
    state = replay(
        rules, game_events({k: v for k, v in e.items() if k != "version"} for e in events)
    )
    assert rules.outcome(state) == doc["match"]["outcome"]
    assert any(e["type"] == "bot_verdict" and e["payload"]["seat"] == 0 for e in events)


def test_the_same_seed_plays_the_same_match(tmp_path: Path) -> None:
    docs = []
    for name in ("a.json", "b.json"):
        call_command(
            "play",
            "--game",
            "brasilis",
            *["--seat", "builtin:random"] * 4,
            "--seed",
            "3",
            "--out",
            str(tmp_path / name),
        )
        docs.append(json.loads((tmp_path / name).read_text()))
    assert docs[0]["events"] == docs[1]["events"]


@pytest.mark.django_db
def test_persist_stores_a_finished_match(bot_file: Path) -> None:
    play_against_random(bot_file, 9, "--persist")
    match = Match.objects.get()
    assert match.status == "finished" and match.seed == 9
    assert store.current_version(match.id) == match.last_version > 0
    assert match.seats.get(number=0).bot_version is not None
    assert match.logs.filter(seat=0).exists()


def test_bad_seats_are_a_clear_error() -> None:
    with pytest.raises(CommandError, match="needs 2 to 5 seats"):
        call_command("play", "--game", "brexit", "--seat", "builtin:random")
    with pytest.raises(CommandError, match="unknown built-in"):
        call_command(
            "play", "--game", "brexit", "--seat", "builtin:nope", "--seat", "builtin:random"
        )
    with pytest.raises(CommandError, match="unknown game"):
        call_command("play", "--game", "chess", "--seat", "builtin:random")
