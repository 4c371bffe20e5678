"""Bra$ilis: politicians dispute the authorship of news with Power cards (the rulebook and the rulings in docs/games/brasilis.md)."""
