"""Settings shared by every environment, read from the environment with working local defaults."""

from pathlib import Path

import environ
import orjson
from csp.constants import NONE, SELF
from django.core.exceptions import ImproperlyConfigured
from whitenoise.compress import Compressor

from config.queues import BEAT_SCHEDULE, task_queues, task_routes

BASE_DIR = Path(__file__).resolve().parents[3]

env = environ.Env()
env.read_env(BASE_DIR / ".env", overwrite=False)  # optional; absent on CI

SECRET_KEY = env.str("SECRET_KEY", default="dev-insecure-change-me")
# Rotation (docs/deploy.md): the old key stays here until sessions and signed links made
# with it have expired, so that no one is logged out by the change.
SECRET_KEY_FALLBACKS = env.list("SECRET_KEY_FALLBACKS", default=[])
DEBUG = env.bool("DEBUG", default=False)
ALLOWED_HOSTS = env.list("ALLOWED_HOSTS", default=["localhost", "127.0.0.1", "[::1]"])

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "rest_framework.authtoken",
    "drf_spectacular",
    "drf_spectacular_sidecar",  # Swagger UI's files, served by the app: /api/docs/ works offline
    "django_celery_beat",
    "csp",
    "replays",
    "tournaments",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    # Before anything reads a body: an oversized API request is refused unread (JSON 413).
    "tournaments.site.api.body_limits.BodySizeLimit",
    # Before any view reads a query parameter: NUL, non-UTF-8 or absurdly long is a 400.
    "tournaments.site.query_params.QueryParamCheck",
    # Anonymous GETs of home, the match lists and a ladder's page, served whole from Redis for
    # PAGE_CACHE_SECONDS before any session, auth, CSRF or messages work (tournaments/site/page_cache.py).
    "tournaments.site.page_cache.AnonymousPageCache",
    # A token's match list or ladder ratings served the anonymous entry when its own answer
    # would be the same bytes; every write marks its account (tournaments/site/token_lists.py).
    "tournaments.site.token_lists.TokenLists",
    # The API's state and events reads of a match that is over, for callers with nothing to do with
    # it, served as stored bytes (tournaments/site/settled_reads.py).
    "tournaments.site.settled_reads.SettledReads",
    # Before anything reads the session or the user: where this request's reads go (a cached
    # answer above reads no database at all).
    "tournaments.site.replica_reads.ReplicaReads",
    "csp.middleware.CSPMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"
ASGI_APPLICATION = "config.asgi.application"

# The site's own login, open to every user (the admin's accepts staff only).
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "site-home"
LOGOUT_REDIRECT_URL = "site-home"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
        "OPTIONS": {
            # The apps' templates, and each game's from its own package (through the registry).
            "loaders": [
                (
                    "django.template.loaders.cached.Loader",
                    [
                        "django.template.loaders.app_directories.Loader",
                        "replays.game_templates.Loader",
                    ],
                )
            ],
            # The site's template tags live in its context (Django looks only in <app>.templatetags).
            "libraries": {
                "seats": "tournaments.site.templatetags.seats",
                "replay_log": "tournaments.site.templatetags.replay_log",
                "scores": "tournaments.site.templatetags.scores",
                "games": "tournaments.site.templatetags.games",
            },
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

DATABASES = {
    "default": env.db_url("DATABASE_URL", default="postgres://postgres@127.0.0.1:5432/backroom"),
}
DATABASES["default"]["CONN_MAX_AGE"] = env.int("CONN_MAX_AGE", default=60)
DATABASES["default"]["CONN_HEALTH_CHECKS"] = True
# The hot statements a worker runs for every match (the scheduler's pick, the runner's read of
# the match, a leased flush's heartbeat) ask psycopg to prepare them (``prepare=True``): planning
# the pick cost as much as running it. Django turns prepared statements off altogether (a
# threshold of None, for transaction-pooling proxies, which deploy/ does not use); a threshold
# no statement reaches lets those few be prepared and leaves every other one as it was (Django's
# own cursors bind on the client and are never prepared anyway).
DATABASES["default"]["OPTIONS"] = {
    **DATABASES["default"].get("OPTIONS", {}),
    "prepare_threshold": 2**31 - 1,
}
# A streaming replica of that primary (docs/scaling.md, Read replicas): unset, every read is
# the primary's. Set, the site's and the API's read-only requests read from it while its lag is
# within REPLICA_MAX_LAG_SECONDS (config/replica.py); writes, workers and commands never do.
REPLICA_DATABASE_URL = env.str("REPLICA_DATABASE_URL", default="")
if REPLICA_DATABASE_URL:
    DATABASES["replica"] = env.db_url_config(REPLICA_DATABASE_URL)
    DATABASES["replica"]["CONN_MAX_AGE"] = DATABASES["default"]["CONN_MAX_AGE"]
    DATABASES["replica"]["CONN_HEALTH_CHECKS"] = True
    # A replica that does not answer costs a request at most this long once per lag check.
    DATABASES["replica"].setdefault("OPTIONS", {}).setdefault("connect_timeout", 2)
DATABASE_ROUTERS = ["config.replica.PrimaryReplicaRouter"]
REPLICA_MAX_LAG_SECONDS = env.float("REPLICA_MAX_LAG_SECONDS", default=5.0)
# How often each web process asks the replica its lag (never per request).
REPLICA_LAG_CHECK_SECONDS = env.float("REPLICA_LAG_CHECK_SECONDS", default=1.0)
# After a request that wrote, its client reads the primary this long: longer than the lag bound
# plus one check interval, so that whatever the replica then serves it includes that write.
REPLICA_READ_YOUR_WRITES_SECONDS = env.float(
    "REPLICA_READ_YOUR_WRITES_SECONDS",
    default=REPLICA_MAX_LAG_SECONDS + REPLICA_LAG_CHECK_SECONDS + 1.0,
)
if REPLICA_READ_YOUR_WRITES_SECONDS <= REPLICA_MAX_LAG_SECONDS + REPLICA_LAG_CHECK_SECONDS:
    raise ImproperlyConfigured(
        "REPLICA_READ_YOUR_WRITES_SECONDS must exceed REPLICA_MAX_LAG_SECONDS plus"
        " REPLICA_LAG_CHECK_SECONDS, or a writer could read the replica before it has the write"
    )
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

REDIS_URL = env.str("REDIS_URL", default="redis://127.0.0.1:6379/0")
CACHES = {
    "default": {
        "BACKEND": "config.cache.KeptClientRedisCache",
        "LOCATION": REDIS_URL,
        # Its own prefix lets a second instance (`bench load`) share the server without sharing keys.
        "KEY_PREFIX": env.str("CACHE_KEY_PREFIX", default="backroom"),
        # The rate limits (tournaments/site/api/throttles.py) and the replay reads
        # (tournaments/play/read_cache.py) use the cache, and both go on without it when Redis is
        # away: a hung Redis must not hold a request for long.
        "OPTIONS": {"socket_connect_timeout": 1, "socket_timeout": 1},
    }
}

# How long an anonymous read of home, a match list or a ladder's page is served from the cache
# (tournaments/site/page_cache.py): the most a live list lags behind. 0: never cached.
PAGE_CACHE_SECONDS = env.float("PAGE_CACHE_SECONDS", default=2.0)
# How long an API token's account is kept in the cache (tournaments/site/api/token_cache.py; a
# revocation retires it at once) and a read of a match that is over is served as stored bytes
# (tournaments/site/settled_reads.py; a write that hides something retires it at once). 0: never.
TOKEN_CACHE_SECONDS = env.float("TOKEN_CACHE_SECONDS", default=30.0)
SETTLED_READS_SECONDS = env.float("SETTLED_READS_SECONDS", default=600.0)

# Bots' webhooks (tournaments/play/webhooks.py): attempts per call, the first retry's delay
# (doubled each time), and whether private and loopback addresses may be called: never in
# production (SSRF); the tests' own HTTP server listens on loopback.
WEBHOOK_ATTEMPTS = env.int("WEBHOOK_ATTEMPTS", default=5)
WEBHOOK_BACKOFF_SECONDS = env.float("WEBHOOK_BACKOFF_SECONDS", default=30.0)
WEBHOOK_ALLOW_PRIVATE = env.bool("WEBHOOK_ALLOW_PRIVATE", default=False)

CELERY_BROKER_URL = env.str("CELERY_BROKER_URL", default="amqp://guest:guest@127.0.0.1:5672//")
CELERY_RESULT_BACKEND = None
# Long matches: a worker process reserves one message at a time (prefetch 1), so a queued match
# never waits behind a long one on a busy process while another process is idle, and it
# acknowledges only when done (late acks), so a task whose worker dies is redelivered.
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
# Celery's Django fixup closes every database connection before and after each task unless
# this is set: each match and each ratings wake-up then opened a Postgres backend of its own
# (fork, authentication, catalog caches, every prepared statement planned again), 27 of the
# 29 ms of Postgres CPU a played ladder match cost the server (`bench pgserver`, 2026-12-02).
# Set, the fixup closes them once every this many tasks; in between, config/celery.py gives a
# task boundary what a web request's end gets (close_old_connections: CONN_MAX_AGE, health
# checks, a connection left broken or in a transaction).
CELERY_DB_REUSE_MAX = 1000
CELERY_TASK_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_BEAT_SCHEDULER = "django_celery_beat.schedulers:DatabaseScheduler"
CELERY_TIMEZONE = "UTC"
# Queues by kind of work (config/queues.py says why); a worker without --queues takes them all.
CELERY_TASK_DEFAULT_QUEUE = env.str("CELERY_DEFAULT_QUEUE", default="celery")
MATCH_QUEUE = env.str("MATCH_QUEUE", default="matches")
VALIDATION_QUEUE = env.str("VALIDATION_QUEUE", default="validation")
PEOPLE_QUEUE = env.str("PEOPLE_QUEUE", default="people")
RATINGS_QUEUE = env.str("RATINGS_QUEUE", default="ratings")
CELERY_TASK_QUEUES = task_queues(
    [CELERY_TASK_DEFAULT_QUEUE, PEOPLE_QUEUE, MATCH_QUEUE, VALIDATION_QUEUE, RATINGS_QUEUE]
)
CELERY_TASK_ROUTES = task_routes(
    matches=MATCH_QUEUE, validation=VALIDATION_QUEUE, people=PEOPLE_QUEUE, ratings=RATINGS_QUEUE
)
CELERY_BEAT_SCHEDULE = BEAT_SCHEDULE  # config/queues.py: every schedule, and why
MATCH_LEASE_SECONDS = env.int("MATCH_LEASE_SECONDS", default=60)
# Fair competition (tournaments/play/scheduler.py, allowance.py; docs/reliability.md): what one
# account may have queued or running, being validated, and use of the workers in an hour; the
# accounts signed up from one address together get FAIR_ADDRESS_FACTOR times as much.
FAIR_MAX_ACTIVE_MATCHES = env.int("FAIR_MAX_ACTIVE_MATCHES", default=10)
FAIR_MAX_PENDING_VERSIONS = env.int("FAIR_MAX_PENDING_VERSIONS", default=3)
FAIR_WORKER_SECONDS_PER_HOUR = env.float("FAIR_WORKER_SECONDS_PER_HOUR", default=1800.0)
FAIR_ADDRESS_FACTOR = env.int("FAIR_ADDRESS_FACTOR", default=2)
# A person's or a smoke match goes ahead of the rest only if none of its address's of that class
# stopped for a person or ended this long before (a script answering at once, or a stream of
# slow uploads, then takes turns), and while the address's such matches took less than this
# much of the workers in the last hour (scheduler.py; docs/reliability.md).
FAIR_HEAD_START_GAP_SECONDS = env.float("FAIR_HEAD_START_GAP_SECONDS", default=1.0)
FAIR_HEAD_START_SECONDS_PER_HOUR = env.float("FAIR_HEAD_START_SECONDS_PER_HOUR", default=300.0)
# A match queued (a version pending) this long is sent again by the reaper: its message was
# lost, or never sent because the broker was down when it was created (docs/reliability.md).
MATCH_RESEND_AFTER_SECONDS = env.float("MATCH_RESEND_AFTER_SECONDS", default=600.0)
# A match still playing after this many decisions (unset: games.engine.driver.MatchLimits), or
# this long on one worker, is stopped and ends aborted with the reason.
MATCH_MAX_STEPS = env.int("MATCH_MAX_STEPS", default=None)
MATCH_MAX_SECONDS = env.float("MATCH_MAX_SECONDS", default=1800.0)
BOT_MOVE_SECONDS = env.float("BOT_MOVE_SECONDS", default=1.0)  # per decision, wall clock
BOT_BANK_SECONDS = env.float("BOT_BANK_SECONDS", default=10.0)  # per match, spent by overruns
BOT_START_SECONDS = env.float("BOT_START_SECONDS", default=5.0)  # import + start(), per process

# The site's Content-Security-Policy (django-csp): scripts and styles only from our own files, no
# inline ones (the viewer positions its timeline marks from data attributes, in viewer.js), images
# also from data: URIs (the favicon, Swagger UI's icons), no plugins, no framing, forms post home.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF],
        "style-src": [SELF],
        "img-src": [SELF, "data:"],
        "connect-src": [SELF],
        "object-src": [NONE],
        "base-uri": [SELF],
        "frame-ancestors": [NONE],
        "form-action": [SELF],
    }
}

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en-gb"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = env.path("STATIC_ROOT", default=str(BASE_DIR / "var" / "static"))
# Django's two finders (the project's and the apps' static/ folders, the apps' without what no
# page serves: config/staticfiles.py), and each registered game's static/ folder,
# found through the registry and named <game>/<file> (replays/game_static.py).
STATICFILES_FINDERS = [
    "django.contrib.staticfiles.finders.FileSystemFinder",
    "config.staticfiles.AppStaticFinder",  # Django's, without what no page serves
    "replays.game_static.Finder",
]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"},
}
# Source maps are fetched only by a browser's developer tools, uncompressed is fine there; the
# API docs' bundles ship 12 MB of them, and compressing those (gzip and brotli) was 60% of
# collectstatic's CPU (24 s of 39, 2026-12-03), in every image build and deploy test.
WHITENOISE_SKIP_COMPRESS_EXTENSIONS = [*Compressor.SKIP_COMPRESS_EXTENSIONS, "map"]
# Every page names its static files through {% static %}, by their hashed names: the unhashed
# copies were never served, yet each was compressed twice over like its hashed twin, half of
# collectstatic's CPU again (22 s of CPU, then 11, 2026-12-03) and of the image's static files.
WHITENOISE_KEEP_ONLY_HASHED_FILES = True
MEDIA_ROOT = env.path("MEDIA_ROOT", default=str(BASE_DIR / "var" / "media"))
# Whatever the storage writes under MEDIA_ROOT (bots' sources are unpacked there too, by
# tournaments.play.players.bot_dir) is the platform's user's alone: no other local account reads it.
FILE_UPLOAD_PERMISSIONS = 0o600
FILE_UPLOAD_DIRECTORY_PERMISSIONS = 0o700

REST_FRAMEWORK = {
    "DEFAULT_SCHEMA_CLASS": "tournaments.site.api.schema.AutoSchema",
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "tournaments.site.api.authentication.NamedTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticatedOrReadOnly"],
    # JSON only, unless a view says otherwise (an upload also takes multipart): the schema then
    # advertises for each body the one content type the view reads, and a generated client sends
    # it (a body offered as JSON, form and multipart at once gave clients three shapes to guess
    # from, and a form's missing boolean read as false). Deep nesting is a 400, not a crash.
    "DEFAULT_PARSER_CLASSES": ["tournaments.site.api.parsers.BoundedJSONParser"],
    # orjson writes the same JSON several times faster than the standard library, and
    # replays (pages of events, states) are mostly JSON to write (docs/reliability.md, Load).
    "DEFAULT_RENDERER_CLASSES": [
        "drf_orjson_renderer.renderers.ORJSONRenderer",
        "rest_framework.renderers.BrowsableAPIRenderer",
    ],
    # Observations key some maps by seat number; datetimes end in Z, as DRF's own encoder writes.
    "ORJSON_RENDERER_OPTIONS": [orjson.OPT_NON_STR_KEYS, orjson.OPT_UTC_Z],
    "DEFAULT_PAGINATION_CLASS": "tournaments.site.api.pagination.Pages",
    "PAGE_SIZE": 50,
    # 429 with Retry-After past these (tournaments/site/api/throttles.py); logins: API tokens and the
    # site's login form together, per client address, right or wrong password.
    "DEFAULT_THROTTLE_RATES": {
        "challenges": "30/hour",
        "uploads": "60/hour",
        # Per address; more accounts buy no more of the workers anyway (allowance.py).
        "signups": "5/hour",
        "logins": "30/hour",
        # Per account: a bot's name, visibility or state, each change of which retires every
        # cached page (tournaments/site/page_cache.py); the API and the site's bot page together.
        "visibility": "30/hour",
        # Per account: the site's token revocations and password changes, each of which retires
        # every cached token lookup (tournaments/site/api/token_cache.py).
        "tokens": "30/hour",
        # Per account: wrong old passwords given to a password change, the site's form and the
        # admin's together (a session must not be a way to guess its account's password).
        "password_guesses": "10/hour",
    },
    # How many proxies in front of the app append to X-Forwarded-For. 0: none, so the header
    # is ignored and a client cannot pick a fresh address (and fresh budgets) per request.
    "NUM_PROXIES": env.int("NUM_PROXIES", default=0),
    # Service refusals (tournaments.play.services.Invalid) become 400s with a message per field.
    "EXCEPTION_HANDLER": "tournaments.site.api.exceptions.exception_handler",
}

SPECTACULAR_SETTINGS = {
    "TITLE": "Backroom API",
    # The description names the registered games (tournaments.site.api.schema.describe_games).
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "tournaments.site.api.schema.describe_games",
    ],
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    # A request body gets components of its own (BotRequest beside Bot): read-only fields (id,
    # owner, created_at) are then never asked of a client, and a file field is `format: binary`
    # (a file picker in Swagger UI, a file in a generated client), not the response's URL.
    "COMPONENT_SPLIT_REQUEST": True,
    # A season's and a series' states are both "state": each enum keeps a name of its own.
    "ENUM_NAME_OVERRIDES": {
        "SeasonStateEnum": "tournaments.competition.models.Season.State",
        "SeriesStateEnum": "tournaments.competition.models.Series.State",
    },
}

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": env.str("LOG_LEVEL", default="INFO")},
}
