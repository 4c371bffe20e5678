"""RabbitMQ restarted while challenges arrive: every challenge is accepted, and played once."""

from __future__ import annotations

import itertools
import json
import re
import threading
import urllib.error
import urllib.request
import uuid
from datetime import timedelta
from pathlib import Path

import pytest
from django.db import connection
from django.utils import timezone
from django_celery_beat.models import IntervalSchedule, PeriodicTask
from rest_framework.authtoken.models import Token

from config import queues
from tests.factories import UserFactory
from tests.faults.conftest import Stack, assert_intact, django_shell, platform_env, wait_until
from tests.faults.services import OwnRabbit
from tests.support.processes import free_port
from tournaments.competition import ladders
from tournaments.competition.models import Ladder, LadderRound
from tournaments.play.models import Match

pytestmark = [pytest.mark.faults, pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

SLOT_SECONDS = 10
"""The ladder's round interval in the broker-outage test: one slot outlasts a node's restart."""
PACE = 0.5
"""Seconds between two challenges of the stream: two a second still meet the broker stopping,
down and starting many times over, and each is a match the worker plays (at five a second the
stream was the costliest test's work, 2026-12-04)."""
CHALLENGE = json.dumps({"game": "brexit", "seats": [{"builtin": "random"}] * 3}).encode()


def post_challenge(base: str, token: str) -> int:
    request = urllib.request.Request(
        f"{base}/api/matches/",
        data=CHALLENGE,
        headers={"Authorization": f"Token {token}", "Content-Type": "application/json"},
    )
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return int(response.status)
    except urllib.error.HTTPError as exc:
        return exc.code


def test_challenges_during_a_broker_restart_are_accepted_and_played_once(
    own_rabbit: OwnRabbit, stack: Stack
) -> None:
    # Users enough to share the challenges each well within its hourly challenge budget (30) for
    # as long as the restart takes: four ran out of it at load 18, when the stream went on for
    # minutes. The web server counts them under a cache prefix of its own (runs reuse user ids).
    tokens = [Token.objects.create(user=UserFactory()).key for _ in range(40)]
    # Matches pile up unplayed while the broker is down, for as long as its restart takes: on a
    # loaded machine that outgrew the accounts' caps of active matches (a 429, not this test's
    # subject), so the caps are lifted here.
    env = platform_env(
        CELERY_BROKER_URL=own_rabbit.url,
        TEST_CACHE_PREFIX=f"faults-{uuid.uuid4().hex[:8]}",
        FAIR_MAX_ACTIVE_MATCHES="100000",
    )
    port = free_port()
    web = stack.web(env, port)
    worker = stack.worker(env)
    base = f"http://127.0.0.1:{port}"

    codes: dict[str, list[int]] = {"up": [], "down": [], "back": []}
    phase = "up"
    stop = threading.Event()

    def arrive() -> None:  # a steady stream of challenges, whatever the broker does
        for n in itertools.count():
            if stop.wait(PACE):
                return
            codes[phase].append(post_challenge(base, tokens[n % len(tokens)]))

    client = threading.Thread(target=arrive)
    client.start()
    try:
        wait_until(lambda: len(codes["up"]) >= 3, 30, "challenges to arrive", web)
        phase = "down"
        own_rabbit.stop()
        # Down until the web has answered challenges with no broker to send them to (those
        # made while the node was stopping may have reached it).
        answered = len(codes["down"])
        wait_until(
            lambda: len(codes["down"]) >= answered + 3,
            90,
            "challenges answered while the broker is down",
            web,
            seen=lambda: codes,
        )
        own_rabbit.start()
        phase = "back"
        wait_until(lambda: len(codes["back"]) >= 3, 30, "challenges to arrive", web)
    finally:
        stop.set()
        client.join(60)

    assert codes["up"] and codes["down"] and codes["back"], codes
    assert {c for cs in codes.values() for c in cs} == {201}, (codes, web.log[-4000:])
    ids = [str(i) for i in Match.objects.values_list("id", flat=True)]
    assert len(ids) == sum(len(cs) for cs in codes.values())

    # What beat's reaper does once the broker is back: send again what was never sent.
    reaper_env = {**env, "MATCH_RESEND_AFTER_SECONDS": "0"}
    django_shell(reaper_env, "from tournaments.tasks import reap_matches; print(reap_matches())")
    wait_until(
        lambda: not Match.objects.exclude(status=Match.Status.FINISHED).exists(),
        120,
        "every challenge to be played",
        worker,
        web,
    )
    db = connection.settings_dict
    assert_intact(f"postgresql://{db['USER']}@{db['HOST']}:{db['PORT']}/{db['NAME']}", ids)
    assert "broker unavailable" in web.log


@pytest.mark.django_db(transaction=True)
def test_an_upload_while_the_broker_is_down_is_accepted_and_its_validation_sent_later(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The upload's twin of the challenge: 201 with the version pending, then the reaper."""
    from kombu.exceptions import OperationalError
    from rest_framework.test import APIClient

    from tests.factories import BotFactory
    from tournaments import tasks
    from tournaments.play import reaper
    from tournaments.play.models import BotVersion

    def broker_down(*args: object) -> None:
        raise OperationalError("[Errno 111] Connection refused")

    monkeypatch.setattr(tasks.validate_bot_version, "delay", broker_down)
    bot = BotFactory()
    client = APIClient()
    client.force_authenticate(bot.owner)  # type: ignore[arg-type]
    source = "def act(observation, legal):\n    return legal['actions'][0]\n"
    r = client.post(f"/api/bots/{bot.pk}/versions/", {"source": source}, format="json")
    assert r.status_code == 201, r.content
    version = BotVersion.objects.get(bot=bot)
    assert version.status == BotVersion.Status.PENDING

    # The broker is back: the reaper sends the validation again, once (its smoke match's
    # message is that validation, on the validation queue: tournaments/play/dispatch.py).
    sent: list[int] = []
    monkeypatch.setattr(tasks.validate_bot_version, "delay", sent.append)
    reaper.reap_expired_leases(stale_queued_after=timedelta(0))
    assert sent == [version.pk]


def test_a_ladder_round_beat_could_not_send_is_played_when_the_broker_returns(
    own_rabbit: OwnRabbit, stack: Stack, tmp_path: Path
) -> None:
    """Beat sends a ladder's round while the broker is down: the send fails and beat moves on.
    The next round task, once the broker is back, plays that slot's round before its own."""
    ladder = Ladder.objects.create(name="outage", game="brexit", seats=2, builtins=["random"] * 2)
    every, _ = IntervalSchedule.objects.get_or_create(
        every=SLOT_SECONDS, period=IntervalSchedule.SECONDS
    )
    PeriodicTask.objects.update_or_create(
        name="ladder rounds", defaults={"task": queues.RUN_LADDERS, "interval": every}
    )
    env = platform_env(CELERY_BROKER_URL=own_rabbit.url)
    worker = stack.worker(env)
    beat = stack.beat(env, tmp_path / "beat")

    def sends() -> int:
        return len(re.findall(r"Sending due task .*\(tournaments\.run_ladders\)", beat.log))

    def slots() -> list[LadderRound]:
        return list(LadderRound.objects.filter(ladder=ladder).order_by("slot"))

    def idle() -> bool:
        return not Match.objects.filter(
            ladder=ladder, status__in=[Match.Status.QUEUED, Match.Status.RUNNING]
        ).exists()

    wait_until(lambda: any(r.matches for r in slots()), 60, "a first round", worker, beat)
    first = slots()[-1].slot

    def settled() -> bool:  # the newest slot's round is played and its games are over
        # Beat may fire a few milliseconds before a slot starts, and that round is then the
        # previous slot's: asking for this slot's alone waited forever when beat ran early.
        now = ladders.slot_of(timezone.now(), SLOT_SECONDS)
        return slots()[-1].slot >= now - timedelta(seconds=SLOT_SECONDS) and idle()

    # The bots are free when the outage starts, so the first round played late can seat them.
    wait_until(settled, 60, "a round whose games are over", worker, beat)
    down = slots()[-1].slot
    own_rabbit.stop()
    before = sends()
    wait_until(lambda: sends() > before and "Message Error" in beat.log, 60, "a lost send", beat)
    own_rabbit.start()
    lost = ladders.slot_of(timezone.now(), SLOT_SECONDS)  # no later: the broker is back
    wait_until(lambda: slots()[-1].slot > lost, 90, "a round after the outage", worker, beat)

    step = timedelta(seconds=SLOT_SECONDS)
    played = [r.slot for r in slots() if r.slot >= first]
    on_time, since = [s for s in played if s <= down], [s for s in played if s > down]
    # Every slot up to the outage has its round, and every slot from the first one played late on:
    # the slot whose send beat lost is not skipped.
    assert on_time == [first + n * step for n in range(len(on_time))], played
    assert since and since == [since[0] + n * step for n in range(len(since))], played
    # A round task plays at most the newest MISSED_SLOTS_PLAYED missed slots (no burst after a
    # long outage): older ones go unplayed only when the restart outlasted them (at load 18).
    if since[0] > down + step:
        assert since[0] >= lost - ladders.MISSED_SLOTS_PLAYED * step, (played, down, lost)
    assert len(played) >= 3
    # A late round seats the free bots; a slot played right after it in the same task finds them
    # still in that round's games, as any round does while its members play.
    late = [r for r in slots() if down < r.slot <= lost]
    assert late and late[0].matches, [(r.slot, r.matches) for r in late]
