"""Replays computed once and read back from the cache (tournaments/play/read_cache.py).

What is cached must be exactly what would be computed, and a value cached for one caller
must never reach a caller with less sight: the owner warms the cache first, then everyone
else reads the same URLs.
"""

from __future__ import annotations

import logging
from typing import Any

import pytest
from django.conf import settings
from django.core.cache import cache
from django.test import Client, override_settings
from redis import Redis
from rest_framework.authtoken.models import Token

from games.engine.registry import get
from replays import snapshots, store
from tests import own_cache
from tests.factories import MatchFactory, UserFactory, flush
from tests.viewer.conftest import play, running_copy
from tests.viewer.test_visibility import client_for, hidden_from, leaked, public_urls
from tournaments.play import read_cache
from tournaments.play.models import Match
from tournaments.play.selectors import replay
from tournaments.play.selectors.replay import LogLine
from tournaments.play.visibility import ALL, PUBLIC, View, seat_view
from tournaments.site import page_cache
from tournaments.site.templatetags.replay_log import log_items

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _cache_in_use(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test starts with the cache believed up (another test may have seen it fail)."""
    monkeypatch.setattr(read_cache, "_away_until", 0.0)


def _refuse(*_: Any, **__: Any) -> Any:
    raise AssertionError("computed again instead of read from the cache")


@pytest.fixture(params=["brexit", "brasilis"])
def running(request: pytest.FixtureRequest, owner: Any) -> Match:
    finished = play(request.param, 4, None, seed=11)
    return running_copy(finished, finished.last_version * 2 // 3, owner=owner)


def _read_twice(url: str, monkeypatch: pytest.MonkeyPatch, *refused: tuple[Any, str]) -> Any:
    """The URL read once, then again with each ``(module, function)`` refusing to compute."""
    first = Client().get(url)
    assert first.status_code == 200, url
    for module, name in refused:
        monkeypatch.setattr(module, name, _refuse)
    again = Client().get(url)
    assert again.status_code == 200, url
    return first, again


def test_a_state_is_folded_once_then_read_back(
    brexit_match: Match, monkeypatch: pytest.MonkeyPatch
) -> None:
    url = f"/api/matches/{brexit_match.pk}/state/?step=37&view=seat1"
    first, again = _read_twice(url, monkeypatch, (replay, "state_at"))
    assert again.json() == first.json()
    # Another step is another value: computed (and here refused).
    with pytest.raises(AssertionError, match="computed again"):
        Client().get(f"/api/matches/{brexit_match.pk}/state/?step=38&view=seat1")


def test_a_finished_match_is_narrated_once(
    brexit_match: Match, monkeypatch: pytest.MonkeyPatch
) -> None:
    first, again = _read_twice(f"/matches/{brexit_match.pk}/", monkeypatch, (replay, "log"))
    assert again.content.count(b"data-step=") == first.content.count(b"data-step=")


def test_a_board_is_drawn_once_then_read_back(
    brasilis_match: Match, monkeypatch: pytest.MonkeyPatch
) -> None:
    url = f"/matches/{brasilis_match.pk}/board/?step=40&view=seat2"
    # The seats' names are kept too: no event is read.
    first, again = _read_twice(url, monkeypatch, (replay, "state_at"), (store, "read"))
    assert again.content == first.content


def test_a_page_of_events_of_a_finished_match_is_read_back(
    brexit_match: Match, monkeypatch: pytest.MonkeyPatch
) -> None:
    url = f"/api/matches/{brexit_match.pk}/events/?after=10&limit=20"
    first, again = _read_twice(url, monkeypatch, (store, "read"))
    assert again.json() == first.json()


def test_a_live_page_that_is_not_full_is_read_afresh(running: Match) -> None:
    """The end of a running match's stream grows: a page short of its limit is not kept."""
    url = f"/api/matches/{running.pk}/events/?after={running.last_version - 2}&limit=50"
    before = Client().get(url).json()
    assert len(before["events"]) == 2
    flush(running, [store.read(running.id)[-1].as_engine_event()])  # its worker's next flush
    assert len(Client().get(url).json()["events"]) == 3


def test_what_the_owner_warmed_is_not_shown_to_anyone_else(running: Match, owner: Any) -> None:
    """Every door that reads through the cache, the owner first, then a stranger and staff."""
    urls = [
        *public_urls(running),
        f"/api/matches/{running.pk}/events/?after=0&limit=5",
        f"/api/matches/{running.pk}/state/?step={running.last_version}&view=seat0",
    ]
    mine = client_for(owner)
    for url in urls:
        assert mine.get(url).status_code == 200, url
    hidden = hidden_from(running, None)
    for user in (None, UserFactory(), UserFactory(is_staff=True)):
        c = client_for(user)
        for url in urls:
            r = c.get(url)
            if "view=seat0" in url:
                assert r.status_code == 404, (user, url)  # the seat's view is its owner's
                continue
            assert r.status_code == 200, (user, url, r.status_code)
            assert not leaked(r.content, hidden), (user, url, leaked(r.content, hidden))


DEAD = {
    "BACKEND": "config.cache.KeptClientRedisCache",
    "LOCATION": "redis://127.0.0.1:9/0",  # the discard port: nothing listens there
    "OPTIONS": {"socket_connect_timeout": 1, "socket_timeout": 1},
}


def test_replays_are_served_while_the_cache_is_down(brexit_match: Match, caplog: Any) -> None:
    with (
        override_settings(CACHES={"default": DEAD}),
        caplog.at_level(logging.WARNING, logger="tournaments.play.read_cache"),
    ):
        for url in (
            f"/api/matches/{brexit_match.pk}/state/?step=5",
            f"/api/matches/{brexit_match.pk}/events/?after=3&limit=4",
            f"/matches/{brexit_match.pk}/",
        ):
            assert Client().get(url).status_code == 200, url
    assert "replay cache unavailable" in caplog.text


def test_read_many_reads_the_keys_or_gives_none_and_leaves_a_cache_that_is_down(
    caplog: Any,
) -> None:
    """The web's caches' one read of their keys (``read_cache.read_many``): what is stored, in
    one round trip; with Redis away, None (the caller renders), logged as what the caller does,
    and the cache left alone for ``AWAY_SECONDS``."""
    cache.set("read-many:kept", 7)
    assert read_cache.read_many(["read-many:kept", "read-many:not"], "x") == {"read-many:kept": 7}
    with (
        override_settings(CACHES={"default": DEAD}),
        caplog.at_level(logging.WARNING, logger="tournaments.play.read_cache"),
    ):
        assert read_cache.read_many(["read-many:kept"], "rendering /somewhere/") is None
    assert not read_cache.usable()
    assert "replay cache unavailable, rendering /somewhere/" in caplog.text


@pytest.mark.parametrize("door", ["token lists", "settled reads"])
def test_the_token_lists_and_settled_reads_render_while_the_cache_is_down(
    brexit_match: Match, door: str, caplog: Any
) -> None:
    """Both read their keys through ``read_many``: Redis away, the views answer, and it is
    logged as the middleware's."""
    if door == "token lists":
        token = Token.objects.create(user=UserFactory())
        client, url = Client(HTTP_AUTHORIZATION=f"Token {token.key}"), "/api/matches/?limit=2"
    else:
        client, url = Client(), f"/api/matches/{brexit_match.pk}/state/?step=5"
    with (
        override_settings(
            CACHES={"default": DEAD},
            PAGE_CACHE_SECONDS=60.0,
            TOKEN_CACHE_SECONDS=60.0,
            SETTLED_READS_SECONDS=60.0,
        ),
        caplog.at_level(logging.WARNING, logger="tournaments.play.read_cache"),
    ):
        assert client.get(url).status_code == 200
    assert f"replay cache unavailable, {door}, rendering /api/matches/" in caplog.text


def test_the_log_markup_escapes_what_it_shows() -> None:
    lines = [
        LogLine(1, "deal", None, "<script>alert(1)</script> & co", None),
        LogLine(2, "bot_verdict", 0, "seat 0 timed out", "timeout"),
    ]
    html = str(log_items(lines, 2))
    assert "<script>" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt; &amp; co" in html
    assert 'class="ev-bot_verdict current bad"' in html
    assert html.count("<li ") == 2


@pytest.mark.parametrize("warm", [False, True])
def test_pages_cut_from_blocks_are_the_stream_sliced(owner: Any, warm: bool) -> None:
    """Pages that start and end anywhere, across block edges, equal the whole download sliced."""
    from tests import own_cache

    brexit_match = play("brexit", 4, owner, seed=5)  # spans blocks (seed 7 plays 113 events)

    whole = Client().get(f"/api/matches/{brexit_match.pk}/download/").json()["events"]
    last = len(whole)
    assert last > 150
    if not warm:
        own_cache.clear()
    for after, limit in [
        (0, 1),
        (99, 2),
        (100, 100),
        (120, 45),
        (last - 1, 5),
        (last, 3),
        (7, 5000),
    ]:
        page = Client().get(f"/api/matches/{brexit_match.pk}/events/?after={after}&limit={limit}")
        assert page.status_code == 200
        body = page.json()
        assert body["events"] == whole[after : after + limit], (after, limit)
        assert (body["next"] is not None) == (after + limit < last), (after, limit)


def test_a_new_engine_version_reads_none_of_the_old_values(
    brexit_match: Match, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A release whose rules fold the same events differently must not be served old states."""
    from games.engine.registry import get

    url = f"/api/matches/{brexit_match.pk}/state/?step=12"
    assert Client().get(url).status_code == 200
    rules = get("brexit").rules
    monkeypatch.setattr(rules, "engine_version", rules.engine_version + "-next")
    monkeypatch.setattr(replay, "state_at", _refuse)
    with pytest.raises(AssertionError, match="computed again"):
        Client().get(url)


def _replay_keys(match: Match) -> list[bytes]:
    from django.conf import settings
    from redis import Redis

    client = Redis.from_url(settings.CACHES["default"]["LOCATION"])
    try:
        return list(client.scan_iter(match=f"*replay:*{match.pk}*", count=1000))
    finally:
        client.close()


def test_offsets_past_the_end_keep_nothing(brexit_match: Match) -> None:
    """Reading far past the last event answers an empty page and leaves no key behind."""
    before = _replay_keys(brexit_match)
    for after in (brexit_match.last_version, 10**6, 10**9):
        r = Client().get(f"/api/matches/{brexit_match.pk}/events/?after={after}&limit=5000")
        assert r.status_code == 200
        assert r.json()["events"] == [] and r.json()["next"] is None
    assert _replay_keys(brexit_match) == before


def test_a_hanging_cache_costs_one_timeout_not_one_per_block(
    brexit_match: Match, caplog: Any
) -> None:
    """A Redis that accepts connections and never answers: the page is still served, slowly
    once, then without the cache for a while."""
    import socket
    import threading
    import time

    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        listener.settimeout(0.2)
        while not stop.is_set():
            try:
                held.append(listener.accept()[0])  # and never answer
            except OSError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    hung = {
        "BACKEND": "config.cache.KeptClientRedisCache",
        "LOCATION": f"redis://127.0.0.1:{listener.getsockname()[1]}/0",
        "OPTIONS": {"socket_connect_timeout": 1, "socket_timeout": 1},
    }
    try:
        with (
            override_settings(CACHES={"default": hung}),
            caplog.at_level(logging.WARNING, logger="tournaments.play.read_cache"),
        ):
            started = time.monotonic()
            first = Client().get(f"/api/matches/{brexit_match.pk}/events/?limit=5000")
            slow = time.monotonic() - started
            started = time.monotonic()
            again = Client().get(f"/api/matches/{brexit_match.pk}/events/?limit=5000")
            fast = time.monotonic() - started
    finally:
        stop.set()
        thread.join()
        for connection in held:
            connection.close()
        listener.close()
    assert first.status_code == again.status_code == 200
    assert len(first.json()["events"]) == brexit_match.last_version
    assert slow < 5  # one read timed out; nothing more was tried
    assert fast < 1  # the cache is skipped for a while
    assert "computing without it" in caplog.text


@pytest.mark.parametrize("game", ["brexit", "brasilis"])
def test_a_finished_matchs_folded_steps_are_what_a_fresh_fold_shows_every_view(
    game: str, owner: Any
) -> None:
    """The whole-match fold keeps every step's state, in blocks: each must be what folding that
    step afresh gives, and every view drawn from a kept state what the engine shows that view
    of the fresh one (the spectator's hiding every hand, each seat's its own alone, and all)."""
    match = play(game, 3, owner, seed=5)
    rules = get(game).rules
    views = [View(PUBLIC), *(seat_view(k) for k in range(3)), View(ALL)]
    blocks = replay.fold_pass(match, 0)
    assert match.last_version < replay.FOLD_PASS
    assert len(blocks) == match.last_version // replay.FOLDED_BLOCK + 1
    for step in range(match.last_version + 1):
        fresh, _ = snapshots.state_at(rules, match.id, step)
        kept = replay.unpacked(blocks[read_cache.folded_key(match, replay.block_of(step))], step)
        assert kept == rules.dump(fresh), step
        for view in views:
            assert replay.observation(match, rules.load(kept), view) == (
                replay.observation(match, fresh, view)
            ), (step, view)
    # What the first read keeps is what the pass gave, read back through the cache.
    assert replay.folded(match, 7) == replay.unpacked(blocks[read_cache.folded_key(match, 0)], 7)
    last = match.last_version
    assert replay.folded(match, last) == rules.dump(snapshots.state_at(rules, match.id, last)[0])
    assert replay.kept_observation(match, last, View(PUBLIC)) == (
        rules.observe(snapshots.state_at(rules, match.id, last)[0], None)
    )


FOLDED_BYTES = 40_000
"""Bytes (values and key names) the replay cache may hold of one finished Bra$ilis match of 693
steps once a state read folded it. Measured by this test: 2,327,303 in 1,386 keys when each
step's state and the spectator's view of it were a value of their own; 27,247 in 15 keys with
the states kept in compressed blocks of ``replay.FOLDED_BLOCK``."""


def test_a_folded_finished_match_keeps_tens_of_kilobytes_not_megabytes(owner: Any) -> None:
    """One state read of a finished Bra$ilis match folds it whole: everything the replay cache
    then holds of it (the blocks, the read's own observation, its labels) stays under
    ``FOLDED_BYTES``, and the steps not read are still drawn from the cache, not folded again."""
    match = play("brasilis", 3, None, seed=11)
    assert match.last_version + 1 == 693  # the match the figure was measured on
    assert Client().get(f"/api/matches/{match.pk}/state/?step=5").status_code == 200
    config = settings.CACHES["default"]
    client = Redis.from_url(config["LOCATION"])
    try:
        keys = list(client.scan_iter(match=f"{config['KEY_PREFIX']}:*{match.pk}*", count=500))
        stored = sum(client.strlen(key) + len(key) for key in keys)
    finally:
        client.close()
    assert stored < FOLDED_BYTES, stored
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(snapshots, "fold_steps", _refuse)
        patch.setattr(snapshots, "state_at_step", _refuse)
        last = Client().get(f"/api/matches/{match.pk}/state/?step={match.last_version}")
    assert last.status_code == 200


def test_a_finished_match_is_folded_once_for_every_step_and_view(
    brexit_match: Match, monkeypatch: pytest.MonkeyPatch
) -> None:
    base = f"/api/matches/{brexit_match.pk}/state/"
    assert Client().get(f"{base}?step=3").status_code == 200
    monkeypatch.setattr(snapshots, "fold_steps", _refuse)
    monkeypatch.setattr(snapshots, "state_at_step", _refuse)
    last = brexit_match.last_version
    for query in ("step=90", "step=91&view=seat2", f"step={last}&view=all"):
        assert Client().get(f"{base}?{query}").status_code == 200, query


def test_a_live_match_is_folded_step_by_step_not_whole(running: Match) -> None:
    assert Client().get(f"/api/matches/{running.pk}/state/?step=5").status_code == 200
    assert cache.get(read_cache.folded_key(running, replay.block_of(5))) is None


def test_a_pass_another_process_is_folding_is_not_folded_twice(
    brexit_match: Match, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache.add(replay._folding_key(brexit_match, 40), 1, 30)
    monkeypatch.setattr(snapshots, "fold_steps", _refuse)
    url = f"/api/matches/{brexit_match.pk}/state/?step=40&view=seat1"
    fresh, _ = snapshots.state_at(get("brexit").rules, brexit_match.id, 40)
    assert Client().get(url).json()["state"] == get("brexit").rules.observe(fresh, 1)


@pytest.fixture
def _pages_kept() -> Any:
    own_cache.clear()
    with override_settings(PAGE_CACHE_SECONDS=60.0, SETTLED_READS_SECONDS=600.0):
        yield
    own_cache.clear()


def _page(path: str, client: Client | None = None) -> Any:
    response = (client or Client()).get(path)
    assert response.status_code == 200, response.content[:300]
    return response


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("_pages_kept")
def test_a_finished_matchs_viewer_page_is_kept_for_sessionless_visitors(owner: Any) -> None:
    match = play("brexit", 3, owner, seed=3)
    path = f"/matches/{match.pk}/"
    first = _page(path)
    assert not first.cookies  # no CSRF cookie for a visitor who can post nothing
    again = _page(path)
    assert again.headers.get(page_cache.SAID) == "hit"
    assert again.content == first.content
    # A logged-in visitor is answered by the view (their seats, their fork button).
    mine = Client()
    mine.force_login(owner)
    assert _page(path, mine).headers.get(page_cache.SAID) is None


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("_pages_kept")
def test_a_fork_retires_the_kept_viewer_page(owner: Any) -> None:
    match = play("brexit", 3, owner, seed=3)
    path = f"/matches/{match.pk}/"
    _page(path)
    assert _page(path).headers.get(page_cache.SAID) == "hit"
    fork = MatchFactory(game="brexit", forked_from=match, forked_at=3)
    shown = _page(path)
    assert shown.headers.get(page_cache.SAID) != "hit"
    assert str(fork.pk) in shown.content.decode()


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("_pages_kept")
def test_a_bot_made_private_retires_the_kept_viewer_page(owner: Any) -> None:
    match = play("brexit", 3, owner, seed=3)
    version = match.seats.get(number=0).bot_version
    assert version is not None
    bot = version.bot
    path = f"/matches/{match.pk}/"
    assert bot.name in _page(path).content.decode()
    assert _page(path).headers.get(page_cache.SAID) == "hit"
    bot.is_public = False
    bot.save(update_fields=["is_public"])
    assert bot.name not in _page(path).content.decode()


@pytest.mark.usefixtures("_pages_kept")
def test_a_live_matchs_viewer_page_is_not_kept(owner: Any) -> None:
    finished = play("brexit", 3, owner, seed=3)
    live = running_copy(finished, finished.last_version // 2)
    for match, kept in ((finished, "hit"), (live, None)):
        path = f"/matches/{match.pk}/"
        _page(path)
        assert _page(path).headers.get(page_cache.SAID) == kept, match.status
