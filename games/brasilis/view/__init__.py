"""What people see of a Bra$ilis match: its board, its sentences, a person's controls.

Pure functions over observations and events as a viewer sees them (games/engine/view.py);
the registry finds ``VIEW`` here, and the board's template in games/brasilis/templates/.
"""

from games.brasilis.view.board import board
from games.brasilis.view.cards import glossary
from games.brasilis.view.controls import controls
from games.brasilis.view.sentences import BrasilisNarrator, seat_labels
from games.engine.view import GameView

VIEW = GameView(
    seat_labels=seat_labels,
    board=board,
    narrator=BrasilisNarrator,
    controls=controls,
    glossary=glossary,
)
