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
    endpoints, uncached = figures["endpoints"], figures["uncached"]
    assert {"home", "site_match_list", "api_match_list", "bot_page"} <= set(endpoints)
    assert set(uncached) == set(endpoints)
    for name, figure in uncached.items():
        # One persistent backend served the worker, and both sides did work for each request.
        assert figure["backends"] == 1, name
        assert figure["web_cpu_ms"] > 0 and figure["pg_cpu_ms"] > 0, name
        assert figure["page_cache_hits"] == 0, name
    for name, figure in endpoints.items():
        assert figure["backends"] == 1 and figure["web_cpu_ms"] > 0, name
    # As deployed, the cached doors were served from the page cache (the warm-up stored them:
    # a hit needs no Postgres), and the bot's page, which is not cached, never was.
    for name in ("home", "site_match_list", "api_match_list", "site_match_list_filtered"):
        assert endpoints[name]["page_cache_hits"] > 0, name
    assert endpoints["bot_page"]["page_cache_hits"] == 0
    assert figures["page_cache_seconds"] > 0
    for worst, measured in (
        ("worst_of_targeted", endpoints),
        ("worst_of_targeted_uncached", uncached),
    ):
        assert figures[worst]["web_cpu_ms"] == max(
            measured[n]["web_cpu_ms"] for n in ("home", "site_match_list", "api_match_list")
        )
