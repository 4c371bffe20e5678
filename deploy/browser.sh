#!/usr/bin/env bash
# The browsers the end-to-end tests drive, Debian's, from apt (Playwright never downloads a
# browser of its own here): chromium-headless-shell, Chromium's build for automation, which most
# browser tests drive, and chromium, the full browser, which one drives too (the two come from
# one source package, at one version). Does nothing when both are installed.
set -euo pipefail
if [ -x /usr/bin/chromium ] && [ -x /usr/bin/chromium-headless-shell ]; then exit 0; fi
if [ "$(id -u)" -ne 0 ]; then
  echo "a browser is missing: run 'apt-get install -y chromium chromium-headless-shell' as root (the browser tests need both)" >&2
  # Locally the browser tests then skip; CI must run them.
  if [ -n "${CI:-}" ]; then exit 1; fi
  exit 0
fi
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-headless-shell >/dev/null
