"""The series pages: yours, with a form to start one (a logged-in user's), and one series' page
with its results, or an A/B test's LLR path, Elo estimate and verdict.

A series is its owner's and staff's: anyone else gets a 404. The form writes through
competition's series service, as the API does (tournaments/site/api/series.py).
"""

from __future__ import annotations

import re
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import get_object_or_404, render
from django.urls import reverse
from django.views.decorators.http import require_http_methods, require_safe

from games.engine.registry import GAMES
from tournaments.competition import selectors, services
from tournaments.play.services import Invalid
from tournaments.site.pages.charts import llr_chart
from tournaments.site.pages.form_posts import form_on

TEST_NUMBERS = ("elo0", "elo1", "alpha", "beta")


def seat_of(word: str) -> dict[str, Any]:
    """A form's player: ``v:<id>`` (the pickers' value; ``v<id>`` in older links) a bot
    version, any other word a built-in (``builtin:<name>`` or its name)."""
    word = word.strip()
    number = word.removeprefix("v").removeprefix(":")
    if word.startswith("v") and number.isdigit():
        return {"bot_version": int(number)}
    return {"builtin": word.removeprefix("builtin:")}


def key_of(word: str) -> str:
    """The player key a picker's option carries for a form's player (to keep it chosen)."""
    seat = seat_of(word)
    return f"v:{seat['bot_version']}" if "bot_version" in seat else f"builtin:{seat['builtin']}"


def _words(form: Any, name: str) -> list[str]:
    """A picker's chosen players (each box a value; a typed list of words splits too)."""
    return [w for value in form.getlist(name) for w in value.replace(",", " ").split()]


def _seats(form: Any, name: str) -> list[dict[str, Any]]:
    return [seat_of(w) for w in _words(form, name)]


def _one(form: Any, name: str) -> dict[str, Any]:
    words = _words(form, name)
    if len(words) != 1:
        raise Invalid({name: f"choose one player as the {name}"})
    return seat_of(words[0])


def _number(text: str, name: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise Invalid({"test": f"{name} must be a number"}) from None


def _whole(text: str, name: str) -> int:
    if not text.strip().isdigit():
        raise Invalid({name: f"{name} must be a whole number"})
    return int(text)


def _is_test(form: Any) -> bool:
    """The A/B test's form says so; a form of before the two forms gave a candidate."""
    kind = form.get("kind", "")
    return kind == "test" if kind else bool(form.get("candidate", "").strip())


def _start(user: Any, form: Any) -> Any:
    """The series the form asks for (Invalid names what is wrong)."""
    game = form.get("game", "")
    if _is_test(form):
        test: dict[str, Any] = {
            "candidate": _one(form, "candidate"),
            "baseline": _one(form, "baseline"),
            "field": _seats(form, "field"),
            "max_games": _whole(form.get("max_games", "200"), "max_games"),
        }
        for name in TEST_NUMBERS:
            if form.get(name, "").strip():
                test[name] = _number(form[name], name)
        return services.create_series(user=user, game=game, name=form.get("name", ""), test=test)
    return services.create_series(
        user=user,
        game=game,
        name=form.get("name", ""),
        players=_seats(form, "players"),
        deals=_whole(form.get("deals", "1"), "deals"),
    )


LABELS = {
    "game": "Game",
    "name": "Name",
    "players": "Players",
    "deals": "Deals",
    "candidate": "Candidate",
    "baseline": "Baseline",
    "field": "Field",
    "max_games": "Pairs at most",
    "test": "A/B test",
    "options": "Options",
}
"""The form's labels of the service's fields (elo0, elo1, alpha and beta are their own)."""

_NAMED = re.compile(r"(max_games|deals|elo0|elo1|alpha|beta)(?: \(pairs\))? (must be .*)")


def _reworded(field: str, message: str, is_test: bool) -> tuple[str, str]:
    """A message of the service (which speaks the API's fields) as the form says it: under
    the label of the field it is about."""
    if message.startswith(("give a list of seats", "each seat is")):
        # The form sends the candidate and the baseline as one seat each: an empty list is
        # the players' or the field's.
        return ("Field" if is_test else "Players"), "choose at least one player"
    named = _NAMED.fullmatch(message)
    if named:
        return LABELS.get(named[1], named[1]), named[2]
    return LABELS.get(field, field), message


def form_errors(errors: dict[str, list[str]], is_test: bool) -> dict[str, list[str]]:
    """The errors as the form shows them: by label."""
    said: dict[str, list[str]] = {}
    for field, said_of_field in errors.items():
        for message in said_of_field:
            label, text = _reworded(field, message, is_test)
            said.setdefault(label, []).append(text)
    return said


def _chosen(form: Any) -> dict[str, list[str]]:
    """Each picker's chosen player keys, to show them chosen again (a bad form, a bot's link)."""
    return {
        name: [key_of(w) for w in _words(form, name)]
        for name in ("players", "candidate", "baseline", "field")
    }


@login_required
@require_http_methods(["GET", "HEAD", "POST"])
def series_list(request: HttpRequest) -> HttpResponse:
    errors: dict[str, list[str]] = {}
    form = request.POST if request.method == "POST" else request.GET
    game = form.get("game") or next(iter(GAMES))
    if request.method == "POST":
        try:
            series = _start(request.user, request.POST)
        except Invalid as exc:
            errors = exc.errors
        else:
            return HttpResponseRedirect(reverse("site-series", args=[series.pk]))
    elif game not in GAMES:
        errors = {"game": [f"unknown game {game!r}; known games: {', '.join(sorted(GAMES))}"]}
    mine = list(selectors.series_of(request.user)[:50])
    names = selectors.player_names(request.user, [p for s in mine for p in _players_of(s)])
    context = {
        "mine": [(s, [names[p] for p in _players_of(s)]) for s in mine],
        "games": [(g, info.title) for g, info in GAMES.items()],
        "game": game,
        "choices": selectors.player_choices(request.user, game) if game in GAMES else [],
        "chosen": _chosen(form),
        "form": form,
        "errors": form_errors(errors, _is_test(form)),
        "is_test": _is_test(form),
    }
    return render(request, "site/series_list.html", context, status=400 if errors else 200)


def _players_of(series: Any) -> list[str]:
    """A series' players as keys: a plain series' table, an A/B test's candidate, baseline
    and field."""
    if series.test is None:
        return list(series.players)
    return [series.test["candidate"], series.test["baseline"], *series.test["field"]]


def _named(results: dict[str, Any], names: dict[str, str]) -> dict[str, Any]:
    """The results with each player's name beside its key (the pages show names)."""
    return {
        **results,
        "players": [{**p, "name": names[p["player"]]} for p in results["players"]],
        "strengths": [{**s, "name": names[s["player"]]} for s in results["strengths"]],
        "head_to_head": [
            {**h, "player_name": names[h["player"]], "opponent_name": names[h["opponent"]]}
            for h in results["head_to_head"]
        ],
    }


@require_safe
def series_page(request: HttpRequest, pk: int) -> HttpResponse:
    series = get_object_or_404(selectors.series_visible_to(request.user), pk=pk)
    results = selectors.series_results(series)
    players = _players_of(series)
    named = {p["player"] for p in results["players"]}
    names = selectors.player_names(request.user, [*players, *named])
    test = results["test"]
    chart = (
        llr_chart(test["llr"], test["lower"], test["upper"], series.test["max_games"])
        if test is not None and series.test is not None
        else None
    )
    return render(
        request,
        "site/series.html",
        {
            "series": series,
            "results": _named(results, names),
            "players": [names[p] for p in players],
            "ab": None
            if series.test is None
            else {
                "candidate": names[series.test["candidate"]],
                "baseline": names[series.test["baseline"]],
                "field": [names[p] for p in series.test["field"]],
            },
            "test": test,
            "chart": chart,
            "matches": selectors.series_matches(series),
        },
    )


@login_required
@form_on("site-series", "pk")
def series_cancel(request: HttpRequest, pk: int) -> HttpResponse:
    """Its owner (or staff) stops a running series, as POST /api/series/{id}/cancel/ does."""
    series = get_object_or_404(selectors.series_visible_to(request.user), pk=pk)
    try:
        services.cancel_series(series=series)
    except Invalid as exc:  # not running any more (finished, or cancelled in another tab)
        messages.error(request, " ".join(m for said in exc.errors.values() for m in said))
    else:
        messages.success(request, f"{series} is cancelled: its queued matches will not be played.")
    return HttpResponseRedirect(reverse("site-series", args=[series.pk]))
