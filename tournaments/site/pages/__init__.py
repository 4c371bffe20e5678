"""The public site: server-rendered pages (home, matches, the replay viewer, bots).

Templates and static files live in ``replays/`` (the viewer's look); these views
live here because they read matches and bots, which ``replays/`` must not import.
"""
