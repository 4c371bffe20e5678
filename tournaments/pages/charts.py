"""A bot's rating over time as a small server-rendered SVG (no chart library, no script)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.apps import apps
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString

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
        '<circle cx="{:.1f}" cy="{:.1f}" r="3"><title>{}: {:.1f}</title></circle>',
        ((*xy(i, v), when, v) for i, (when, v) in enumerate(points)),
    )
    return format_html(
        '<svg class="chart" viewBox="0 0 {w} {h}" role="img" aria-label="{label} over time">'
        '<line x1="{p}" x2="{r}" y1="{p}" y2="{p}" class="grid"/>'
        '<line x1="{p}" x2="{r}" y1="{b}" y2="{b}" class="grid"/>'
        '<text x="2" y="{ty}">{hi:.0f}</text><text x="2" y="{by}">{lo:.0f}</text>'
        '<polyline points="{coords}"/>{dots}</svg>',
        w=WIDTH,
        h=HEIGHT,
        p=PAD,
        r=WIDTH - PAD,
        b=HEIGHT - PAD,
        ty=PAD + 4,
        by=HEIGHT - PAD + 4,
        hi=hi,
        lo=lo,
        label=label,
        coords=coords,
        dots=dots,
    )


def _history(bot: Any) -> list[tuple[str, float]]:
    """Rating points of ``bot`` from the ratings issue's history rows, when that model exists."""
    for name in ("RatingHistory", "RatingChange", "RatingPoint"):
        try:
            model = apps.get_model("tournaments", name)
        except LookupError:
            continue
        fields = {f.name for f in model._meta.get_fields()}
        value = next((f for f in ("ordinal", "mu", "rating") if f in fields), None)
        when = next((f for f in ("created_at", "recorded_at", "at") if f in fields), None)
        if value is None or when is None:
            return []
        if "bot" in fields:
            qs = model.objects.filter(bot=bot)
        elif "bot_version" in fields:
            qs = model.objects.filter(bot_version__bot=bot)
        else:
            return []
        rows = qs.order_by(when).values_list(when, value)[:500]
        return [(str(at)[:16], float(v)) for at, v in rows if v is not None]
    return []


def rating_chart(bot: Any) -> SafeString | None:
    points = _history(bot)
    return line_chart(points) if len(points) >= 2 else None
