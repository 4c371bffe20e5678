"""Thin page views: parse the request, ask selectors, visibility and replay, render."""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlencode

from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.middleware.csrf import get_token
from django.shortcuts import get_object_or_404, render
from django.urls import reverse
from django.utils import timezone
from django.utils.html import format_html_join

# The pages only read: a POST, PUT or DELETE is a 405, not the page (tests/api/test_endpoint_matrix.py).
from django.views.decorators.http import require_safe

from games.engine.builtin import builtin_names
from games.engine.registry import GAMES
from tournaments.competition import selectors as competition_selectors
from tournaments.play import keyset, selectors, visibility
from tournaments.play.selectors import replay
from tournaments.rating import selectors as rating_selectors
from tournaments.rating.ratings import PROVISIONAL_GAMES, is_provisional
from tournaments.site import page_cache, settled_reads
from tournaments.site.pages import markdown
from tournaments.site.pages.charts import rating_chart
from tournaments.site.pages.errors import BadQuery

if TYPE_CHECKING:
    from tournaments.competition.models import Ladder, Season
    from tournaments.play.models import Bot, Match
    from tournaments.rating.models import Rating

PAGE_SIZE = 25
DOCS_DIR = Path(settings.BASE_DIR) / "docs"
# The bot authors' docs the site shows: URL name -> (link text, file under docs/). Each game's
# rules are shown too, under the game's name, from where its registry entry says (rules_path).
AUTHOR_DOCS = {
    "bots": ("Writing a bot", "bots.md"),
    "api": ("The API by example", "api.md"),
    "builtin-bots": ("Built-in bots", "builtin-bots.md"),
    "ab-tests": ("Series and A/B tests", "ab-tests.md"),
    "cli": ("The backroom command", "cli.md"),  # bots.md links it
    # api.md and the others link these two: served, so that their links lead somewhere.
    "ladders": ("Ladders and ratings", "ladders.md"),
    "reliability": ("Reliability", "reliability.md"),
}


def _docs() -> dict[str, tuple[str, Path]]:
    """Every doc page, in the site's order: URL name -> (link text, Markdown file)."""
    docs = {name: (text, DOCS_DIR / path) for name, (text, path) in AUTHOR_DOCS.items()}
    games = {g.name: (f"{g.title} rules", g.rules_path) for g in GAMES.values()}
    return {"bots": docs.pop("bots"), "api": docs.pop("api"), **games, **docs}


def _choice(request: HttpRequest, name: str, choices: list[str]) -> str | None:
    """A query parameter that names one of ``choices``, None if absent or empty (the filter
    form's "any"); another value is a 400 that lists them, as the API's is: not a page that
    quietly shows everything."""
    value = request.GET.get(name)
    if not value:
        return None
    if value not in choices:
        raise BadQuery(f"{name} must be one of {', '.join(choices)}, not {value[:40]!r}")
    return value


def _int(request: HttpRequest, name: str) -> int | None:
    """A whole-number query parameter, None if absent; anything else is a 400 that says so.

    Only ASCII digits: ``int()`` would also take "١٢", " 7" or "1_000" (the site is stricter
    here than the API's integer fields, which take those too).
    """
    value = request.GET.get(name)
    if not value:
        return None
    if not (value.isascii() and value.isdigit()):
        raise BadQuery(f"{name} must be a whole number (0, 1, 2, ...), not {value[:40]!r}")
    # Length first: int() refuses strings of over 4,300 digits with a ValueError of its own.
    digits = value.lstrip("0") or "0"
    number = int(digits) if len(digits) <= len(str(_BIGGEST)) else _BIGGEST + 1
    if number > _BIGGEST:
        raise BadQuery(f"{name} is too large")
    return number


_BIGGEST = 2**63 - 1
"""Postgres' bigint: a larger id or step would be an error in the query, not an answer."""


def _rating_rows(
    ladder: Ladder, user: Any, ratings: Iterable[Rating] | None = None
) -> list[dict[str, Any]]:
    """The ladder's ratings as the API lists them (ladders.ratings_of, or ``ratings`` read
    already), named as ``user`` may see."""
    qs = competition_selectors.ratings_of(ladder) if ratings is None else ratings
    rows = []
    for r in qs:
        shown = r.bot_version is not None and visibility.shows_bot(user, r.bot_version.bot)
        rows.append(
            {
                "name": visibility.player_name(user, r.bot_version, r.builtin),
                "bot_id": r.bot_version.bot_id if shown and r.bot_version else None,
                "rating": r.rating,
                "deviation": r.deviation,
                "conservative": r.conservative,
                "games": r.games,
                "provisional": is_provisional(r.games),
            }
        )
    return rows


@require_safe
def competition_page(request: HttpRequest, kind: str, pk: int) -> HttpResponse:
    """A ladder's or a season's standings and latest matches."""
    competition: Ladder | Season
    rating_rows: list[dict[str, Any]] = []
    standings: list[dict[str, Any]] = []
    when: dict[str, Any] = {}  # a ladder's rounds, a season's progress and dates
    if kind == "ladder":
        ladder = get_object_or_404(competition_selectors.ladders(), pk=pk)
        competition, rating_rows = ladder, _rating_rows(ladder, request.user)
        when = {
            "next_round": competition_selectors.next_ladder_round(ladder, timezone.now()),
            "last_round": competition_selectors.last_ladder_round(ladder),
        }
    else:
        season = get_object_or_404(competition_selectors.seasons(), pk=pk)
        competition, standings = (
            season,
            competition_selectors.standings_seen_by(season, request.user),
        )
        played, planned = competition_selectors.season_progress(season)
        when = {"played": played, "planned": planned}
    return render(
        request,
        "site/competition.html",
        {
            "kind": kind,
            "kind_shown": _kind_shown(kind, competition.name),
            "competition": competition,
            "provisional_games": PROVISIONAL_GAMES,
            "ratings": rating_rows,
            "standings": standings,
            "latest": selectors.matches(
                user=request.user,
                ladder=competition.pk if kind == "ladder" else None,
                season=competition.pk if kind == "season" else None,
            )[:20],
            "matches_url": reverse("site-matches") + f"?{kind}={competition.pk}",
            **when,
        },
    )


@require_safe
def seasons_page(request: HttpRequest) -> HttpResponse:
    """Every season: scheduled, running (or paused), finished; with their progress and dates."""
    groups = competition_selectors.seasons_grouped()
    return render(
        request,
        "site/seasons.html",
        {"groups": [(name, groups[name]) for name in competition_selectors.SEASON_GROUPS]},
    )


def _kind_shown(kind: str, name: str) -> str:
    """The word beside a competition's name in its title, unless the name says it already:
    "Demo season" is titled "Demo season · Brexit", not "Demo season season · Brexit"."""
    return "" if kind in name.casefold().split() else kind


@require_safe
def home(request: HttpRequest) -> HttpResponse:
    games = [
        {"name": g.name, "title": g.title, "blurb": g.blurb, "info": g} for g in GAMES.values()
    ]
    tops = []
    for lad, best in competition_selectors.tops(limit=10):
        top = _rating_rows(lad, request.user, best)
        tops.append(
            {"ladder": lad, "top": top, "has_provisional": any(r["provisional"] for r in top)}
        )
    running = competition_selectors.running_seasons()
    latest = selectors.matches(user=request.user)[:10]
    return render(
        request,
        "site/home.html",
        {
            "games": games,
            "ladders": tops,
            "seasons": list(running[:10]),
            "latest": list(latest),
            "provisional_games": PROVISIONAL_GAMES,
        },
    )


@require_safe
def match_list(request: HttpRequest) -> HttpResponse:
    q = request.GET
    filters: dict[str, Any] = {
        "game": _choice(request, "game", list(GAMES)),
        "status": _choice(request, "status", selectors.MATCH_STATUSES),
        "bot": _int(request, "bot"),
        "season": _int(request, "season"),
        "ladder": _int(request, "ladder"),
    }
    qs = selectors.matches(user=request.user, **filters)
    try:
        page = keyset.page(qs, q.get("cursor"), PAGE_SIZE)
    except keyset.BadCursor as exc:
        raise BadQuery(str(exc)) from None
    shown = {k: v for k, v in filters.items() if v is not None}
    return render(
        request,
        "site/matches.html",
        {
            "page": page.matches,
            "older": page.older and "?" + urlencode({**shown, "cursor": page.older}),
            "newer": page.newer and "?" + urlencode({**shown, "cursor": page.newer}),
            "filters": filters,
            "games": GAMES.values(),
            "statuses": selectors.MATCH_STATUSES,
            "season_options": _options(competition_selectors.season_choices(), filters["season"]),
            "ladder_options": _options(competition_selectors.ladder_choices(), filters["ladder"]),
            "bot_options": _options(
                selectors.bot_choices(request.user, limit=200),
                filters["bot"],
            ),
        },
    )


def _options(choices: Iterable[tuple[int, str]], selected: int | None) -> str:
    """A filter's ``<option>``s, built here rather than in a template loop: up to 200 bots, each
    an ``if`` and three lookups in the template language, were a third of the page's time."""
    return format_html_join(
        "",
        '<option value="{}"{}>{}</option>',
        ((pk, " selected" if pk == selected else "", name) for pk, name in choices),
    )


def _match(request: HttpRequest, match_id: Any) -> Match:
    """The match, if the caller may see it at all (another user's smoke match is a 404)."""
    return get_object_or_404(selectors.match_detail(match_id, request.user))


def _view(request: HttpRequest, match: Match, seats: int) -> visibility.View:
    wanted = request.GET.get("view")
    if not wanted:  # a person sees the table from their own seat unless they ask otherwise
        own = selectors.person_seats(request.user, match)
        wanted = f"seat{own[0]}" if own else None
    try:
        view = visibility.parse_view(wanted, seats)
    except visibility.BadView as exc:
        raise Http404(str(exc)) from None
    if not visibility.may_see(request.user, match, view):
        raise Http404("this view opens when the match (and its duplicate deal) is over")
    return view


def _frame(request: HttpRequest, match: Match) -> dict[str, Any]:
    """What every rendering of one step needs."""
    seats = replay.seat_count(match)
    view = _view(request, match, seats)
    step = replay.clamp_step(match, _int(request, "step"))
    names = replay.labels(match, seats)
    return {
        "match": match,
        "seats": seats,
        "view": view,
        "step": step,
        "names": names,
        "board": replay.board_at(match, step, view, seats, names),
    }


@require_safe
def match_page(request: HttpRequest, match_id: Any) -> HttpResponse:
    match = _match(request, match_id)
    if request.user.is_authenticated:
        # The fork button and a person's moves post with the session's CSRF token; a visitor
        # without a session can do neither, and a page without a cookie may be shared.
        get_token(request)
    ctx = _frame(request, match)
    view, names = ctx["view"], ctx["names"]
    mine = visibility.seats_of(request.user, match)
    seen_by = visibility.sight(request.user, match, view)
    log_seats = seen_by.logs
    lines = replay.full_log(match, seen_by, names)
    verdicts = [
        {"version": line.version, "verdict": line.verdict, "seat": line.actor}
        for line in lines
        if line.verdict and line.verdict != "ok" and line.actor in log_seats
    ]
    # A person's seat has no bot: no stderr, no act message, not "Your bot at this step".
    bot_seats = sorted(set(log_seats) - set(selectors.person_seats(request.user, match)))
    stderr = replay.logs_by_step(match, set(bot_seats)) if bot_seats else {}
    forks = selectors.forks_of(match)
    ctx.update(
        {
            "lines": lines,
            "views": [
                {"name": v.name, "label": _view_label(v, names), "seat": v.seat}
                for v in visibility.views_open_to(request.user, match, ctx["seats"])
            ],
            "seat_rows": [
                {"seat": s, "name": names[s.number] if s.number < len(names) else s.number}
                for s in sorted(match.seats.all(), key=lambda s: s.number)
            ],
            "mine": sorted(mine),
            "log_seats": bot_seats,
            "verdicts": verdicts,
            "stderr_json": json.dumps({str(k): v for k, v in stderr.items()}),
            "live": selectors.is_live(match),
            "status_text": status_text(match, names),
            "play": _play(request, match, names),
            "can_fork": bool(mine) and visibility.deal_over(match) and match.last_version > 1,
            "forks": forks,
            "fork_builtins": builtin_names(match.game),
            "fork_versions": selectors.versions_to_fork_with(request.user, match.game, limit=50)
            if mine
            else [],
            "game_title": GAMES[match.game].title,
            "board_template": GAMES[match.game].board_template,
            "game_styles": GAMES[match.game].styles,
            "rules": _rules_panel(match.game),
        }
    )
    response = render(request, "site/viewer.html", ctx)
    if _settled(match):
        # Over with its deal: only a fork or a hiding write changes the page (page_cache).
        setattr(response, page_cache.KEEP, settled_reads.seconds())
    return response


def _settled(match: Match) -> bool:
    return (
        visibility.is_over(match) and match.validation_of_id is None and visibility.deal_over(match)
    )


def _rules_panel(game: str) -> dict[str, Any]:
    """The Rules panel beside a game's board: the rules doc's summary and the game's key."""
    info = GAMES[game]
    return {
        "summary": markdown.render(info.rules_summary),
        "glossary": info.view.glossary(),
        "url": reverse("site-doc", args=[game]),
    }


def status_text(match: Match, names: list[str]) -> str:
    """The status as the page shows it: "waiting for <seat>" names who must act."""
    if not selectors.is_waiting(match) or not match.waiting_for:
        return str(match.status)
    who = [names[k] if k < len(names) else f"seat {k}" for k in match.waiting_for]
    return f"waiting for {', '.join(who)}"


def clock(seconds: int) -> str:
    """Time left as a clock shows it: 9:05, or 1:02:03 past an hour (play.js ticks the same)."""
    hours, rest = divmod(max(0, seconds), 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


def _play(request: HttpRequest, match: Match, names: list[str]) -> dict[str, Any] | None:
    """The person's panel: their decisions' controls, or who they wait for, or the ranking."""
    own = selectors.person_seats(request.user, match)
    if not own:
        return None
    panel: dict[str, Any] = {"seats": own, "over": visibility.is_over(match), "decisions": []}
    if selectors.is_finished(match):
        ranked = sorted(match.seats.all(), key=lambda s: (s.rank or 0, s.number))
        panel["ranking"] = [
            {
                "seat": s.number,
                "rank": s.rank,
                "score": s.score,
                "name": names[s.number] if s.number < len(names) else s.label,
                "you": s.number in own,
            }
            for s in ranked
        ]
    if panel["over"]:
        panel["error"] = match.error if visibility.may_read_error(request.user, match) else ""
        return panel
    now = timezone.now()
    decisions = selectors.person_decisions(request.user, match.pk)
    if match.last_version == 0 and any(d.waiting for d in decisions):
        # Read before the game began, the seats had no names yet; the decisions are read now,
        # once it has: name the seat as the game does.
        match.refresh_from_db(fields=["last_version"])
        names = replay.labels(match, len(names))
    for d in decisions:
        if d.waiting and d.legal is not None and d.observation is not None:
            # The clock counts from the server's time left, not the deadline: a visitor's own
            # clock may be minutes off.
            left = max(0, int((d.deadline - now).total_seconds())) if d.deadline else 0
            panel["decisions"].append(
                {
                    "seat": d.seat,
                    "name": names[d.seat] if d.seat < len(names) else f"seat {d.seat}",
                    "step": d.step,
                    "deadline": d.deadline,
                    "seconds_left": left,
                    "clock": clock(left),
                    "controls": GAMES[match.game].view.controls(
                        d.legal, d.observation, names, d.seat
                    ),
                }
            )
    return panel


@require_safe
def match_play(request: HttpRequest, match_id: Any) -> HttpResponse:
    """The person's panel as an HTML fragment, which play.js swaps in as the match moves."""
    match = _match(request, match_id)
    seats = replay.seat_count(match)
    names = replay.labels(match, seats)
    panel = _play(request, match, names)
    if panel is None:
        raise Http404("you play no seat in this match")
    return render(
        request,
        "site/_play.html",
        {"match": match, "play": panel, "status_text": status_text(match, names)},
    )


def _view_label(view: visibility.View, names: list[str]) -> str:
    """What the view picker calls a view (viewer.js words a seat's the same way)."""
    if view.name == visibility.PUBLIC:
        return "Public (spectator)"
    if view.everything:
        return "All cards face up"
    assert view.seat is not None
    return f"{names[view.seat]} (seat {view.seat})"


@require_safe
def match_board(request: HttpRequest, match_id: Any) -> HttpResponse:
    """The board at one step, as an HTML fragment the viewer swaps in."""
    match = _match(request, match_id)
    ctx = _frame(request, match)
    return render(request, GAMES[match.game].board_template, ctx)


@require_safe
def match_log(request: HttpRequest, match_id: Any) -> JsonResponse:
    """New log lines after ``after``, for a live match's page (polled)."""
    match = _match(request, match_id)
    seats = replay.seat_count(match)
    view = _view(request, match, seats)
    try:
        after = _int(request, "after") or 0
    except BadQuery as exc:  # the viewer polls this for JSON: its refusal is JSON too
        return JsonResponse({"detail": str(exc)}, status=400)
    names = replay.labels(match, seats)
    lines = replay.log(match, visibility.sight(request.user, match, view), names, after=after)
    return JsonResponse(
        {
            "status": match.status,
            "status_text": status_text(match, names),
            "last_version": match.last_version,
            # A page opened before the first event named the seats "Seat 0"...: it renames them.
            "labels": names,
            "lines": [{"version": ln.version, "text": ln.text, "type": ln.type} for ln in lines],
        }
    )


@require_safe
def act_download(request: HttpRequest, match_id: Any, seat: int) -> HttpResponse:
    """The act message seat's bot received at ``step`` (its owner; staff once over)."""
    match = _match(request, match_id)
    if not visibility.may_read_logs(request.user, match, seat):
        raise Http404("no such act message")
    step = replay.clamp_step(match, _int(request, "step"))
    message = replay.act_message(match, step, seat)
    if message is None:
        raise Http404(f"seat {seat} was not asked to act at step {step}")
    response = HttpResponse(json.dumps(message, indent=1), content_type="application/json")
    response["Content-Disposition"] = (
        f'attachment; filename="act-{match.pk}-step{step}-seat{seat}.json"'
    )
    return response


@require_safe
def bot_page(request: HttpRequest, bot_id: int) -> HttpResponse:
    bot: Bot = get_object_or_404(selectors.bots_visible_to(request.user), pk=bot_id)
    versions = list(selectors.bot_versions(bot))
    # The version a challenge seats: the newest ready one (a private bot's: for its owner only).
    ready = next((v for v in versions if v.status == "ready"), None)
    mine = request.user.is_authenticated and request.user.pk == bot.owner_id
    seatable = ready is not None and bot.is_active and (bot.is_public or mine)
    return render(
        request,
        "site/bot.html",
        {
            "bot": bot,
            "versions": versions,
            "challenge_version": ready if seatable else None,
            "challenge_seat": f"version:{ready.pk}" if seatable and ready else "",
            "recent": selectors.bot_seats(request.user, bot)[:20],
            "verdicts": selectors.bot_verdicts(request.user, bot),
            "chart": rating_chart(bot),
            "standings": rating_selectors.ladder_standings(bot),
            "matches_url": reverse("site-matches") + f"?bot={bot.pk}",
        },
    )


@require_safe
def doc_page(request: HttpRequest, name: str) -> HttpResponse:
    """One of the bot authors' docs or a game's rules, rendered from the same Markdown as in
    the repository."""
    docs = _docs()
    if name not in docs:
        raise Http404("no such page")
    text = docs[name][1].read_text(encoding="utf-8")
    links = {}
    for other, (_text, file) in docs.items():
        url = reverse("site-doc", args=[other])
        links[file.name] = url
        if file.is_relative_to(DOCS_DIR):
            path = file.relative_to(DOCS_DIR).as_posix()
            links.update({path: url, f"docs/{path}": url, f"../{path}": url})
    title = next((ln.lstrip("# ").strip() for ln in text.splitlines() if ln.startswith("# ")), name)
    nav = [{"name": other, "text": link} for other, (link, _file) in docs.items()]
    return render(
        request,
        "site/doc.html",
        {"title": title, "body": markdown.render(text, links), "nav": nav},
    )
