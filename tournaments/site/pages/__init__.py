"""The public site: server-rendered pages (home, matches, the replay viewer, bots).

Their templates live in tournaments/templates/site/, their styles and scripts in
tournaments/static/site/ (the viewer's script, viewer.js, in replays/static/replays/, and each
game's board template and styles in the game's own package, found through the registry).
"""
