# Quick start: `make up` runs the platform, `make test` runs the suite. See README.md.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
export DJANGO_SETTINGS_MODULE ?= config.settings.local

.PHONY: up test lint install services sandbox browser database migrate admin check-deploy clean

$(STAMP): requirements.lock
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	@test -x $(BIN)/uv || $(BIN)/pip install --quiet uv==0.13.8
	$(BIN)/uv pip sync --quiet --python $(BIN)/python requirements.lock
	@touch $(STAMP)

install: $(STAMP)

services:
	@$(PYTHON) deploy/check_services.py

sandbox:
	@if [ -x deploy/sandbox/setup.sh ]; then deploy/sandbox/setup.sh; fi

browser:
	@deploy/browser.sh

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

lint: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy .
	$(BIN)/lint-imports

test: install services sandbox browser lint
	DJANGO_SETTINGS_MODULE=config.settings.test $(BIN)/pytest $(PYTEST_ARGS)

check-deploy: install
	DJANGO_SETTINGS_MODULE=config.settings.production SECRET_KEY=$$(head -c 48 /dev/urandom | base64) \
		ALLOWED_HOSTS=backroom.example $(BIN)/python manage.py check --deploy --fail-level WARNING

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache
