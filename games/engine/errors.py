"""Errors raised by rules engines. Their message is shown to the bot's author verbatim."""


class IllegalAction(ValueError):
    """An action that the rules do not allow now; nothing was changed."""


class BadOptions(ValueError):
    """Game options that are unknown or out of range."""
