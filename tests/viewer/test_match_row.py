"""A match table's row (home, the match list, a ladder's page) is built by ``{% match_row %}``
(tournaments/site/templatetags/seats.py) instead of an included template, which cost a third of
the match list's CPU: the bytes are the template's, for every kind of seat and visitor."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import AnonymousUser
from django.template import Context, engines

from tests.factories import (
    BotVersionFactory,
    MatchFactory,
    SeatFactory,
    UserFactory,
    abort,
    finish,
    outcome_of,
    suspend,
)
from tournaments.competition.models import Ladder
from tournaments.site.templatetags.seats import match_row

pytestmark = pytest.mark.django_db

THE_TEMPLATE_IT_REPLACED = """{% load seats %}<tr>
  <td><a href="{% url 'site-match' m.pk %}">{{ m.get_game_display }}</a>{% with k=m|kind %} <span class="tag kind kind-{{ k }}">{% if k == "person" %}person's game{% elif k == "validation" %}smoke test{% else %}{{ k }}{% endif %}</span>{% endwith %}</td>
  <td class="seats">{% for s in m.seats.all %}{% with shown=s|seen_by:user %}{% if shown.bot_id %}<a href="{% url 'site-bot' shown.bot_id %}">{{ shown.label }}</a>{% else %}{{ shown.label }}{% endif %}{% endwith %}{% if s.rank %} <span class="rank">#{{ s.rank }}</span>{% endif %}{% if not forloop.last %} · {% endif %}{% endfor %}</td>
  <td><span class="status status-{{ m.status }}">{{ m.status }}</span></td>
  <td class="num">{{ m.last_version }}</td>
  <td><time datetime="{{ m.created_at|date:'c' }}">{{ m.created_at|date:"Y-m-d H:i" }}</time></td>
</tr>
"""
"""tournaments/templates/site/_match_row.html as it was, included once per row."""


@pytest.fixture
def matches() -> tuple[list[Any], dict[str, Any]]:
    owner, person = UserFactory(), UserFactory()
    public = BotVersionFactory(bot__name="<b>&\"pub'lic", bot__owner=owner)
    hidden = BotVersionFactory(bot__name="hidden-bot", bot__is_public=False, bot__owner=owner)
    ladder = Ladder.objects.create(name="l", game="brexit", seats=3, builtins=["random"])
    rated = MatchFactory(ladder=ladder, rated=True)
    SeatFactory(match=rated, number=0, bot_version=public)
    SeatFactory(match=rated, number=1, bot_version=hidden)
    SeatFactory(match=rated, number=2, bot_version=None, builtin="random")
    finish(rated, outcome_of([2, 1, 3]))
    smoke = MatchFactory(validation_of=hidden, created_by=owner)
    SeatFactory(match=smoke, number=0, bot_version=hidden)
    people = MatchFactory(created_by=person)
    SeatFactory(match=people, number=0, bot_version=None, player=person)
    SeatFactory(match=people, number=1, bot_version=None, builtin="random")
    suspend(people, seats=[0])
    empty = abort(MatchFactory(game="brasilis"))
    users = {"anonymous": AnonymousUser(), "owner": owner, "person": person}
    users["staff"] = UserFactory(is_staff=True)
    return [rated, smoke, people, empty], users


@pytest.mark.parametrize("who", ["anonymous", "owner", "person", "staff"])
def test_a_row_is_what_the_included_template_rendered(
    matches: tuple[list[Any], dict[str, Any]], who: str
) -> None:
    rows, users = matches
    user = users[who]
    reference = engines["django"].from_string(THE_TEMPLATE_IT_REPLACED)
    for match in rows:
        expected = reference.render({"m": match, "user": user})
        assert match_row(Context({"user": user}), match) == expected
    # Each kind of seat and visitor was met: a private bot hidden from all but its owner and
    # staff, a bot's name escaped, a person's seat, the tags of each kind.
    rendered = "".join(match_row(Context({"user": user}), m) for m in rows)
    assert ("hidden-bot" in rendered) == (who in ("owner", "staff"))
    assert "&lt;b&gt;&amp;&quot;pub&#x27;lic" in rendered and "<b>" not in rendered
    assert "person's game" in rendered and "smoke test" in rendered and "ladder" in rendered
