"""``manage.py bench lists`` and ``bench endpoints`` at their smallest: they run and compute
what they print.

No figure is held to a target here (the CI machine's mood); these check that every list and
page the bench promises is read at each size, and that the ratio it prints is the one its
figures give.
"""

from __future__ import annotations

import io
import json

import pytest
from django.core.management import call_command

from tournaments.bench import lists


@pytest.mark.django_db
def test_bench_lists_reads_every_list_s_full_pages_at_each_size_and_prints_the_worst_ratio() -> (
    None
):
    out = io.StringIO()
    # --in-place: the test database is throwaway already (and rolled back after the test).
    call_command(
        "bench", "lists", "--in-place", "--sizes", "600,1200", "--repeats", "1", "--pages", "2",
        stdout=out,
    )  # fmt: skip
    figures = json.loads(out.getvalue())
    assert figures["sizes"] == [600, 1200]
    # Both sizes side by side in the one database, each side's reads seeing its own table.
    assert figures["stored"] == {"600": 600, "1200": 1200}
    small, large = figures["by_size"]["600"], figures["by_size"]["1200"]
    # The same pages at both sizes: home, a bot's page, and each list's full pages (at 600
    # matches the rare statuses fill no page of 25 or 50, so they are left out).
    assert set(small) == set(large) == set(figures["cpu_ratio_by_page"])
    assert {"home", "bot_page", "site_all#1", "site_all#2", "api_all#1", "api_all#2"} <= set(small)
    assert {f"api_{f}#1" for f in ("game", "status_finished", "ladder", "season")} <= set(small)
    assert "api_status_running#1" not in small
    for name, ratio in figures["cpu_ratio_by_page"].items():
        expected = large[name]["cpu_ms_p50"] / max(small[name]["cpu_ms_p50"], 1e-3)
        assert ratio == pytest.approx(expected, abs=0.01), name
        assert small[name]["cpu_ms_p50"] > 0 and small[name]["wall_ms_p50"] > 0
    assert figures["p50_ratio"] == max(figures["cpu_ratio_by_page"].values())
    ratios = sorted(figures["cpu_ratio_by_page"].values())
    assert figures["median_page_ratio"] == pytest.approx(
        (ratios[(len(ratios) - 1) // 2] + ratios[len(ratios) // 2]) / 2, abs=0.01
    )
    assert figures["cpu_ratio_by_page"][figures["worst"]] == figures["p50_ratio"]
    assert figures["target"] == lists.TARGET == 1.3
