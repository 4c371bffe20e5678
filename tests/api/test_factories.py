"""The shared factories make valid rows: a usable password, numbered versions, seats of the match's game."""

import pytest
from django.contrib.auth import get_user_model

from tests.factories import (
    BotLogFactory,
    BotVersionFactory,
    MatchFactory,
    SeatFactory,
    UserFactory,
)


@pytest.mark.django_db
def test_factories_build_valid_linked_rows():
    u = UserFactory()
    assert u.check_password("pass-word-123")
    assert get_user_model().objects.get(pk=u.pk).check_password("pass-word-123")
    v = BotVersionFactory()
    v2 = BotVersionFactory(bot=v.bot)
    assert v2.number == 2
    m = MatchFactory(game="brasilis")
    s = SeatFactory(match=m, number=0)
    assert s.bot_version.bot.game == "brasilis"
    s2 = SeatFactory(match=m, number=1, bot_version=None, builtin="random")
    assert s2.label == "builtin:random"
    BotLogFactory(match=m)


@pytest.mark.django_db
@pytest.mark.parametrize("game", ["brexit", "brasilis"])
def test_the_default_bot_is_really_ready(game):
    """The factory marks its version ready: its source must finish a sandboxed smoke match."""
    import os

    from games.sandbox import isolation_status
    from tournaments.play.models import BotVersion
    from tournaments.play.validation import smoke_error

    ok, why = isolation_status()
    if not ok and os.geteuid() != 0:
        pytest.skip(f"sandbox unavailable: {why}")
    version = BotVersion.objects.get(pk=BotVersionFactory(bot__game=game).pk)
    assert version.status == BotVersion.Status.READY
    assert smoke_error(version) == ""
