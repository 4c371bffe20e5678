"""The series pages: yours, with a form to start one (a logged-in user's), and one series' page
with its results, or an A/B test's LLR path, Elo estimate and verdict.

A series is its owner's and staff's: anyone else gets a 404. The form writes through
competition's series service, as the API does (tournaments/site/api/series.py).
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import get_object_or_404, render
from django.urls import reverse
from django.views.decorators.http import require_http_methods, require_safe

from games.engine.builtin import builtin_names
from games.engine.registry import GAMES
from tournaments.competition import selectors
from tournaments.competition import series as series_service
from tournaments.play.services import Invalid
from tournaments.site.pages.charts import llr_chart

TEST_NUMBERS = ("elo0", "elo1", "alpha", "beta")


def seat_of(word: str) -> dict[str, Any]:
    """A form's player: ``v<id>`` (or ``v:<id>``) a bot version, any other word a built-in."""
    word = word.strip()
    number = word.removeprefix("v").removeprefix(":")
    if word.startswith("v") and number.isdigit():
        return {"bot_version": int(number)}
    return {"builtin": word.removeprefix("builtin:")}


def _seats(text: str) -> list[dict[str, Any]]:
    return [seat_of(w) for w in text.replace(",", " ").split() if w]


def _number(text: str, name: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise Invalid({"test": f"{name} must be a number"}) from None


def _whole(text: str, name: str) -> int:
    if not text.strip().isdigit():
        raise Invalid({name: f"{name} must be a whole number"})
    return int(text)


def _start(user: Any, form: Any) -> Any:
    """The series the form asks for (Invalid names what is wrong)."""
    game = form.get("game", "")
    if form.get("candidate", "").strip():
        test: dict[str, Any] = {
            "candidate": seat_of(form.get("candidate", "")),
            "baseline": seat_of(form.get("baseline", "")),
            "field": _seats(form.get("field", "")),
            "max_games": _whole(form.get("max_games", "200"), "max_games"),
        }
        for name in TEST_NUMBERS:
            if form.get(name, "").strip():
                test[name] = _number(form[name], name)
        return series_service.create_series(
            user=user, game=game, name=form.get("name", ""), test=test
        )
    return series_service.create_series(
        user=user,
        game=game,
        name=form.get("name", ""),
        players=_seats(form.get("players", "")),
        deals=_whole(form.get("deals", "1"), "deals"),
    )


@login_required
@require_http_methods(["GET", "HEAD", "POST"])
def series_list(request: HttpRequest) -> HttpResponse:
    errors: dict[str, list[str]] = {}
    if request.method == "POST":
        try:
            series = _start(request.user, request.POST)
        except Invalid as exc:
            errors = exc.errors
        else:
            return HttpResponseRedirect(reverse("site-series", args=[series.pk]))
    context = {
        "mine": selectors.series_of(request.user)[:50],
        "games": [(g, info.title, ", ".join(builtin_names(g))) for g, info in GAMES.items()],
        "form": request.POST if errors else request.GET,
        "errors": errors,
    }
    return render(request, "site/series_list.html", context, status=400 if errors else 200)


@require_safe
def series_page(request: HttpRequest, pk: int) -> HttpResponse:
    series = get_object_or_404(selectors.series_visible_to(request.user), pk=pk)
    results = series_service.results(series)
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
            "results": results,
            "test": test,
            "chart": chart,
            "matches": selectors.series_matches(series),
        },
    )
