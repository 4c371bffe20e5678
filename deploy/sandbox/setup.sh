#!/usr/bin/env bash
# Prepare this host to run uploaded bots in bubblewrap as a pool of dedicated uids.
# Idempotent and fast when already done: `make up`, `make test` and .ci/run call it.
# As root it installs what is missing and creates the uid pool; as any other user it changes
# nothing (bots then run under bubblewrap as that user) and only reports whether that works.
# Prints one line: what it did and the smoke-run result.
# `setup.sh --pool-only` (as root) creates the uid pool and nothing else: deploy/Dockerfile
# builds the pool into the image, where the smoke run cannot happen (it needs the container's
# security options, which a build does not have). BACKROOM_SANDBOX_FIRST_UID gives the pool
# fixed uids from there up (the image's), instead of the next free system uids.
set -euo pipefail

POOL_SIZE="${BACKROOM_SANDBOX_POOL:-16}"
FIRST_UID="${BACKROOM_SANDBOX_FIRST_UID:-}"
PREFIX="backroom-bot-"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
did=()

# The same check the worker makes at start (a real sandboxed start); prints its reason.
smoke_run() {
    local python="${BACKROOM_PYTHON:-$repo/.venv/bin/python}"
    [ -x "$python" ] || python=/usr/bin/python3
    (cd "$repo" && "$python" -c 'from games.sandbox.readiness import isolation_status
ok, reason = isolation_status()
print(reason)
raise SystemExit(0 if ok else 1)' 2>&1)
}

# One system user per concurrent bot; no home, no shell, no group but its own.
create_pool() {
    local created=0 name uid_args
    for ((i = 0; i < POOL_SIZE; i++)); do
        name="${PREFIX}${i}"
        if ! getent passwd "$name" >/dev/null; then
            uid_args=()
            [ -n "$FIRST_UID" ] && uid_args=(--uid "$((FIRST_UID + i))")
            useradd --system --user-group "${uid_args[@]}" --no-create-home \
                --home-dir /nonexistent --shell /usr/sbin/nologin "$name"
            created=$((created + 1))
        fi
    done
    echo "$created"
}

if [ "${1:-}" = "--pool-only" ]; then
    [ "$(id -u)" -eq 0 ] || { echo "sandbox setup: --pool-only needs root" >&2; exit 1; }
    echo "sandbox setup: created $(create_pool) bot users of $POOL_SIZE"
    exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
    # Not an error: the suite skips the sandbox tests where bots cannot be sandboxed as this user.
    if status="$(smoke_run)"; then
        echo "sandbox setup: not root, nothing installed; $status"
    else
        echo "sandbox setup: not root, nothing installed; bots cannot be sandboxed as" \
            "$(id -un) here (run deploy/sandbox/setup.sh as root): $status" >&2
    fi
    exit 0
fi

missing=()
command -v bwrap >/dev/null 2>&1 || missing+=(bubblewrap)
# libseccomp is loaded by the bot runner through ctypes, inside the sandbox.
# grep reads everything (no -q): an early exit would SIGPIPE ldconfig and, with pipefail, look like a miss.
ldconfig -p 2>/dev/null | grep 'libseccomp\.so\.2 ' >/dev/null || missing+=(libseccomp2)
# numpy, which bots may import (games/sandbox/packages.py), loads the C++ runtime.
ldconfig -p 2>/dev/null | grep 'libstdc++\.so\.6 ' >/dev/null || missing+=(libstdc++6)
[ -x /usr/bin/python3 ] || missing+=(python3)
if [ ${#missing[@]} -gt 0 ]; then
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >/dev/null
    apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
    did+=("installed ${missing[*]}")
fi

created="$(create_pool)"
[ "$created" -gt 0 ] && did+=("created $created bot users")

# Unprivileged user namespaces are what bwrap needs when started as a bot uid.
if [ -e /proc/sys/kernel/unprivileged_userns_clone ] &&
    [ "$(cat /proc/sys/kernel/unprivileged_userns_clone)" != "1" ]; then
    echo "sandbox setup: kernel.unprivileged_userns_clone=0; set it to 1 (sysctl) so bots can be sandboxed" >&2
    exit 1
fi
if [ "$(cat /proc/sys/user/max_user_namespaces 2>/dev/null || echo 1)" = "0" ]; then
    echo "sandbox setup: user.max_user_namespaces=0; raise it (sysctl) so bots can be sandboxed" >&2
    exit 1
fi

# Smoke run: a real sandboxed start as a pool uid.
if ! status="$(smoke_run)"; then
    echo "sandbox setup: smoke run FAILED: $status" >&2
    exit 1
fi
summary="ok"
[ ${#did[@]} -gt 0 ] && summary="$(IFS=', '; echo "${did[*]}")"
echo "sandbox setup: $summary; $status"
