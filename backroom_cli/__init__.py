"""The ``backroom`` command for bot authors (docs/cli.md).

Locally, with no database or broker: ``play`` and ``simulate`` (``games.sandbox.local``, the
code ``manage.py play`` and ``simulate`` run). Against a server, through its REST API: ``login``,
``upload``, ``challenge``, ``watch``, ``logs``, ``errors`` and ``download``. Only the standard
library and the project's own runtime dependencies: no Django, no HTTP package.
"""
