"""What people see of a Brexit match: its board, its sentences, a person's controls.

Pure functions over observations and events as a viewer sees them (games/engine/view.py);
the registry finds ``VIEW`` here, and the board's template in games/brexit/templates/.
"""

from games.brexit.view.board import board
from games.brexit.view.cards import glossary
from games.brexit.view.controls import controls
from games.brexit.view.sentences import BrexitNarrator, seat_labels
from games.engine.view import GameView

VIEW = GameView(
    seat_labels=seat_labels,
    board=board,
    narrator=BrexitNarrator,
    controls=controls,
    glossary=glossary,
)
