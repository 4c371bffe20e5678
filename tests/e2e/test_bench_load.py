"""``manage.py bench load`` in its short form: it starts its server and worker, runs locust, reports.

No figure is held to a target here (timings on CI measure the machine's mood); the test checks
that the load ran against a real server and worker without an error and that the JSON has its shape.
"""

from __future__ import annotations

import io
import json

import pytest
from django.core.management import call_command

from tournaments.play.models import Match

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.e2e]


def test_bench_load_short_form_has_no_errors_and_every_figure() -> None:
    out = io.StringIO()
    # --in-place: the test database is throwaway already; the server and worker use it too.
    call_command(
        "bench", "load", "--in-place", "--users", "5", "--load-seconds", "5",
        "--baseline-seconds", "2", stdout=out,
    )  # fmt: skip
    figures = json.loads(out.getvalue())
    assert figures["errors"] == 0, figures["error_kinds"]
    assert figures["requests"] == figures["reads"] + figures["writes"] > 0
    assert set(figures["read_ms"]) == {"p50", "p95", "p99"}
    assert figures["read_ms"]["p50"] <= figures["read_ms"]["p99"]
    kinds = {"state", "events", "standings", "match list", "page", "challenge", "upload"}
    assert set(figures["by_request"]) <= {f"read {k}" for k in kinds} | {
        f"write {k}" for k in kinds
    }
    assert set(figures["matches_per_s"]) == {"baseline_before", "under_load", "baseline_after"}
    assert figures["feeder_error"] is None
    cpu = figures["cpu_under_load"]
    # The server and the worker did work in the loaded window, and it was counted.
    assert cpu["web_cpu_s"] > 0 and cpu["worker_cpu_s"] > 0
    assert cpu["web_cpu_ms_per_request"] > 0 and cpu["worker_cpu_ms_per_match"] > 0
    # ... and attributed: every request the users made has its line, of the kind they named
    # it, and what the lines hold plus what none holds is the web's whole CPU.
    by_kind = cpu["web_cpu_by_request"]
    assert {k: v["requests"] for k, v in by_kind.items()} == {
        k: v["requests"] for k, v in figures["by_request"].items()
    }
    assert all(v["cpu_ms_mean"] > 0 for v in by_kind.values())
    assert cpu["web_cpu_ms_per_read"] > 0 and cpu["web_cpu_attributed_s"] > 0
    whole = cpu["web_cpu_attributed_s"] + cpu["web_cpu_unattributed_s"]
    assert abs(whole - cpu["web_cpu_s"]) <= 0.02
    read_cpu = sum(v["cpu_s"] for k, v in by_kind.items() if k.startswith("read"))
    assert abs(cpu["web_cpu_ms_per_read"] * figures["reads"] / 1000 - read_cpu) <= 0.05
    assert figures["targets"]["web_cpu_ms_per_read"] == 5
    busy = figures["cores_busy_under_load"]
    assert set(busy) == {
        "seconds",
        "web",
        "worker",
        "postgres",
        "rabbitmq",
        "redis",
        "locust",
        "bench_feeder",
        "cores",
    }
    # The load generator and the database did work, and no share exceeds the machine.
    assert busy["locust"] > 0 and busy["postgres"] > 0
    assert all(0 <= busy[k] <= busy["cores"] for k in busy if k not in ("seconds", "cores"))
    assert {"web", "worker", "postgres", "bench_feeder"} <= set(figures["cores_busy_quiet"])
    assert figures["cores_busy_quiet"]["worker"] > 0
    assert isinstance(figures["throughput_drop"], float)
    # The worker really played the feeder's matches, in every window.
    assert all(n > 0 for n in figures["matches_finished"].values())
    assert Match.objects.filter(status=Match.Status.FINISHED).count() >= sum(
        figures["matches_finished"].values()
    )
