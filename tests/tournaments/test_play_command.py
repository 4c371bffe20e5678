"""manage.py play: a local match in the same format as stored ones, optionally persisted."""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from games.engine.match import replay
from games.engine.platform_events import game_events
from games.engine.registry import get
from games.sandbox.local import unpack_into
from replays import store
from tests.games.sandbox.conftest import modes
from tests.games.sandbox.test_examples import example
from tests.support import untimed
from tests.tournaments.conftest import Seen, assert_true_times
from tournaments import tasks
from tournaments.play import services
from tournaments.play.models import Bot, BotLog, BotVersion, Match

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


def rows(match: Match) -> dict:
    """What a stored match is made of, less timings: its row, its seats, its events, its logs."""
    match.refresh_from_db()
    fields = ["game", "options", "seed", "status", "outcome", "last_version", "rated", "error"]
    seat_fields = ["number", "bot_version_id", "builtin", "rank", "score", "verdicts", "strikes"]
    events = []
    for ev in store.read(match.id):
        events.append((ev.version, ev.type, untimed(ev.payload), ev.metadata))
    return {
        "match": {f: getattr(match, f) for f in fields},
        "creator": match.created_by_id,
        "seats": list(match.seats.order_by("number").values(*seat_fields, "disqualified")),
        "events": events,
        "logs": list(BotLog.objects.filter(match=match).values_list("seat", "version", "text")),
    }


@pytest.mark.django_db
def test_persist_writes_the_same_rows_as_a_worker(tmp_path: Path) -> None:
    """play --persist stores through the services and plays with the runner, as a worker does."""
    bot = tmp_path / "example.py"
    bot.write_text(example("brexit"))  # deterministic: seeded in start(), prints in start and end
    seats = ["--seat", str(bot), "--seat", "builtin:greedy", "--seat", "builtin:random"]
    call_command("play", "--game", "brexit", *seats, "--seed", "21", "--persist")
    local = Match.objects.get()
    version = BotVersion.objects.get()
    assert (version.bot.name, version.number, version.bot.owner.username) == (
        "local-example",
        1,
        "local",
    )

    queued = services.create_challenge(
        user=version.bot.owner,
        game="brexit",
        seats=[{"bot_version": version.pk}, {"builtin": "greedy"}, {"builtin": "random"}],
        seed=21,
    )
    tasks.play_match.apply((str(queued.id),))  # the task a worker runs, in this process

    played, reference = rows(local), rows(queued)
    assert played["match"]["status"] == "finished"
    assert any("playing seat 0" in text for _, _, text in played["logs"])  # start() printed
    assert played == reference


@pytest.mark.django_db
def test_persist_keeps_a_new_bot_private_unless_asked(bot_file: Path) -> None:
    play_against_random(bot_file, 9, "--persist")
    play_against_random(bot_file, 10, "--persist")  # the same file: the same version again
    [bot] = Bot.objects.all()
    assert not bot.is_public
    assert bot.versions.count() == 1 and Match.objects.count() == 2
    other = bot_file.with_name("shared_bot.py")
    other.write_text(BOT)
    play_against_random(other, 9, "--persist", "--public")
    assert Bot.objects.get(name="local-shared_bot").is_public


@pytest.mark.django_db
def test_persist_numbers_a_changed_file_as_the_next_version(bot_file: Path) -> None:
    play_against_random(bot_file, 9, "--persist")
    bot_file.write_text(BOT + "\n# changed\n")
    play_against_random(bot_file, 9, "--persist")
    assert list(BotVersion.objects.order_by("number").values_list("number", flat=True)) == [1, 2]


# Committed, as the command commits: the times are the database clock at each transaction.
@pytest.mark.django_db(transaction=True)
def test_persist_plays_a_builtin_match_through_its_lifecycle(seen_while_played: Seen) -> None:
    """Issue 24: a built-in-only match played unclaimed showed ``queued`` while it played and
    ``started_at == finished_at``; claimed first, it is running while played, times true."""
    seats = ["--seat", "builtin:greedy", "--seat", "builtin:cautious", "--seat", "builtin:bold"]
    call_command("play", "--game", "brexit", *seats, "--seed", "5", "--persist")
    match = Match.objects.get()
    assert seen_while_played == [(Match.Status.RUNNING, True, False)]
    assert match.status == Match.Status.FINISHED
    assert_true_times(match)


def test_a_match_stopped_by_a_limit_is_written_and_reported(tmp_path: Path) -> None:
    """Locally too: the document ends with the abort and its reason, not a traceback."""
    out = tmp_path / "stopped.json"
    seats = ["--seat", "builtin:random"] * 3
    with pytest.raises(CommandError, match=r"aborted: Stopped by the platform.*10 decisions"):
        call_command("play", "--game", "brexit", *seats, "--max-steps", "10", "--out", str(out))
    doc = json.loads(out.read_text())
    assert doc["match"]["status"] == "aborted" and doc["match"]["outcome"] is None
    assert doc["events"][-1]["type"] == "match_aborted"
    assert "10 decisions" in doc["events"][-1]["payload"]["reason"]


def test_bad_seats_are_a_clear_error() -> None:
    with pytest.raises(CommandError, match="needs 2 to 5 seats"):
        call_command("play", "--game", "brexit", "--seat", "builtin:random")
    with pytest.raises(CommandError, match="unknown built-in"):
        call_command(
            "play", "--game", "brexit", "--seat", "builtin:nope", "--seat", "builtin:random"
        )
    with pytest.raises(CommandError, match="unknown game"):
        call_command("play", "--game", "chess", "--seat", "builtin:random")


def test_a_local_bot_is_unpacked_for_its_owner_alone(tmp_path: Path) -> None:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as archive:
        archive.writestr("bot.py", BOT)
        archive.writestr("lib/helper.py", "PICK = 0\n")
    folder = unpack_into(tmp_path / "seat-0", "mine.zip", ("mine.zip", buf.getvalue()))
    assert modes(folder) == {
        folder: 0o700,
        folder / "bot.py": 0o600,
        folder / "lib": 0o700,
        folder / "lib" / "helper.py": 0o600,
    }
