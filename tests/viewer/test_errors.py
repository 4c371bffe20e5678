"""The site's handler500 (tournaments/site/pages/errors.py), in process: a database outage is a
503 with Retry-After, JSON under /api/ and a page elsewhere; any other error Django's 500.
tests/faults/test_web_outage.py checks the same against a real gunicorn and a stopped Postgres."""

from __future__ import annotations

import json

import django.db
import pytest
from django.conf import settings
from django.test import RequestFactory
from django.urls import get_resolver

from tournaments.site.pages import errors


def test_the_urlconf_names_the_site_s_handlers() -> None:
    resolver = get_resolver(settings.ROOT_URLCONF)
    assert resolver.resolve_error_handler(500) is errors.server_error
    assert resolver.resolve_error_handler(400) is errors.bad_request


@pytest.mark.parametrize("path", ["/api/matches/", "/matches/"])
def test_an_outage_is_a_503_that_says_when_to_try_again(path: str) -> None:
    request = RequestFactory().get(path)
    try:
        raise django.db.OperationalError("connection refused")
    except django.db.OperationalError:
        response = errors.server_error(request)
    assert response.status_code == 503
    assert response["Retry-After"] == str(errors.RETRY_AFTER_SECONDS)
    if path.startswith("/api/"):
        assert "unavailable" in json.loads(response.content)["detail"]
    else:
        assert b"unavailable" in response.content


def test_any_other_error_is_django_s_500() -> None:
    request = RequestFactory().get("/matches/")
    try:
        raise ValueError("a bug")
    except ValueError:
        response = errors.server_error(request)
    assert response.status_code == 500
    assert not response.has_header("Retry-After")
