"""An uploaded version becomes ready only if it compiles and finishes a sandboxed smoke match."""

from __future__ import annotations

import io
import zipfile

import pytest

from games.engine.platform_events import MATCH_FINISHED
from replays import store
from tests.factories import BotVersionFactory
from tournaments import tasks
from tournaments.play import runner
from tournaments.play.models import BotVersion, Match
from tournaments.play.validation import validate

pytestmark = pytest.mark.django_db

GOOD = b"""
import random
def act(observation, legal):
    if legal["actions"]:
        return random.choice(legal["actions"])
    if "bid" in (legal["space"] or {}):
        return {"bid": 0}
    return {"place": []}
"""


def pending(source: bytes, game: str = "brexit") -> BotVersion:
    return BotVersionFactory(bot__game=game, upload=source, status=BotVersion.Status.PENDING)


@pytest.mark.parametrize("game", ["brexit", "brasilis"])
def test_a_legal_bot_becomes_ready(game: str) -> None:
    version = pending(GOOD, game)
    assert validate(version.id) == "ready"
    version.refresh_from_db()
    assert (version.status, version.validation_error) == ("ready", "")
    assert version.validated_at is not None


def test_a_syntax_error_is_rejected_with_its_line() -> None:
    version = pending(b"def act(observation, legal):\n    return {\n")
    assert validate(version.id) == "rejected"
    version.refresh_from_db()
    assert "bot.py" in version.validation_error and "line 2" in version.validation_error


def test_a_crash_is_rejected_with_its_trace() -> None:
    version = pending(b"def act(observation, legal):\n    raise RuntimeError('boom at move one')\n")
    assert validate(version.id) == "rejected"
    version.refresh_from_db()
    assert "crash" in version.validation_error and "boom at move one" in version.validation_error


def test_a_timeout_is_rejected() -> None:
    version = pending(b"import time\ndef act(observation, legal):\n    time.sleep(60)\n")
    assert validate(version.id) == "rejected"
    version.refresh_from_db()
    assert "timeout" in version.validation_error


def test_a_smoke_match_stopped_by_a_platform_limit_rejects_with_the_reason(settings) -> None:  # type: ignore[no-untyped-def]
    settings.MATCH_MAX_STEPS = 3
    version = pending(GOOD)
    assert validate(version.id) == "rejected"
    version.refresh_from_db()
    # The smoke match is stored (tournaments.play.validation): the error names it, so it can be read.
    smoke = Match.objects.get(validation_of=version)
    assert smoke.status == Match.Status.ABORTED
    assert smoke.error.startswith("Stopped by the platform")
    assert version.validation_error == f"smoke match {smoke.pk} aborted: {smoke.error}"
    assert "3 decisions" in version.validation_error


def test_validation_happens_once() -> None:
    version = pending(b"def act(observation, legal):\n    raise RuntimeError\n")
    validate(version.id)
    BotVersion.objects.filter(id=version.id).update(
        upload=GOOD
    )  # even if it were changed behind our back
    assert validate(version.id) == "rejected"


def test_a_worker_that_cannot_isolate_bots_leaves_versions_pending(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    version = pending(GOOD)
    monkeypatch.setenv("BACKROOM_SANDBOX", "no-such-mode")
    assert validate(version.id) == "pending"
    version.refresh_from_db()
    assert (version.status, version.validation_error) == ("pending", "")


def test_any_failure_of_validation_itself_rejects_with_a_message(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    version = pending(GOOD)

    def broken(match_id: object, *args: object, **kwargs: object) -> None:
        raise OSError(36, "File name too long")

    monkeypatch.setattr(runner, "run_match", broken)
    # Called as the worker calls it: nothing escapes, the version is not left pending.
    assert tasks.validate_bot_version(version.id) == "rejected"
    version.refresh_from_db()
    assert version.status == "rejected" and version.validated_at is not None
    assert version.validation_error.startswith("validation failed: OSError")
    assert "File name too long" in version.validation_error


def test_a_syntax_error_in_a_file_with_a_control_character_in_its_name_is_quoted_escaped() -> None:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as archive:
        archive.writestr("bot.py", GOOD)
        archive.writestr("lib/\x1b[2Jx.py", b"def broken(:\n")
    version = BotVersionFactory(
        bot__game="brexit",
        filename="bot.zip",
        upload=buf.getvalue(),
        status=BotVersion.Status.PENDING,
    )
    assert validate(version.id) == "rejected"
    version.refresh_from_db()
    assert version.validation_error.startswith("syntax error in lib/\\x1b[2Jx.py, line 1: ")


def test_a_failure_whose_message_postgres_refuses_still_rejects_with_it_escaped(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Saved as it was, the NUL failed the save (and the surrogate its encoding): the version
    # stayed pending, and the reaper sent its validation again and again.
    version = pending(GOOD)

    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("bot said \x00 and \ud800")

    monkeypatch.setattr(runner, "run_match", broken)
    assert tasks.validate_bot_version(version.id) == "rejected"
    version.refresh_from_db()
    assert version.validation_error == "validation failed: RuntimeError: bot said \\x00 and \\ud800"


def test_each_version_gets_its_own_smoke_seed_recorded_on_its_match() -> None:
    versions = [pending(GOOD), pending(GOOD)]
    for version in versions:
        assert validate(version.id) == "ready"
    smokes = [Match.objects.get(validation_of=v) for v in versions]
    assert smokes[0].seed != smokes[1].seed  # 63 random bits each
    for smoke in smokes:
        # The seed the match was played with is the one its row keeps, so it replays.
        [finished] = [e for e in store.read(smoke.pk) if e.type == MATCH_FINISHED]
        assert finished.payload["seed"] == smoke.seed


def test_an_upload_that_does_not_compile_is_rejected_and_its_queued_smoke_match_never_played(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from tests.factories import BotFactory
    from tournaments.play import dispatch, services

    monkeypatch.setattr(dispatch, "validate_bot_version", lambda version_id: True)
    bot = BotFactory()
    version, _ = services.upload_version(
        bot=bot,  # type: ignore[arg-type]
        filename="bot.py",
        data=b"def act(observation, legal):\n    return {\n",
    )
    smoke = Match.objects.get(validation_of=version)  # queued with the upload
    assert smoke.status == Match.Status.QUEUED
    assert tasks.validate_bot_version(version.id) == "rejected"
    smoke.refresh_from_db()
    assert smoke.status == Match.Status.ABORTED and "line 2" in smoke.error
    assert smoke.started_at is None  # no worker took it
