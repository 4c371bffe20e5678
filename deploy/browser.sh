#!/usr/bin/env bash
# The browser the viewer's end-to-end tests drive: Debian's chromium, from apt (Playwright
# never downloads a browser of its own here). Does nothing when it is already installed.
set -euo pipefail
if [ -x /usr/bin/chromium ]; then exit 0; fi
if [ "$(id -u)" -ne 0 ]; then
  echo "chromium is missing: run 'apt-get install -y chromium' as root (the browser tests need it)" >&2
  # Locally the browser tests then skip; CI must run them.
  if [ -n "${CI:-}" ]; then exit 1; fi
  exit 0
fi
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
