"""``python -m backroom_cli``: the ``backroom`` command."""

from backroom_cli.main import main

raise SystemExit(main())
