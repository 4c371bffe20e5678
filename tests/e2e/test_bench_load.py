"""``manage.py bench load`` in its short form: it starts its server and worker, runs locust, reports.

No figure is held to a target here (timings on CI measure the machine's mood); the test checks
that the load ran against a real server and worker without an error, and that what the bench
computed adds up: each rate, share and ratio the quotient of the figures it divides, each count
the requests and matches it reports.
"""

from __future__ import annotations

import io
import json

import pytest
from django.core.management import call_command

from tests.support.benches import is_quotient
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
    assert figures["requests"] == sum(v["requests"] for v in figures["by_request"].values())
    cpu = figures["cpu_under_load"]
    matches = figures["matches_finished"]
    # The server's and the worker's CPU in the loaded window, per request and per match
    # played in it: each the quotient of the figures it divides.
    assert is_quotient(
        cpu["web_cpu_ms_per_request"], cpu["web_cpu_s"], figures["requests"], (1, 2, None), 1000
    ), cpu
    if matches["under_load"] == 0:  # two suites on the two cores: no match ended in the window
        assert cpu["worker_cpu_ms_per_match"] is None, (cpu, matches)
    else:
        assert is_quotient(
            cpu["worker_cpu_ms_per_match"],
            cpu["worker_cpu_s"],
            matches["under_load"],
            (1, 2, None),
            1000,
        ), (cpu, matches)
    # ... and attributed: every request the users made has its line, of the kind they named
    # it, and what the lines hold plus what none holds is the web's whole CPU.
    by_kind = cpu["web_cpu_by_request"]
    assert {k: v["requests"] for k, v in by_kind.items()} == {
        k: v["requests"] for k, v in figures["by_request"].items()
    }
    for kind in by_kind.values():
        assert is_quotient(kind["cpu_ms_mean"], kind["cpu_s"], kind["requests"], (2, 2, None), 1000)
    attributed = sum(v["cpu_s"] for v in by_kind.values())
    assert abs(cpu["web_cpu_attributed_s"] - attributed) <= 0.005 * (len(by_kind) + 1) + 1e-9
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
    # The web's and the worker's shares are their CPU over the window's seconds.
    for name in ("web", "worker"):
        assert is_quotient(busy[name], cpu[f"{name}_cpu_s"], busy["seconds"], (2, 2, 1)), busy
    # The load generator and the database did work, and no share exceeds the machine.
    assert busy["locust"] > 0 and busy["postgres"] > 0
    assert all(0 <= busy[k] <= busy["cores"] for k in busy if k not in ("seconds", "cores"))
    assert {"web", "worker", "postgres", "bench_feeder"} <= set(figures["cores_busy_quiet"])
    # The worker played in the loaded window: its CPU there is at least one 10-ms clock tick.
    # Its share of a core may still read 0.0 at two decimals (under 0.05 s of CPU over the
    # window's 5 to 10 s: it read 0.0 beside a loaded suite, 2026-12-04), and a 2-s quiet window
    # may hold none of its ticks, so neither share is held above 0.
    assert cpu["worker_cpu_s"] > 0 and busy["worker"] >= 0
    assert figures["cores_busy_quiet"]["worker"] >= 0
    # The worker really played the feeder's matches. Not in every window: a 2-s quiet window
    # finished none while a loaded suite shared the two cores (2026-12-04, 14:30 UTC), as its
    # CPU may hold none of the worker's ticks (above).
    assert all(n >= 0 for n in matches.values()) and sum(matches.values()) > 0, matches
    assert Match.objects.filter(status=Match.Status.FINISHED).count() >= sum(matches.values())
    # The drop: 1 - the loaded rate over the mean of the quiet ones, all three as printed; none
    # when neither quiet window finished a match.
    rates = figures["matches_per_s"]
    quiet = (rates["baseline_before"] + rates["baseline_after"]) / 2
    if matches["baseline_before"] + matches["baseline_after"] == 0:
        assert figures["throughput_drop"] is None, figures
    else:
        assert is_quotient(1 - figures["throughput_drop"], rates["under_load"], quiet, (3, 2, 2)), (
            figures["throughput_drop"],
            rates,
        )
