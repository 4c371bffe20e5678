"""Staff run a season from the admin: the test client posts the admin's own forms and actions."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from tests.factories import BotVersionFactory, UserFactory
from tournaments.competition.models import Fixture, Season

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


@pytest.fixture
def staff_client(client: Client) -> Client:
    client.force_login(UserFactory(is_staff=True, is_superuser=True))  # type: ignore[arg-type]
    return client


def test_a_season_is_created_with_entrants_and_started_from_the_admin(staff_client: Client) -> None:
    version = BotVersionFactory(bot__name="clever")
    found = staff_client.get(
        reverse("admin:autocomplete"),
        {
            "term": "clev",
            "app_label": "tournaments",
            "model_name": "seasonentrant",
            "field_name": "bot_version",
        },
    )
    assert [r["id"] for r in found.json()["results"]] == [str(version.pk)]
    season = create_season_in_admin(
        staff_client,
        name="winter",
        entrants=[{"builtin": "random"}, {"builtin": "greedy"}, {"bot_version": version.pk}],
    )
    assert season.state == "draft" and season.entrants.count() == 3
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
