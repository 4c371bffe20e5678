"""Challenge from a page: a game, each seat, options and a seed, then the live viewer.

The match is made by the API's own service (tournaments.play.services.create_challenge: the
same validation, the account's allowance, the same priority and fairness) on the API's
challenge budget (ChallengeThrottle, charged only for a match made). The seats offered are
the caller's ready versions, other users' public bots (each by its newest ready version, as
ladders seat them), the game's built-in bots and the caller as a person; anything else posted
is refused by the form, and the service checks again what the caller may seat.
"""

from __future__ import annotations

import json
from typing import Any

from django import forms
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_http_methods

from games.engine.builtin import builtin_names
from games.engine.registry import GAMES
from tournaments.play import selectors, services
from tournaments.site.api import parsers
from tournaments.site.api.throttles import ChallengeThrottle, charge_accepted, write_allowed

HUMAN = "human"
Choices = list[tuple[str, Any]]


def seat_choices(user: Any, game: str) -> Choices:
    """Grouped as a select shows them: value ``version:ID``, ``builtin:NAME`` or ``human``."""
    ready = sorted(
        selectors.versions_to_fork_with(user, game, limit=100),
        key=lambda v: (v.bot.name, -v.number),
    )
    mine = [(f"version:{v.pk}", f"{v.bot.name} v{v.number}") for v in ready]
    public = [
        (f"version:{v.pk}", f"{v.bot.name} v{v.number} ({v.bot.owner.username})")
        for v in selectors.public_versions_to_challenge(user, game)
    ]
    groups: Choices = []
    if mine:
        groups.append(("Your bots", mine))
    if public:
        groups.append(("Public bots", public))
    groups.append(("Built-in bots", [(f"builtin:{b}", b) for b in builtin_names(game)]))
    groups.append(("People", [(HUMAN, f"You ({user.username})")]))
    return groups


def as_seat(value: str) -> dict[str, Any]:
    """A chosen value as the service's seat (the form only lets offered values through)."""
    if value == HUMAN:
        return {"human": True}
    kind, _, rest = value.partition(":")
    return {"bot_version": int(rest)} if kind == "version" else {"builtin": rest}


class ChallengeForm(forms.Form):
    game = forms.ChoiceField(widget=forms.HiddenInput)
    options = forms.CharField(
        required=False,
        widget=forms.Textarea(attrs={"rows": 3, "spellcheck": "false"}),
        help_text="The game's options as JSON; {} plays its defaults.",
    )
    seed = forms.IntegerField(
        required=False,
        min_value=0,
        max_value=services.MAX_SEED,
        help_text="Empty for a random one (shown once the match is over).",
    )
    human_move_seconds = forms.IntegerField(
        required=False,
        min_value=services.MIN_MOVE_SECONDS,
        max_value=services.MAX_MOVE_SECONDS,
        label="Your time per decision (seconds)",
        help_text=f"If you take a seat; default {services.DEFAULT_MOVE_SECONDS}.",
    )

    def __init__(self, *args: Any, user: Any, game: str, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        info = GAMES[game]
        self.info = info
        game_field = self.fields["game"]
        assert isinstance(game_field, forms.ChoiceField)
        game_field.choices = [(g, GAMES[g].title) for g in GAMES]
        choices = seat_choices(user, game)
        for n in range(info.max_seats):
            optional = n >= info.min_seats
            self.fields[f"seat_{n}"] = forms.ChoiceField(
                label=f"Seat {n + 1}",
                required=not optional,
                choices=[("", "(nobody)"), *choices] if optional else choices,
            )

    def seat_fields(self) -> list[forms.BoundField]:
        return [self[f"seat_{n}"] for n in range(self.info.max_seats)]

    def clean_options(self) -> dict[str, Any]:
        text = (self.cleaned_data.get("options") or "").strip() or "{}"
        try:
            options = parsers.loads(text)
        except json.JSONDecodeError as exc:
            raise forms.ValidationError(f"not JSON: {exc}") from None
        except parsers.TooDeep as exc:  # a RecursionError past Python's limit: a 500 otherwise
            raise forms.ValidationError(str(exc)) from None
        if not isinstance(options, dict):
            raise forms.ValidationError("give a JSON object, such as {}")
        return options

    def seats(self) -> list[dict[str, Any]]:
        chosen = [self.cleaned_data.get(f"seat_{n}") for n in range(self.info.max_seats)]
        return [as_seat(value) for value in chosen if value]


def _game(request: HttpRequest) -> str:
    asked = request.POST.get("game") or request.GET.get("game") or ""
    return asked if asked in GAMES else next(iter(GAMES))


def _initial(request: HttpRequest, game: str) -> dict[str, Any]:
    """A first form: ``?seat=VALUE`` fills the first seats (a bot page's link), built-in random
    bots the rest of the fewest seats."""
    wanted = request.GET.getlist("seat")
    info = GAMES[game]
    filler = [f"builtin:{builtin_names(game)[0]}"] * info.min_seats
    seats = (wanted + filler[len(wanted) :])[: info.max_seats]
    return {"game": game, "options": "{}", **{f"seat_{n}": v for n, v in enumerate(seats)}}


@login_required
@require_http_methods(["GET", "HEAD", "POST"])
def challenge_page(request: HttpRequest) -> HttpResponse:
    game = _game(request)
    if request.method != "POST":
        form = ChallengeForm(initial=_initial(request, game), user=request.user, game=game)
        return _render(request, form, game)
    form = ChallengeForm(request.POST, user=request.user, game=game)
    if not form.is_valid():
        return _render(request, form, game, status=400)
    throttle = ChallengeThrottle()
    if not write_allowed(throttle, request):
        wait = max(1, round(throttle.wait() or 1))
        form.add_error(None, f"Too many challenges: try again in {wait} seconds.")
        return _render(request, form, game, status=429, retry_after=wait)
    v = form.cleaned_data
    try:
        match = services.create_challenge(
            user=request.user,
            game=game,
            seats=form.seats(),
            options=v["options"],
            seed=v["seed"],
            human_move_seconds=v["human_move_seconds"],
        )
    except services.Invalid as exc:
        for field, messages in exc.errors.items():
            for message in messages:
                form.add_error(field if field in form.fields else None, message)
        return _render(request, form, game, status=400)
    except services.OverLimit as exc:
        form.add_error(None, exc.message)
        return _render(request, form, game, status=429, retry_after=exc.retry_after)
    charge_accepted(request)
    return HttpResponseRedirect(reverse("site-match", args=[match.pk]), status=303)


def _render(
    request: HttpRequest,
    form: ChallengeForm,
    game: str,
    status: int = 200,
    retry_after: int | None = None,
) -> HttpResponse:
    games = [{"name": g.name, "title": g.title, "chosen": g.name == game} for g in GAMES.values()]
    response = render(
        request,
        "site/challenge.html",
        {"form": form, "games": games, "info": GAMES[game]},
        status=status,
    )
    if retry_after is not None:
        response["Retry-After"] = str(retry_after)
    return response
