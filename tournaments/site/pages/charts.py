"""A bot's rating over time as a small server-rendered SVG (no chart library, no script).

The chart says what it shows: its axes are drawn and labelled (the rating up the side, the
rated matches in order along the bottom, dated at both ends), and its caption names the pool
the line is from (a ladder, a season, or the game's other rated matches), linked.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from django.urls import reverse
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString

from games.engine.registry import GAMES
from tournaments.competition import selectors as competition_selectors
from tournaments.rating import selectors

WIDTH, HEIGHT = 640, 200
LEFT, RIGHT, TOP, BOTTOM = 56, 16, 12, 40
"""The plot's margins: room for the rating's ticks on the left and the dates below."""
TICKS = 3


@dataclass(frozen=True)
class Pool:
    """What a chart's line is rated in, as a visitor reads it."""

    kind: str
    """"ladder", "season", or "" for the game's other rated matches."""
    name: str
    url: str | None


def line_chart(
    points: Sequence[tuple[str, float]], *, label: str = "rating", pool: Pool | None = None
) -> SafeString:
    """A figure: an SVG polyline of (x label, value) points, oldest first, with its axes, and a
    caption naming ``pool``."""
    values = [v for _, v in points]
    lo, hi = min(values), max(values)
    span = (hi - lo) or 1.0
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM
    step = plot_w / max(len(points) - 1, 1)
    base = HEIGHT - BOTTOM

    def xy(i: int, v: float) -> tuple[float, float]:
        return LEFT + i * step, base - (v - lo) / span * plot_h

    coords = " ".join(f"{x:.1f},{y:.1f}" for x, y in (xy(i, v) for i, v in enumerate(values)))
    dots = format_html_join(
        "",
        '<circle cx="{}" cy="{}" r="3"><title>{}: {}</title></circle>',
        # format_html escapes its arguments into strings first: numbers are formatted here.
        ((*(f"{c:.1f}" for c in xy(i, v)), when, f"{v:.0f}") for i, (when, v) in enumerate(points)),
    )
    ticks = [lo + span * k / (TICKS - 1) for k in range(TICKS)] if hi > lo else [lo]
    y_ticks = _y_ticks(ticks, lambda v: xy(0, v)[1])
    first, last = points[0][0], points[-1][0]
    matches = f"{len(points)} rated match{'es' if len(points) != 1 else ''}, oldest to newest"
    svg = _plot(
        aria=_aria(label, pool),
        grid=y_ticks,
        y_title=label.capitalize(),
        x_ends=(first, last),
        x_title=matches,
        coords=coords,
        marks=dots,
    )
    return format_html('<figure class="chart-figure">{}{}</figure>', svg, _caption(label, pool))


def _plot(
    *,
    aria: str,
    grid: SafeString,
    y_title: str,
    x_ends: tuple[str, str],
    x_title: str,
    coords: str,
    marks: SafeString | str = "",
) -> SafeString:
    """The chart's frame: ``grid`` (ticks, bounds), both axes and their titles, the x axis's
    first and last labels, and the line through ``coords`` with its ``marks``."""
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM
    base = HEIGHT - BOTTOM
    return format_html(
        '<svg class="chart" viewBox="0 0 {w} {h}" role="img" aria-label="{aria}">'
        "{grid}"
        '<line x1="{l}" x2="{l}" y1="{t}" y2="{b}" class="axis"/>'
        '<line x1="{l}" x2="{r}" y1="{b}" y2="{b}" class="axis"/>'
        '<text x="14" y="{mid_y}" class="axis-title" text-anchor="middle"'
        ' transform="rotate(-90 14 {mid_y})">{y_title}</text>'
        '<text x="{l}" y="{date_y}" class="tick" text-anchor="start">{first}</text>'
        '<text x="{r}" y="{date_y}" class="tick" text-anchor="end">{last}</text>'
        '<text x="{mid_x}" y="{title_y}" class="axis-title" text-anchor="middle">{x_title}</text>'
        '<polyline points="{coords}"/>{marks}</svg>',
        w=WIDTH,
        h=HEIGHT,
        aria=aria,
        grid=grid,
        l=LEFT,
        r=WIDTH - RIGHT,
        t=TOP,
        b=base,
        mid_y=TOP + plot_h / 2,
        mid_x=LEFT + plot_w / 2,
        date_y=base + 14,
        title_y=base + 30,
        y_title=y_title,
        first=x_ends[0],
        last=x_ends[1],
        x_title=x_title,
        coords=coords,
        marks=marks,
    )


def _y_ticks(ticks: Sequence[float], y_of: Callable[[float], float]) -> SafeString:
    """A gridline and a number at each tick of the rating."""
    return format_html_join(
        "",
        '<line x1="{}" x2="{}" y1="{}" y2="{}" class="grid"/>'
        '<text x="{}" y="{}" class="tick" text-anchor="end">{}</text>',
        (
            (LEFT, WIDTH - RIGHT, f"{y:.1f}", f"{y:.1f}", LEFT - 6, f"{y + 4:.1f}", f"{v:.0f}")
            for v, y in ((v, y_of(v)) for v in ticks)
        ),
    )


def _aria(label: str, pool: Pool | None) -> str:
    return f"{label} over time in {_pool_words(pool)}" if pool else f"{label} over time"


def _pool_words(pool: Pool) -> str:
    return f"{pool.kind} {pool.name}" if pool.kind else pool.name


def _caption(label: str, pool: Pool | None) -> SafeString:
    if pool is None:
        return format_html("<figcaption>{} after each rated match</figcaption>", label.capitalize())
    where = (
        format_html('{} <a href="{}">{}</a>', pool.kind, pool.url, pool.name)
        if pool.url
        else format_html("{}", _pool_words(pool))
    )
    return format_html(
        "<figcaption>{} after each rated match in {}</figcaption>", label.capitalize(), where
    )


def pool_shown(pool: str) -> Pool:
    """A pool's key (tournaments.rating.keys.pool_of) as a visitor reads it."""
    kind, _, key = pool.partition(":")
    if kind == "ladder" and key.isdigit():
        ladder = competition_selectors.ladder_by_id(int(key))
        if ladder is not None:
            return Pool("ladder", ladder.name, reverse("site-ladder", args=[ladder.pk]))
    if kind == "season" and key.isdigit():
        season = competition_selectors.season_by_id(int(key))
        if season is not None:
            return Pool("season", season.name, reverse("site-season", args=[season.pk]))
    if kind in GAMES and key.isdigit():
        return Pool("", f"the other rated {GAMES[kind].title} matches of {key} players", None)
    return Pool("", pool, None)


def _history(bot: Any) -> tuple[str, list[tuple[str, float]]]:
    """``bot``'s rating after each rated match (RatingHistory), oldest first, in the pool
    where it played most (one line per chart: pools are different scales of opponents)."""
    rows = selectors.bot_history(bot, limit=2000)
    if not rows:
        return "", []
    pools = Counter(pool for pool, _, _ in rows)
    main = pools.most_common(1)[0][0]
    return main, [(str(at)[:16], float(v)) for pool, at, v in rows if pool == main][-500:]


def rating_chart(bot: Any) -> SafeString | None:
    pool, points = _history(bot)
    return line_chart(points, pool=pool_shown(pool)) if len(points) >= 2 else None


def llr_chart(llr: Sequence[float], lower: float, upper: float, cap: int) -> SafeString:
    """An A/B test's log-likelihood ratio after each pair, between its two bounds (H0 below,
    H1 above), along the pairs up to the cap: where the path crosses a bound the test stopped."""
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM
    lo, hi = min([lower, *llr]), max([upper, *llr])
    span = hi - lo
    pairs = max(cap, len(llr), 1)
    base = HEIGHT - BOTTOM

    def xy(n: int, v: float) -> tuple[float, float]:
        return LEFT + n / pairs * plot_w, base - (v - lo) / span * plot_h

    coords = " ".join(f"{x:.1f},{y:.1f}" for x, y in (xy(n, v) for n, v in enumerate([0.0, *llr])))
    y_ticks = _y_ticks([lower, 0.0, upper], lambda v: xy(0, v)[1])
    bound = '<line x1="{l}" x2="{r}" y1="{y}" y2="{y}" class="bound"><title>{title}</title></line>'
    bounds = format_html(
        bound,
        l=LEFT,
        r=WIDTH - RIGHT,
        y=f"{xy(0, upper)[1]:.1f}",
        title=f"H1 accepted at {upper:.2f}",
    ) + format_html(
        bound,
        l=LEFT,
        r=WIDTH - RIGHT,
        y=f"{xy(0, lower)[1]:.1f}",
        title=f"H0 accepted at {lower:.2f}",
    )
    svg = _plot(
        aria=f"log-likelihood ratio after each of {len(llr)} pairs, between {lower:.2f} and"
        f" {upper:.2f}",
        grid=y_ticks + bounds,
        y_title="LLR",
        x_ends=("0", str(pairs)),
        x_title="pairs",
        coords=coords,
    )
    return format_html('<figure class="chart-figure">{}</figure>', svg)
