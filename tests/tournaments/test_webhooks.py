"""A bot's webhook: set by its owner (API field, errors page form), refused for other schemes
and (production) private addresses, called by a real worker with a signed POST on each crash,
timeout, disqualification and rejected version, and tried again with backoff on a 5xx."""

from __future__ import annotations

import hashlib
import hmac
import itertools
import json
import re
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from django.test import Client, override_settings

from tests.factories import BotFactory, BotVersionFactory, MatchFactory, SeatFactory, UserFactory
from tests.support.processes import Processes, platform_env, wait_until
from tests.test_settings import run_manage
from tournaments.play import services, validation, webhooks
from tournaments.play.models import Bot, BotVersion, Fault, WebhookDelivery
from tournaments.play.runner import RunResult, run_match

CRASHER = b"""
def act(observation, legal):
    raise RuntimeError("I always crash")
"""


def _client(user: Any = None) -> Client:
    c = Client()
    if user is not None:
        c.force_login(user)
    return c


@pytest.mark.parametrize(
    "url",
    [
        "ftp://example.com/hook",
        "file:///etc/passwd",
        "javascript:alert(1)",
        "gopher://example.com/",
        "http://user:pw@93.184.216.34/",
        "not a url",
        "https://" + "a" * 600 + ".com/",
    ],
)
def test_only_http_urls_are_called(url: str) -> None:
    with pytest.raises(webhooks.BadWebhook):
        webhooks.check_url(url)


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1:8000/hook",
        "http://localhost/hook",
        "http://[::1]/",
        "http://10.1.2.3/",
        "http://192.168.0.10/",
        "http://172.16.5.5/",
        "http://169.254.169.254/latest/meta-data/",
        "http://0.0.0.0/",
        "http://[fd00::1]/",
        "http://224.0.0.1/",
    ],
)
@override_settings(WEBHOOK_ALLOW_PRIVATE=False)
def test_production_refuses_private_and_loopback_addresses(url: str) -> None:
    with pytest.raises(webhooks.BadWebhook, match="private, loopback or reserved"):
        webhooks.check_url(url)


@override_settings(WEBHOOK_ALLOW_PRIVATE=False)
def test_a_public_address_is_called() -> None:
    # The documented defaults: five attempts, the first retry after 30 s (docs/bots.md).
    from config.settings import base

    assert (base.WEBHOOK_ATTEMPTS, base.WEBHOOK_BACKOFF_SECONDS) == (5, 30.0)
    assert webhooks.check_url("https://93.184.216.34/hook") == "https://93.184.216.34/hook"


@override_settings(WEBHOOK_ALLOW_PRIVATE=False)
def test_a_name_that_does_not_resolve_is_said_in_plain_words() -> None:
    # .invalid never resolves (RFC 2606); the resolver's "[Errno -2] ..." is not shown.
    with pytest.raises(webhooks.BadWebhook) as refused:
        webhooks.check_url("https://no-such-host.invalid/hook")
    assert str(refused.value) == "the host name 'no-such-host.invalid' does not resolve"


@pytest.mark.services  # a manage.py process with the production settings
def test_production_settings_never_allow_private_addresses() -> None:
    """Even with WEBHOOK_ALLOW_PRIVATE=1 in its environment, production refuses them."""
    code = (
        "from tournaments.play import webhooks\n"
        "try:\n    webhooks.check_url('http://127.0.0.1/')\n"
        "except webhooks.BadWebhook as exc:\n    print('refused:', exc)"
    )
    result = run_manage(
        "shell",
        "-c",
        code,
        DJANGO_SETTINGS_MODULE="config.settings.production",
        SECRET_KEY="x" * 20 + "a-long-random-production-secret-value-0123456789",
        ALLOWED_HOSTS="backroom.example",
        WEBHOOK_ALLOW_PRIVATE="1",
    )
    assert "refused: the webhook's host '127.0.0.1' is a private" in result.stdout, result.stderr


@pytest.mark.django_db
def test_the_owner_sets_it_through_the_api_and_only_the_owner_sees_it() -> None:
    owner, other = UserFactory(), UserFactory()
    bot = BotFactory(owner=owner)
    url = f"/api/bots/{bot.pk}/"
    r = _client(owner).patch(url, {"webhook_url": "http://127.0.0.1:9/hook"}, "application/json")
    assert r.status_code == 200, r.content
    body = r.json()
    assert body["webhook_url"] == "http://127.0.0.1:9/hook"
    assert len(body["webhook_secret"]) == 64
    # The secret stays the same when the URL changes.
    again = _client(owner).patch(url, {"webhook_url": "http://127.0.0.1:10/"}, "application/json")
    assert again.json()["webhook_secret"] == body["webhook_secret"]
    for user in (None, other):
        seen = _client(user).get(url).json()
        assert "webhook_url" not in seen and "webhook_secret" not in seen
        listed = _client(user).get("/api/bots/").json()["results"]
        assert all("webhook_secret" not in b for b in listed)
    bad = _client(owner).patch(url, {"webhook_url": "ftp://example.com/"}, "application/json")
    assert bad.status_code == 400 and "webhook_url" in bad.json()
    with override_settings(WEBHOOK_ALLOW_PRIVATE=False):
        local = _client(owner).patch(url, {"webhook_url": "http://127.0.0.1/"}, "application/json")
    assert local.status_code == 400
    assert "private, loopback or reserved" in str(local.json()["webhook_url"])
    removed = _client(owner).patch(url, {"webhook_url": ""}, "application/json")
    assert removed.status_code == 200 and removed.json()["webhook_url"] == ""


@pytest.mark.django_db
def test_the_owner_sets_it_on_the_errors_page() -> None:
    owner, other = UserFactory(), UserFactory()
    bot = BotFactory(owner=owner)
    page = f"/bots/{bot.pk}/errors/"
    assert 'name="webhook_url"' in _client(owner).get(page).content.decode()
    assert 'name="webhook_url"' not in _client(other).get(page).content.decode()
    post = f"/bots/{bot.pk}/webhook/"
    r = _client(owner).post(post, {"webhook_url": "https://example.com/hook"})
    assert r.status_code == 302 and r["Location"] == page
    bot.refresh_from_db()
    assert bot.webhook_url == "https://example.com/hook"
    shown = _client(owner).get(page).content.decode()
    assert bot.webhook_secret in shown
    assert bot.webhook_secret not in _client(other).get(page).content.decode()
    bad = _client(owner).post(post, {"webhook_url": "file:///etc/passwd"})
    assert bad.status_code == 400
    assert "http or https" in bad.content.decode()
    assert _client(other).post(post, {"webhook_url": "https://evil.example/"}).status_code == 404
    assert _client().post(post, {"webhook_url": "https://evil.example/"}).status_code == 404
    # Staff see every bot, but the webhook (where the bot's faults are sent) stays the owner's.
    refused = _client(UserFactory(is_staff=True)).post(post, {"webhook_url": "https://x.example/"})
    assert refused.status_code == 403 and b"only the bot's owner" in refused.content
    bot.refresh_from_db()
    assert bot.webhook_url == "https://example.com/hook"


class Receiver:
    """A real HTTP server on loopback: answers 500 to each call's first attempt, 200 after."""

    def __init__(self) -> None:
        self.calls: list[dict[str, Any]] = []
        self.lock = threading.Lock()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers["Content-Length"]))
                with receiver.lock:
                    delivery = self.headers[webhooks.DELIVERY_HEADER]
                    first = all(c["delivery"] != delivery for c in receiver.calls)
                    receiver.calls.append(
                        {
                            "delivery": delivery,
                            "signature": self.headers[webhooks.SIGNATURE_HEADER],
                            "event": self.headers[webhooks.EVENT_HEADER],
                            "body": body,
                            "status": 500 if first else 200,
                        }
                    )
                self.send_response(500 if first else 200)
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hook"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def answered(self, event: str) -> list[dict[str, Any]]:
        with self.lock:
            return [c for c in self.calls if c["event"] == event]


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    r = Receiver()
    try:
        yield r
    finally:
        r.server.shutdown()
        r.server.server_close()


def _verified(secret: str, call: dict[str, Any]) -> dict[str, Any]:
    """What docs/bots.md tells an author to do: recompute the HMAC of the raw body."""
    expected = "sha256=" + hmac.new(secret.encode(), call["body"], hashlib.sha256).hexdigest()
    assert hmac.compare_digest(expected, call["signature"])
    payload: dict[str, Any] = json.loads(call["body"])
    return payload


@pytest.mark.django_db(transaction=True)
def test_a_worker_calls_it_signed_and_tries_again_after_a_500(
    processes: Processes, receiver: Receiver
) -> None:
    owner = UserFactory()
    bot: Any = BotFactory(owner=owner, game="brexit")
    services.update_bot(bot=bot, webhook_url=receiver.url)
    bot.refresh_from_db()
    worker = processes.worker()

    # A crash in a match: the flush that stores it queues the call once it commits.
    version = BotVersionFactory(bot=bot, upload=CRASHER, status=BotVersion.Status.READY)
    match = MatchFactory(game="brexit")
    SeatFactory(match=match, number=0, bot_version=version)
    for n in (1, 2):
        SeatFactory(match=match, number=n, bot_version=None, builtin="random")
    assert run_match(match.pk) is RunResult.FINISHED

    def retried(event: str) -> bool:
        statuses = {}
        for call in receiver.answered(event):
            statuses.setdefault(call["delivery"], []).append(call["status"])
        return [500, 200] in statuses.values()

    wait_until(lambda: retried("crash"), 60, "a crash call retried after its 500", worker)
    crash = receiver.answered("crash")[0]
    payload = _verified(bot.webhook_secret, crash)
    assert payload["event"] == "crash"
    assert payload["bot"] == {"id": bot.pk, "name": bot.name}
    assert payload["version"] == version.number
    assert payload["match"] == str(match.pk)
    assert payload["seat"] == 0 and payload["step"] > payload["asked_step"] >= 0
    assert "I always crash" in payload["detail"]
    assert payload["time"].endswith("Z")
    # Three strikes and the seat is disqualified: that is told too.
    wait_until(lambda: retried("disqualified"), 60, "the disqualification's call", worker)
    attempts = list(
        WebhookDelivery.objects.filter(delivery=crash["delivery"]).values_list(
            "attempt", "status_code"
        )
    )
    assert sorted(attempts) == [(1, 500), (2, 200)]
    # Every attempt is listed on the owner's errors page.
    page = _client(owner).get(f"/bots/{bot.pk}/errors/").content.decode()
    assert '<td data-label="Event">crash</td>' in page and ">500<" in page and ">200<" in page

    # A rejected version: it does not compile, so it is refused without playing.
    broken = BotVersionFactory(bot=bot, upload=b"def act(:\n", status=BotVersion.Status.PENDING)
    assert validation.validate(broken.pk) == BotVersion.Status.REJECTED
    wait_until(lambda: retried("rejected"), 60, "the rejected version's call", worker)
    rejected = _verified(bot.webhook_secret, receiver.answered("rejected")[-1])
    assert rejected["version"] == broken.number and "line 1" in rejected["detail"]


@pytest.mark.django_db(transaction=True)
@override_settings(WEBHOOK_ATTEMPTS=3, WEBHOOK_BACKOFF_SECONDS=0.1)
def test_a_call_that_keeps_failing_is_tried_a_bounded_number_of_times(
    processes: Processes,
) -> None:
    """A server that never answers 2xx: the worker stops after WEBHOOK_ATTEMPTS attempts."""
    dead = ThreadingHTTPServer(("127.0.0.1", 0), _Always503)
    threading.Thread(target=dead.serve_forever, daemon=True).start()
    try:
        bot = BotFactory()
        Bot.objects.filter(pk=bot.pk).update(
            webhook_url=f"http://127.0.0.1:{dead.server_address[1]}/", webhook_secret="s"
        )
        env_worker = processes.worker(platform_env(WEBHOOK_ATTEMPTS="3"))
        payload = {"event": "crash", "bot": {"id": bot.pk}}
        webhooks._send(bot.pk, payload, DELIVERY)
        wait_until(
            lambda: WebhookDelivery.objects.filter(delivery=DELIVERY).count() == 3,
            60,
            "three attempts",
            env_worker,
        )
        assert not WebhookDelivery.objects.filter(delivery=DELIVERY, attempt__gt=3).exists()
        rows = WebhookDelivery.objects.filter(delivery=DELIVERY).order_by("attempt")
        assert [(r.attempt, r.status_code) for r in rows] == [(1, 503), (2, 503), (3, 503)]
        gaps = [(b.sent_at - a.sent_at).total_seconds() for a, b in itertools.pairwise(rows)]
        assert gaps[1] > gaps[0] * 1.2  # the delay doubles (0.2 s, then 0.4 s)
    finally:
        dead.shutdown()
        dead.server_close()


DELIVERY = "8f2c8a9e-0000-4000-8000-000000000001"


class _Always503(BaseHTTPRequestHandler):
    def do_POST(self) -> None:
        self.rfile.read(int(self.headers["Content-Length"]))
        self.send_response(503)
        self.end_headers()

    def log_message(self, *args: Any) -> None:
        pass


def test_the_documented_check_verifies_a_call() -> None:
    """docs/bots.md's verification snippet, run on a body signed as the worker signs it."""
    text = (Path(__file__).resolve().parents[2] / "docs" / "bots.md").read_text(encoding="utf-8")
    webhook = text[text.index("### Webhook") :]
    snippet = re.search(r"```python\n(.*?)```", webhook, re.S)
    assert snippet is not None
    scope: dict[str, Any] = {}
    exec(snippet.group(1), scope)  # noqa: S102 - our own docs
    body = json.dumps({"event": "crash"}).encode()
    signature = webhooks.sign("the-secret", body)
    assert scope["verified"]("the-secret", body, signature)
    assert not scope["verified"]("another-secret", body, signature)
    assert not scope["verified"]("the-secret", body + b" ", signature)
    headers = {webhooks.SIGNATURE_HEADER, webhooks.EVENT_HEADER, webhooks.DELIVERY_HEADER}
    assert all(f"`{h}`" in webhook for h in headers)


@pytest.mark.django_db
def test_a_smoke_matchs_errors_are_told_as_the_rejection_only(
    django_capture_on_commit_callbacks: Any,
) -> None:
    """Any error in a smoke match rejects its version: one call (rejected), not two."""
    bot: Any = BotFactory()
    Bot.objects.filter(pk=bot.pk).update(webhook_url="http://127.0.0.1:9/", webhook_secret="s")
    version = BotVersionFactory(bot=bot)
    smoke = MatchFactory(validation_of=version)
    played = MatchFactory()
    faults = [
        Fault.objects.create(
            bot=bot, bot_version=version, match=m, seat=0, step=3, asked_step=1, verdict="crash"
        )
        for m in (smoke, played)
    ]
    with django_capture_on_commit_callbacks() as smoke_calls:
        webhooks.notify_faults([(faults[0], "boom")])
    with django_capture_on_commit_callbacks() as match_calls:
        webhooks.notify_faults([(faults[1], "boom")])
    assert (len(smoke_calls), len(match_calls)) == (0, 1)
