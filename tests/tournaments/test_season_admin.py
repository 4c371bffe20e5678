"""Staff run a season from the admin: the test client posts the admin's own forms and actions."""

from __future__ import annotations

import re
from html import unescape
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from tests.factories import BotVersionFactory, UserFactory
from tournaments.competition.models import Fixture, Ladder, Season
from tournaments.play.models import BotVersion

pytestmark = pytest.mark.django_db


def _management(prefix: str, total: int) -> dict[str, Any]:
    return {
        f"{prefix}-TOTAL_FORMS": str(total),
        f"{prefix}-INITIAL_FORMS": "0",
        f"{prefix}-MIN_NUM_FORMS": "0",
        f"{prefix}-MAX_NUM_FORMS": "1000",
    }


def post_season_form(
    client: Client, *, name: str, entrants: list[dict[str, Any]], **fields: Any
) -> Any:
    """Post the admin's add form with its entrants inline."""
    data: dict[str, Any] = {
        "name": name,
        "game": "brexit",
        "seats": "3",
        "options": "{}",
        "format": "balanced",
        "rounds": "1",
        "games_per_table": "0",
        "starts_at_0": "2026-01-01",
        "starts_at_1": "00:00:00",
        "matches_per_hour": "3600",
        **_management("entrants", len(entrants)),
        **_management("fixtures", 0),
    }
    for i, entrant in enumerate(entrants):
        data[f"entrants-{i}-bot_version"] = str(entrant.get("bot_version", ""))
        data[f"entrants-{i}-builtin"] = entrant.get("builtin", "")
    data.update({k: str(v) for k, v in fields.items()})
    return client.post(reverse("admin:tournaments_season_add"), data)


def create_season_in_admin(
    client: Client, *, name: str, entrants: list[dict[str, Any]], **fields: Any
) -> Season:
    """Post the admin's add form with its entrants inline; returns the saved season."""
    response = post_season_form(client, name=name, entrants=entrants, **fields)
    assert response.status_code == 302, response.content.decode()[-3000:]
    return Season.objects.get(name=name)


def season_action(client: Client, season: Season, action: str) -> str:
    response = client.post(
        reverse("admin:tournaments_season_changelist"),
        {"action": action, "_selected_action": [season.pk]},
        follow=True,
    )
    assert response.status_code == 200
    return " ".join(str(m) for m in response.context["messages"])


def entrant_choices(client: Client, term: str, game: str) -> list[dict[str, str]]:
    """What the entrants' autocomplete offers, asked as its script asks (the form's game)."""
    found = client.get(
        reverse("admin:tournaments_season_entrant_versions"),
        {
            "term": term,
            "app_label": "tournaments",
            "model_name": "seasonentrant",
            "field_name": "bot_version",
            "game": game,
        },
    )
    assert found.status_code == 200, found.content[:300]
    results: list[dict[str, str]] = found.json()["results"]
    return results


@pytest.fixture
def staff_client(client: Client) -> Client:
    client.force_login(UserFactory(is_staff=True, is_superuser=True))  # type: ignore[arg-type]
    return client


def test_a_season_is_created_with_entrants_and_started_from_the_admin(staff_client: Client) -> None:
    version = BotVersionFactory(bot__name="clever")
    assert [r["id"] for r in entrant_choices(staff_client, "clev", "brexit")] == [str(version.pk)]
    season = create_season_in_admin(
        staff_client,
        name="winter",
        entrants=[{"builtin": "random"}, {"builtin": "greedy"}, {"bot_version": version.pk}],
    )
    assert season.state == "draft" and season.entrants.count() == 3
    # The version entered is shown as the picker lists it, with its owner.
    change = staff_client.get(reverse("admin:tournaments_season_change", args=[season.pk]))
    assert f"clever v1 by {version.bot.owner.username}</option>" in change.content.decode()
    assert "cannot become running" in season_action(staff_client, season, "start_season")
    assert "open" in season_action(staff_client, season, "open_season")
    assert "running" in season_action(staff_client, season, "start_season")
    season.refresh_from_db()
    assert season.state == "running"
    assert Fixture.objects.filter(season=season).count() == 3
    page = staff_client.get(reverse("admin:tournaments_season_change", args=[season.pk]))
    assert page.status_code == 200
    html = page.content.decode()
    assert "0 / 3" in html and "No results yet." in html and "not started" in html
    assert "paused" in season_action(staff_client, season, "pause_season")
    assert "running" in season_action(staff_client, season, "resume_season")
    assert "finished" in season_action(staff_client, season, "finish_season")
    season.refresh_from_db()
    assert season.state == "finished" and season.standings == []


def test_staff_disable_a_bot_from_the_admin(staff_client: Client) -> None:
    version = BotVersionFactory()
    response = staff_client.post(
        reverse("admin:tournaments_bot_changelist"),
        {"action": "disable_and_void", "_selected_action": [version.bot.pk]},
        follow=True,
    )
    assert response.status_code == 200
    version.bot.refresh_from_db()
    assert not version.bot.is_active


def test_an_entrant_must_be_a_version_or_a_known_builtin(staff_client: Client) -> None:
    response = post_season_form(
        staff_client,
        name="bad entrants",
        entrants=[
            {"builtin": "nobody"},
            {"builtin": "random", "bot_version": BotVersionFactory().pk},
        ],
    )
    assert response.status_code == 200  # the form again, with the errors
    html = response.content.decode()
    assert "unknown built-in bot" in html
    assert "give exactly one of a bot version or a built-in bot" in html
    assert not Season.objects.filter(name="bad entrants").exists()


def test_the_entrant_autocomplete_offers_only_versions_the_season_may_enter(
    staff_client: Client,
) -> None:
    """It offered the other game's versions and rejected ones, each labelled "name vN" alone,
    so two users' bots of one name looked the same."""
    alice, bob = UserFactory(username="alice"), UserFactory(username="bob")
    BotVersionFactory(bot__name="clever", bot__owner=alice, bot__game="brexit")
    BotVersionFactory(bot__name="clever", bot__owner=bob, bot__game="brexit")
    BotVersionFactory(bot__name="clever-br", bot__owner=bob, bot__game="brasilis")
    for status in (BotVersion.Status.PENDING, BotVersion.Status.REJECTED):
        BotVersionFactory(bot__name=f"clever-{status}", bot__game="brexit", status=status)
    BotVersionFactory(bot__name="clever-off", bot__game="brexit", bot__is_active=False)

    brexit = {r["text"] for r in entrant_choices(staff_client, "clev", "brexit")}
    assert brexit == {"clever v1 by alice", "clever v1 by bob"}
    brasilis = [r["text"] for r in entrant_choices(staff_client, "clev", "brasilis")]
    assert brasilis == ["clever-br v1 by bob"]
    # Found by owner too, as the label reads.
    assert [r["text"] for r in entrant_choices(staff_client, "alice", "brexit")] == [
        "clever v1 by alice"
    ]


def test_an_entrant_the_season_may_not_enter_is_refused_in_words(staff_client: Client) -> None:
    other_game = BotVersionFactory(
        bot__name="samba", bot__owner__username="carol", bot__game="brasilis"
    )
    rejected = BotVersionFactory(
        bot__name="broken", bot__owner__username="dave", status=BotVersion.Status.REJECTED
    )
    response = post_season_form(
        staff_client,
        name="wrong entrants",
        entrants=[{"bot_version": other_game.pk}, {"bot_version": rejected.pk}],
    )
    assert response.status_code == 200  # the form again, with the errors
    html = unescape(response.content.decode())
    assert "samba v1 by carol plays Bra$ilis, not Brexit: The Real Deal" in html
    assert "broken v1 by dave cannot enter: it is rejected" in html
    assert not Season.objects.filter(name="wrong entrants").exists()


def test_the_picker_sends_the_game_the_form_shows(staff_client: Client) -> None:
    """The widget asks the entrants' own autocomplete, through a script that adds the game."""
    html = staff_client.get(reverse("admin:tournaments_season_add")).content.decode()
    url = reverse("admin:tournaments_season_entrant_versions")
    assert f'data-ajax--url="{url}"' in html and 'class="entrant-autocomplete"' in html
    assert "site/entrant_autocomplete.js" in html
    assert "admin-autocomplete" not in html.split('class="entrant-autocomplete"')[0][-400:]


def test_the_seasons_page_has_a_button_for_each_move_its_state_allows(
    staff_client: Client,
) -> None:
    season = create_season_in_admin(
        staff_client,
        name="buttons",
        entrants=[{"builtin": "random"}, {"builtin": "greedy"}, {"builtin": "cautious"}],
    )
    page = reverse("admin:tournaments_season_change", args=[season.pk])

    def buttons() -> list[str]:
        html = staff_client.get(page).content.decode()
        return re.findall(
            r'<form method="post" action="[^"]*/move/(\w+)/" class="season-move">', html
        )

    def press(name: str) -> str:
        url = reverse("admin:tournaments_season_move", args=[season.pk, name])
        response = staff_client.post(url, follow=True)
        assert response.redirect_chain == [(page, 302)]
        return " ".join(str(m) for m in response.context["messages"])

    assert buttons() == ["open"]
    assert press("open") == "buttons: open"
    assert buttons() == ["start"]
    assert press("start") == "buttons: running"
    season.refresh_from_db()
    assert season.state == "running" and season.fixtures.exists()
    assert buttons() == ["pause", "finish"]
    # A move the state does not allow is refused in words, as the list's actions do.
    assert press("open") == "buttons: state: a running season cannot become open"
    move = reverse("admin:tournaments_season_move", args=[season.pk, "pause"])
    assert staff_client.get(move).status_code == 405
    assert (
        staff_client.post(
            reverse("admin:tournaments_season_move", args=[season.pk, "x"])
        ).status_code
        == 403
    )


@pytest.mark.parametrize(
    ("builtins", "refusal"),
    [
        ('["random", "greedy"]', None),
        (
            '["random", "grredy"]',
            "grredy: not a built-in bot of brexit; its built-in bots are random, greedy, search,"
            " cautious, bold, quick",
        ),
        ('"random"', 'a list of names, e.g. ["random", "greedy"]'),
    ],
)
def test_a_ladders_builtins_are_names_of_the_games_builtin_bots(
    staff_client: Client, builtins: str, refusal: str | None
) -> None:
    """As docs/ladders.md says to enter them; a misspelt name was left out without a word."""
    response = staff_client.post(
        reverse("admin:tournaments_ladder_add"),
        {
            "name": "brexit trio",
            "game": "brexit",
            "seats": "3",
            "options": "{}",
            "is_active": "on",
            "builtins": builtins,
            "duplicate_deals": "on",
            "games_per_day": "200",
            "window": "6",
            "tables_per_round": "",
        },
    )
    if refusal is None:
        assert response.status_code == 302, response.content.decode()[-2000:]
        ladder = Ladder.objects.get(name="brexit trio")
        assert (ladder.game, ladder.seats, ladder.builtins) == ("brexit", 3, ["random", "greedy"])
    else:
        assert response.status_code == 200
        assert refusal in unescape(response.content.decode())
        assert not Ladder.objects.filter(name="brexit trio").exists()
