# Quick start: `make up` runs the platform, `make test` runs the suite. See README.md.
SHELL := /bin/bash
# The venv's interpreter: the system's /usr/bin/python3 where there is one, as in the image
# (deploy/Dockerfile) and as bots run (games/sandbox/isolation.py), so that the suite runs on the
# interpreter production runs on. Debian builds it with PGO and LTO: the suite's Python took 10-12%
# less CPU on it than on a plain source build of 3.11.7 (pyenv's, first on PATH here; 2026-12-03).
PYTHON ?= $(firstword $(wildcard /usr/bin/python3) python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
export DJANGO_SETTINGS_MODULE ?= config.settings.local
# This machine kind's image sets PYTHONDONTWRITEBYTECODE=1, so no process kept the bytecode it
# compiled: each one compiled every module it imported from source again (a Django process's boot
# 1.6 s of CPU instead of 0.5; each pytest-xdist worker's collection 9.3 s instead of 2.9,
# 2026-12-03). The packages are compiled at install (--compile-bytecode, below, which a read-only
# image needs as well); the project's modules and pytest's rewritten tests are cached by the first
# process that imports them.
unexport PYTHONDONTWRITEBYTECODE

.PHONY: up test test-fast test-services lint deploy-check install services sandbox browser isolation-tools database migrate admin check-deploy audit clean

$(STAMP): requirements.lock pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	@test -x $(BIN)/uv || $(BIN)/pip install --quiet uv==0.13.8
	$(BIN)/uv pip sync --quiet --compile-bytecode --python $(BIN)/python requirements.lock
	@# The project itself, editable: puts `config` (platform/config) and the apps on the path.
	$(BIN)/uv pip install --quiet --python $(BIN)/python --no-deps --editable .
	@# The packages bots may import, compiled now: a bot reads them read-only and cannot (games/sandbox/packages.py).
	$(BIN)/python -m games.sandbox --compile-packages
	@touch $(STAMP)

install: $(STAMP)

services:
	@$(PYTHON) deploy/check_services.py

# As root: installs bubblewrap and the bot uid pool. As another user: only reports (see the script).
sandbox:
	@if [ -x deploy/sandbox/setup.sh ]; then deploy/sandbox/setup.sh; fi

browser:
	@deploy/browser.sh

# As root: apparmor_parser, runc and strace, which check the worker container's profiles.
isolation-tools:
	@deploy/isolation-tools.sh

database: services
	@$(PYTHON) deploy/create_database.py

migrate: install database
	$(BIN)/python manage.py migrate --no-input

admin: migrate
	$(BIN)/python manage.py ensure_demo_admin

up: install services sandbox migrate admin
	$(BIN)/python manage.py seed_demo
	$(BIN)/python manage.py collectstatic --no-input --verbosity 0
	$(BIN)/honcho --procfile deploy/Procfile --app-root . start

lint: install deploy-check
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy .
	$(BIN)/lint-imports

# deploy/: the compose file against the compose specification's schema (no Docker engine needed)
# and the Dockerfile through hadolint; tests/deploy checks the rest (units, gunicorn, nginx).
deploy-check: install
	$(BIN)/check-jsonschema --builtin-schema vendor.compose-spec deploy/compose.yml
	$(BIN)/hadolint --config deploy/hadolint.yaml deploy/Dockerfile

# The whole suite fails below this share of covered lines (games, replays, tournaments, config):
# measured 89.5% (5,904 statements, 617 missed) on 2026-12-01. A run narrowed with PYTEST_ARGS
# reports coverage without the floor. The tests listed in tests/support/untraced.txt run untraced
# (pytest-cov's no_cover, tests/support/untraced.py says how the list is drawn): each reaches no
# line that a traced test does not, so the report is the same at less CPU (the tracer costs a
# third more; tests/games: 64 s untraced, 167 s traced, 2026-12-02). Under pytest-xdist they are
# untraced only thanks to tests/support/no_cover.py (pytest-cov 7 went on tracing them in each worker).
COVERAGE_FLOOR := 89

# pytest-xdist: this many processes on the 2 cores. --dist loadgroup keeps each module that starts
# processes on one worker and sends those groups first (xdist orders units by their size; the
# access matrix's 48 tests, one group so that one worker builds its worlds, go first too); they
# mostly wait on workers, beats and servers (about 0.25 of a core each: 513 s of CPU in 2,073 s
# of their tests' wall, 2026-12-03), so with four processes, all on such groups first, a core sat
# idle; six keep both busy. Each clones one migrated template database (tests/support/database.py),
# so a process more costs little. Lint runs alongside, into var/lint.log; the target fails if
# either did.
PYTEST_WORKERS ?= 6
PYTEST_XDIST = -n $(PYTEST_WORKERS) --dist loadgroup --durations=40

test: install services sandbox browser isolation-tools
	@mkdir -p var
	@( $(MAKE) --no-print-directory lint > var/lint.log 2>&1; echo $$? > var/lint.rc ) & \
	DJANGO_SETTINGS_MODULE=config.settings.test $(BIN)/pytest $(PYTEST_XDIST) --cov --cov-report=term \
		$(if $(PYTEST_ARGS),,--cov-fail-under=$(COVERAGE_FLOOR)) $(PYTEST_ARGS); tests=$$?; \
	wait; lint=$$(cat var/lint.rc); \
	if [ "$$lint" != 0 ]; then cat var/lint.log; echo "make test: lint failed (var/lint.log)" >&2; exit 1; fi; \
	echo "lint passed (var/lint.log)"; exit $$tests

# The tiers (tests/conftest.py). test-fast: the pure and unit tier, no services at all (no
# database, broker or Redis needed), in parallel: feedback within two minutes.
# test-services: every test but those that start the platform's own processes.
test-fast: install
	DJANGO_SETTINGS_MODULE=config.settings.test $(BIN)/pytest $(PYTEST_XDIST) -m unit $(PYTEST_ARGS)

test-services: install services
	DJANGO_SETTINGS_MODULE=config.settings.test $(BIN)/pytest $(PYTEST_XDIST) -m "not processes" $(PYTEST_ARGS)

# Checks the configuration in the environment (`set -a; . /etc/backroom/env; make check-deploy`).
# SECRET_KEY and ALLOWED_HOSTS are the operator's when set; only when unset does it put in a
# throwaway key / backroom.example, and it says so, so that a bare checkout still checks the rest.
check-deploy: install
	@test -n "$$SECRET_KEY" || echo "check-deploy: SECRET_KEY is not set: checking with a throwaway one" >&2
	@test -n "$$ALLOWED_HOSTS" || echo "check-deploy: ALLOWED_HOSTS is not set: checking with backroom.example" >&2
	DJANGO_SETTINGS_MODULE=config.settings.production \
		SECRET_KEY="$${SECRET_KEY:-$$(head -c 48 /dev/urandom | base64)}" \
		ALLOWED_HOSTS="$${ALLOWED_HOSTS:-backroom.example}" \
		$(BIN)/python manage.py check --deploy --fail-level WARNING

# Known vulnerabilities in the pinned packages, from PyPI's advisory service (network needed; where
# it cannot be reached, --strict fails rather than pass quietly). tests/test_dependency_audit.py
# runs it in CI, or skips with the reason.
audit: install
	$(BIN)/pip-audit --strict --disable-pip --no-deps --progress-spinner off -r requirements.lock

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache
