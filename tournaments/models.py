"""Django's models module of the app: it only imports every context's models so that Django
registers them (an app's models are those ``<app>.models`` defines or imports).

Each model lives with its context (issue 22): play (bots, versions, matches, seats, logs),
competition (ladders, seasons), rating (ratings and their history); they keep the app label
"tournaments" because their modules are inside the app's package. Import them from there, never
from here. ``game_choices`` is named here because migration 0015 refers to it by this path.
"""

from tournaments.competition import models as competition  # noqa: F401
from tournaments.play import models as play  # noqa: F401
from tournaments.play.models import game_choices  # noqa: F401  (migration 0015)
from tournaments.rating import models as rating  # noqa: F401
