"""A game's score as a person reads it: 9, not the 9.0 the database's float gives back."""

from __future__ import annotations

from django import template

register = template.Library()


def score_text(value: float | None) -> str:
    """Whole scores without a decimal point; a real fraction (a shared rank's split, say)
    keeps up to two decimals; no score yet is "-"."""
    if value is None:
        return "-"
    if float(value).is_integer():
        return str(int(value))
    return f"{value:.2f}".rstrip("0").rstrip(".")


@register.filter
def score(value: float | None) -> str:
    """``{{ seat.score|score }}``."""
    return score_text(value)
