"""The test suite: the real Postgres, broker and Redis, with a separate cache prefix."""

import hashlib
import os
import uuid

from config.queues import task_queues, task_routes
from config.settings.base import *  # noqa: F403
from config.settings.base import BASE_DIR, CACHES, CELERY_BEAT_SCHEDULE, env
from games.engine.registry import GameInfo, register

DEBUG = False
# pytest-xdist runs the suite in several processes at once (gw0, gw1, ...): each has its own
# queues, cache keys and media folder, and pytest-django gives each its own test database
# (TEST_DATABASE_NAME plus "_gw0"), so no worker sees another's tasks, rows or files. The
# processes a test starts inherit PYTEST_XDIST_WORKER and are handed the suffixed names, so
# the suffix is added once: `_own` leaves a name that has it already.
XDIST_WORKER = os.environ.get("PYTEST_XDIST_WORKER", "")
_SUFFIX = f"-{XDIST_WORKER}" if XDIST_WORKER else ""


def _own(name: str) -> str:
    return name if name.endswith(_SUFFIX) else name + _SUFFIX


# The suite's tasks go to queues of its own run, so neither a running `make up` worker nor
# another suite on the same broker takes (or purges) them. The e2e tests pass the prefix on to
# the workers they start. Unused for 6 hours, RabbitMQ drops a run's queues (x-expires).
TEST_QUEUE_PREFIX = _own(env.str("TEST_QUEUE_PREFIX", default=f"test-{uuid.uuid4().hex[:8]}"))
# A test that starts its own worker and beat may name its own queues.
CELERY_TASK_DEFAULT_QUEUE = env.str("TEST_CELERY_QUEUE", default=f"{TEST_QUEUE_PREFIX}-celery")
MATCH_QUEUE = env.str("TEST_MATCH_QUEUE", default=f"{TEST_QUEUE_PREFIX}-matches")
VALIDATION_QUEUE = env.str("TEST_VALIDATION_QUEUE", default=f"{TEST_QUEUE_PREFIX}-validation")
PEOPLE_QUEUE = env.str("TEST_PEOPLE_QUEUE", default=f"{TEST_QUEUE_PREFIX}-people")
RATINGS_QUEUE = env.str("TEST_RATINGS_QUEUE", default=f"{TEST_QUEUE_PREFIX}-ratings")
CELERY_TASK_QUEUES = task_queues(
    [CELERY_TASK_DEFAULT_QUEUE, PEOPLE_QUEUE, MATCH_QUEUE, VALIDATION_QUEUE, RATINGS_QUEUE],
    queue_arguments={"x-expires": 6 * 3600 * 1000},
)
CELERY_TASK_ROUTES = task_routes(
    matches=MATCH_QUEUE, validation=VALIDATION_QUEUE, people=PEOPLE_QUEUE, ratings=RATINGS_QUEUE
)
# A test that starts a beat may have its periodic tasks come round every TEST_BEAT_SECONDS
# (at most) rather than every 15-30 s, so that it waits seconds for a tick, not half a minute.
TEST_BEAT_SECONDS = env.float("TEST_BEAT_SECONDS", default=None)
if TEST_BEAT_SECONDS:
    CELERY_BEAT_SCHEDULE = {
        name: {**entry, "schedule": min(float(entry["schedule"]), TEST_BEAT_SECONDS)}
        for name, entry in CELERY_BEAT_SCHEDULE.items()
    }
# Each checkout's suite has a database and cache keys of its own, so two copies of the suite
# on one machine (a developer's and CI's clone) never drop or flush each other's.
CHECKOUT = hashlib.sha256(str(BASE_DIR).encode()).hexdigest()[:8]
DATABASES_TEST_NAME = env.str("TEST_DATABASE_NAME", default=f"test_backroom_{CHECKOUT}")
# The webhook test's receiver listens on loopback; its retries come in a fraction of a second.
WEBHOOK_ALLOW_PRIVATE = True
WEBHOOK_BACKOFF_SECONDS = env.float("WEBHOOK_BACKOFF_SECONDS", default=0.2)
BOT_MOVE_SECONDS = 0.5  # hostile bots that sleep or spin cost the suite less
BOT_BANK_SECONDS = 1.0
PASSWORD_HASHERS = [
    "django.contrib.auth.hashers.MD5PasswordHasher"
]  # speed only; never in production
CACHES["default"]["KEY_PREFIX"] = _own(
    env.str("TEST_CACHE_PREFIX", default=f"backroom-test-{CHECKOUT}")
)
# The suite's keys live in a Redis database of their own (1-15, chosen by checkout) rather than in
# db 0 with a running platform's and the benches' keys: clearing a worker's keys (below) scans
# the run's keyspace only (a scan through db 0's 200,000 keys of the benches was a fifth of the
# API tests' CPU). Processes the suite starts compute the same number; a test that sets REDIS_URL
# for its processes passes the suite's (tests/e2e/test_multihost.py).
if "REDIS_URL" not in os.environ:
    CACHES["default"]["LOCATION"] = f"redis://127.0.0.1:6379/{1 + int(CHECKOUT, 16) % 15}"
# Redis's clear() is FLUSHDB, which would wipe the keys of the run's other workers (and of any
# other suite on the machine) mid-test: the suite's clear() forgets its own prefix only.
CACHES["default"]["BACKEND"] = "tests.own_cache.RunOwnRedisCache"
# Off: the suite's tests would meet each other's pages (one cache, rolled-back rows) and a list
# read twice within seconds would not show what a test just made. tests/api/test_page_cache.py
# turns it on; a bench's children set it from the environment.
PAGE_CACHE_SECONDS = env.float("PAGE_CACHE_SECONDS", default=0.0)
# Off for the same reason (a test that deactivates an account by a queryset update would meet a
# token kept from before); tests/api/test_token_cache.py and test_settled_reads.py turn them on.
TOKEN_CACHE_SECONDS = env.float("TOKEN_CACHE_SECONDS", default=0.0)
SETTLED_READS_SECONDS = env.float("SETTLED_READS_SECONDS", default=0.0)
# Bots' unpacked sources and uploads: a folder per xdist worker (the e2e workers get the same).
MEDIA_ROOT = env.str(
    "MEDIA_ROOT", default=str(BASE_DIR / "var" / "test-media" / (XDIST_WORKER or "main"))
)

# The one escape hatch of the append-only events table: the test database is wiped
# between transactional tests with TRUNCATE (see replays/migrations/0002_append_only.py).
DATABASES = {**DATABASES}  # noqa: F405
DATABASES["default"] = {
    **DATABASES["default"],
    "OPTIONS": {
        **DATABASES["default"].get("OPTIONS", {}),
        "options": "-c backroom.allow_event_truncate=on",
    },
    # Separate names let several suites run at once on one server.
    "TEST": {"NAME": DATABASES_TEST_NAME},
}
# A replica named in the suite's environment is the test database itself, not a second one to
# create (its reads would otherwise come from a database the tests never fill).
if "replica" in DATABASES:
    DATABASES["replica"] = {**DATABASES["replica"], "TEST": {"MIRROR": "default"}}

# The API reads JSON unless a view says otherwise (an upload also takes multipart): the test
# client sends JSON unless told (DRF's own default is multipart, which the API now refuses).
REST_FRAMEWORK = {**REST_FRAMEWORK, "TEST_REQUEST_DEFAULT_FORMAT": "json"}  # noqa: F405

# Tests render templates without running collectstatic first.
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}

# Tests never run collectstatic, so whitenoise would only warn that var/static is missing.
MIDDLEWARE = [m for m in MIDDLEWARE if m != "whitenoise.middleware.WhiteNoiseMiddleware"]  # noqa: F405

# A third game, written for the tests only (tests/support/games/highcard): one line registers it
# in every process that loads these settings (pytest, the e2e tests' Celery workers).
register(GameInfo("highcard", "High Card", package="tests.support.games.highcard"))
