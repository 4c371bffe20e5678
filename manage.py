#!/usr/bin/env python
"""Django's command-line utility for Backroom."""

import os
import sys
from pathlib import Path

# platform/ is a folder, not a package (see platform/README.md): put it on the path here.
sys.path.insert(0, str(Path(__file__).resolve().parent / "platform"))


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.local")
    from django.core.management import execute_from_command_line

    execute_from_command_line(sys.argv)


if __name__ == "__main__":
    main()
