"""A bot's rating over time as a small server-rendered SVG (no chart library, no script)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString

from tournaments.rating import selectors

WIDTH, HEIGHT, PAD = 640, 180, 28


def line_chart(points: Sequence[tuple[str, float]], *, label: str = "rating") -> SafeString:
    """An SVG polyline of (x label, value) points, oldest first, with min/max gridlines."""
    values = [v for _, v in points]
    lo, hi = min(values), max(values)
    span = (hi - lo) or 1.0
    step = (WIDTH - 2 * PAD) / max(len(points) - 1, 1)

    def xy(i: int, v: float) -> tuple[float, float]:
        return PAD + i * step, HEIGHT - PAD - (v - lo) / span * (HEIGHT - 2 * PAD)

    coords = " ".join(f"{x:.1f},{y:.1f}" for x, y in (xy(i, v) for i, v in enumerate(values)))
    dots = format_html_join(
        "",
        '<circle cx="{}" cy="{}" r="3"><title>{}: {}</title></circle>',
        # format_html escapes its arguments into strings first: numbers are formatted here.
        ((*(f"{c:.1f}" for c in xy(i, v)), when, f"{v:.1f}") for i, (when, v) in enumerate(points)),
    )
    return format_html(
        '<svg class="chart" viewBox="0 0 {w} {h}" role="img" aria-label="{label} over time">'
        '<line x1="{p}" x2="{r}" y1="{p}" y2="{p}" class="grid"/>'
        '<line x1="{p}" x2="{r}" y1="{b}" y2="{b}" class="grid"/>'
        '<text x="2" y="{ty}">{hi}</text><text x="2" y="{by}">{lo}</text>'
        '<polyline points="{coords}"/>{dots}</svg>',
        w=WIDTH,
        h=HEIGHT,
        p=PAD,
        r=WIDTH - PAD,
        b=HEIGHT - PAD,
        ty=PAD + 4,
        by=HEIGHT - PAD + 4,
        hi=f"{hi:.0f}",
        lo=f"{lo:.0f}",
        label=label,
        coords=coords,
        dots=dots,
    )


def _history(bot: Any) -> list[tuple[str, float]]:
    """``bot``'s rating after each rated match (RatingHistory), oldest first, in the pool
    where it played most (one line per chart: pools are different scales of opponents)."""
    rows = selectors.bot_history(bot, limit=2000)
    if not rows:
        return []
    pools = Counter(pool for pool, _, _ in rows)
    main = pools.most_common(1)[0][0]
    return [(str(at)[:16], float(v)) for pool, at, v in rows if pool == main][-500:]


def rating_chart(bot: Any) -> SafeString | None:
    points = _history(bot)
    return line_chart(points) if len(points) >= 2 else None
