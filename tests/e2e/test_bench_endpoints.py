"""``manage.py bench endpoints`` in its short form: a real gunicorn worker serves each endpoint,
and the CPU of the worker and of its Postgres backend is counted per request.

No figure is held to a target here (the CI machine's mood).
"""

from __future__ import annotations

import io
import json

import pytest
from django.core.management import call_command

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.e2e]


def test_bench_endpoints_counts_web_and_postgres_cpu_for_each_endpoint() -> None:
    out = io.StringIO()
    # --in-place: the test database is throwaway already; the server uses it too.
    call_command(
        "bench", "endpoints", "--in-place", "--table-matches", "300", "--requests", "5", stdout=out
    )
    figures = json.loads(out.getvalue())
    endpoints = figures["endpoints"]
    assert {"home", "site_match_list", "api_match_list", "bot_page"} <= set(endpoints)
    for name, figure in endpoints.items():
        # One persistent backend served the worker, and both sides did work for each request.
        assert figure["backends"] == 1, name
        assert figure["web_cpu_ms"] > 0 and figure["pg_cpu_ms"] > 0, name
    assert figures["worst_of_targeted"]["web_cpu_ms"] == max(
        endpoints[n]["web_cpu_ms"] for n in ("home", "site_match_list", "api_match_list")
    )
