"""High Card: the smallest game with hidden hands and a random draw, written for the tests.

It proves that a game is one package: everything the platform needs of it is here
(rules, built-in bots, view, board template, rules doc), found through the registry, and
one line of the test settings registers it. Nothing outside this folder names it.
The rules are in rules.md.
"""
