"""Bra$ilis: politicians dispute the authorship of news with Power cards (rulebook + RULINGS section 3)."""
