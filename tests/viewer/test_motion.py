"""No animation on the site runs on: each ends within 5 s, and none runs for a visitor who asks
for reduced motion.

WCAG 2.2.2 asks that anything that moves or blinks for more than 5 s can be paused; an endless
animation also repaints an open page 60 times a second (the live badge's pulse cost headless
Chromium 0.09 s of a core per second, 2026-12-04). Read from every stylesheet the site serves:
its own and each game's.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.support import ROOT

pytestmark = pytest.mark.unit

STYLESHEETS = sorted(
    [*(ROOT / "tournaments" / "static").rglob("*.css"), *(ROOT / "games").glob("*/static/*.css")]
)
RULE = re.compile(r"([^{}]+)\{([^{}]*)\}")
"""An innermost rule: its selectors and its declarations (a media block's rules included)."""
REDUCED = re.compile(
    r"@media\s*\(\s*prefers-reduced-motion:\s*reduce\s*\)\s*\{((?:[^{}]|\{[^{}]*\})*)\}"
)
TIME = re.compile(r"^(\d*\.?\d+)(ms|s)$")


def animations(css: str) -> list[tuple[str, str]]:
    """(selector, the ``animation`` shorthand's value) of each rule that animates."""
    found = []
    for selectors, body in RULE.findall(re.sub(r"/\*.*?\*/", "", css, flags=re.S)):
        for declaration in body.split(";"):
            name, _, value = declaration.partition(":")
            if name.strip() == "animation" and value.strip() != "none":
                for selector in selectors.split(","):
                    found.append((selector.strip().split("\n")[-1].strip(), value.strip()))
    return found


def seconds_running(value: str) -> float:
    """How long an ``animation`` shorthand runs: its duration times its iteration count."""
    tokens = value.split()
    times = [TIME.match(t) for t in tokens]
    duration = next((float(m[1]) / (1000 if m[2] == "ms" else 1) for m in times if m), 0.0)
    if "infinite" in tokens:
        return float("inf")
    counts = [float(t) for t in tokens if re.fullmatch(r"\d*\.?\d+", t)]
    return duration * (counts[0] if counts else 1)


def stopped_when_reduced(css: str) -> set[str]:
    stopped: set[str] = set()
    for block in REDUCED.findall(re.sub(r"/\*.*?\*/", "", css, flags=re.S)):
        for selectors, body in RULE.findall(block):
            if re.search(r"animation\s*:\s*none", body):
                stopped |= {s.strip() for s in selectors.split(",")}
    return stopped


def test_the_site_has_stylesheets_and_animations_to_check() -> None:
    assert any(animations(path.read_text()) for path in STYLESHEETS)


@pytest.mark.parametrize("path", STYLESHEETS, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_animation_ends_within_5_s_and_stops_for_reduced_motion(path: Path) -> None:
    css = path.read_text()
    stopped = stopped_when_reduced(css)
    for selector, value in animations(css):
        assert seconds_running(value) <= 5, f"{selector} animates for more than 5 s: {value}"
        assert selector in stopped, f"{selector} still animates under prefers-reduced-motion"


def test_the_reading_of_an_animation() -> None:
    assert seconds_running("pulse 1.4s infinite") == float("inf")
    assert seconds_running("pulse 1.4s 3") == pytest.approx(4.2)
    assert seconds_running("turn 1.6s ease-in-out 3") == pytest.approx(4.8)
    assert seconds_running("fresh 1500ms ease-out") == 1.5
    css = ".a { animation: x 1s infinite; }\n@media (prefers-reduced-motion: reduce) { .a { animation: none; } }"
    assert animations(css) == [(".a", "x 1s infinite")]
    assert stopped_when_reduced(css) == {".a"}
