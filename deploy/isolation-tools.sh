#!/usr/bin/env bash
# The tools tests/deploy/test_isolation.py checks the worker container's profiles with, from
# Debian's archive: apparmor_parser (apparmor) parses the AppArmor profile, runc starts the
# sandbox and a worker under the seccomp profile as the Docker engine would, and strace lists
# the system calls the worker makes (docs/deploy.md, "Container isolation"); and nginx, which
# tests/deploy/test_nginx.py runs deploy/nginx/backroom.conf with (no service of it is started
# or enabled).
# Does nothing when they are installed; as another user than root it only says what is missing
# (the tests skip).
set -euo pipefail
missing=()
command -v apparmor_parser >/dev/null 2>&1 || [ -x /usr/sbin/apparmor_parser ] || missing+=(apparmor)
command -v runc >/dev/null 2>&1 || missing+=(runc)
command -v strace >/dev/null 2>&1 || missing+=(strace)
[ -x /usr/sbin/nginx ] || missing+=(nginx)
if [ ${#missing[@]} -eq 0 ]; then exit 0; fi
if [ "$(id -u)" -ne 0 ]; then
  echo "isolation tools missing: ${missing[*]}; run 'apt-get install -y --no-install-recommends ${missing[*]}' as root (tests/deploy/test_isolation.py and test_nginx.py skip without them)" >&2
  exit 0
fi
apt-get update -qq
# The nginx package would start a system nginx on port 80 (and enable it at boot on a systemd
# host): the tests run their own, so no service is started or enabled.
policy=/usr/sbin/policy-rc.d
if [ ! -e "$policy" ]; then
  trap 'rm -f "$policy"' EXIT
  printf '#!/bin/sh\nexit 101\n' > "$policy"
  chmod +x "$policy"
fi
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
if command -v systemctl >/dev/null 2>&1; then
  systemctl disable --quiet nginx.service 2>/dev/null || true
fi
