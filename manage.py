#!/usr/bin/env python
"""Django's command-line utility for Backroom."""

import os
import sys

# `config` (platform/config/) imports from the installed distribution: `make install` installs this
# project in editable mode (see platform/README.md).


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.local")
    from django.core.management import execute_from_command_line

    execute_from_command_line(sys.argv)


if __name__ == "__main__":
    main()
