"""The worker container is as isolated as a bare-metal worker (issue 21), under profiles written
for it (docs/deploy.md, "Container isolation"): no `unconfined` in deploy/compose.yml; a seccomp
allowlist of the system calls the worker, bubblewrap and the bots were seen to make, in groups
that each say why, none of the calls a container must never make; an AppArmor profile that
parses and keeps the host's sensitive files out of reach; a few capabilities; the bot uid pool
in the image. No Docker engine runs here: the seccomp profile is compiled with libseccomp
(under_seccomp.py) and, where runc is installed, handed to runc as the engine hands it
(in_runc.py); the sandbox and a real worker's match run under it, and strace shows that the
worker calls nothing outside it."""

from __future__ import annotations

import ctypes
import errno
import json
import os
import re
import shutil
import socket
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.deploy.test_files import DEPLOY, ROOT, compose
from tests.e2e.conftest import Worker, wait_until
from tests.factories import BotVersionFactory, MatchFactory, SeatFactory
from tournaments.play.models import BotVersion, Match
from tournaments.tasks import play_match, validate_bot_version

PROFILE = DEPLOY / "seccomp" / "worker.json"
APPARMOR = DEPLOY / "apparmor" / "backroom-worker"
UNDER_SECCOMP = ROOT / "tests" / "deploy" / "under_seccomp.py"
IN_RUNC = ROOT / "tests" / "deploy" / "in_runc.py"
BUBBLEWRAP = "bubblewrap"
"""The group of rules only bubblewrap needs: the sandbox cannot start without it."""

# What a container must never do, whatever it runs: load kernel code or BPF, read or trace
# other processes, reach the kernel's keyring, open files by handle (the host's, past the
# container's root), restart or reconfigure the machine, set its clock, or use the new mount
# API (bubblewrap uses mount(2)); and join another process's namespaces (bubblewrap makes its own).
FORBIDDEN = {
    "kexec_load", "kexec_file_load", "init_module", "finit_module", "delete_module",
    "bpf", "perf_event_open", "ptrace", "process_vm_readv", "process_vm_writev",
    "keyctl", "add_key", "request_key", "open_by_handle_at", "name_to_handle_at",
    "reboot", "swapon", "swapoff", "acct", "settimeofday", "clock_settime", "clock_adjtime",
    "adjtimex", "mount_setattr", "move_mount", "open_tree", "fsopen", "fsconfig", "fsmount",
    "fspick", "userfaultfd", "iopl", "ioperm", "setns", "chroot", "syslog", "quotactl",
    "lookup_dcookie", "uselib", "vhangup", "personality",
}  # fmt: skip
NAMESPACE_FLAGS = {
    "CLONE_NEWNS": 0x00020000,
    "CLONE_NEWCGROUP": 0x02000000,
    "CLONE_NEWUTS": 0x04000000,
    "CLONE_NEWIPC": 0x08000000,
    "CLONE_NEWUSER": 0x10000000,
    "CLONE_NEWPID": 0x20000000,
    "CLONE_NEWNET": 0x40000000,
}
# /proc/sys read-only, as Docker mounts it in every container (sh -c SCRIPT sh command...).
READ_ONLY_PROC_SYS = (
    'mount --bind /proc/sys /proc/sys && mount -o remount,bind,ro /proc/sys && exec "$@"'
)
SMOKE = (
    "from games.sandbox.readiness import isolation_status\n"
    "ok, reason = isolation_status()\n"
    "print(reason)\n"
    "raise SystemExit(0 if ok else 1)\n"
)


def worker() -> dict[str, Any]:
    service: dict[str, Any] = compose()["services"]["worker"]
    return service


def option(name: str) -> str:
    [value] = [o.split("=", 1)[1] for o in worker()["security_opt"] if o.startswith(f"{name}=")]
    return value


def profile() -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(PROFILE.read_text())
    return loaded


def group(rule: dict[str, Any]) -> str:
    return str(rule["comment"]).split(":", 1)[0]


def groups(seccomp: dict[str, Any]) -> dict[str, set[str]]:
    found: dict[str, set[str]] = {}
    for rule in seccomp["syscalls"]:
        found.setdefault(group(rule), set()).update(rule["names"])
    return found


def allowed(seccomp: dict[str, Any]) -> set[str]:
    return {n for r in seccomp["syscalls"] if r["action"] == "SCMP_ACT_ALLOW" for n in r["names"]}


def without_group(seccomp: dict[str, Any], name: str) -> dict[str, Any]:
    return {**seccomp, "syscalls": [r for r in seccomp["syscalls"] if group(r) != name]}


def without_call(seccomp: dict[str, Any], rule_group: str, call: str) -> dict[str, Any]:
    rules = []
    for rule in seccomp["syscalls"]:
        if group(rule) == rule_group and call in rule["names"]:
            rule = {**rule, "names": [n for n in rule["names"] if n != call]}
        if rule["names"]:
            rules.append(rule)
    return {**seccomp, "syscalls": rules}


def documented_groups() -> dict[str, set[str]]:
    doc = (ROOT / "docs" / "deploy.md").read_text()
    section = doc.split("### The worker's seccomp profile", 1)[1].split("\n#", 1)[0]
    rows = re.findall(r"^\| ([a-z ]+) \| (.+?) \| .+ \|$", section, re.M)
    found = {name: set(re.findall(r"`([a-z0-9_]+)`", calls)) for name, calls in rows}
    return {name: calls for name, calls in found.items() if calls}  # not the header


# --- the compose file -------------------------------------------------------


def test_no_service_runs_unconfined() -> None:
    for name, service in compose()["services"].items():
        for opt in service.get("security_opt", []):
            assert "unconfined" not in opt, f"{name}: {opt}"
            assert opt.split("=")[0] not in ("privileged", "systempaths"), f"{name}: {opt}"
        assert not service.get("privileged"), name
    assert "unconfined" not in (DEPLOY / "compose.yml").read_text()


def test_the_worker_runs_under_its_profiles_with_few_capabilities() -> None:
    spec = worker()
    # The profile path is the compose file's folder's (Compose reads it and sends its JSON).
    assert (DEPLOY / option("seccomp")).resolve() == PROFILE
    assert option("apparmor") == APPARMOR.name
    assert re.search(rf"^profile {option('apparmor')} ", APPARMOR.read_text(), re.M)
    assert "no-new-privileges:true" in spec["security_opt"]
    # Root in the container only to switch to the pool's uids, hand each its staged copy (the
    # copy's group: CHOWN) and signal them, as on bare metal.
    assert spec["user"] == "0:0"
    assert spec["cap_drop"] == ["ALL"]
    assert spec["cap_add"] == ["SETUID", "SETGID", "KILL", "CHOWN"]


# --- the seccomp profile, read ----------------------------------------------


def test_the_seccomp_profile_is_an_allowlist_of_explained_groups() -> None:
    seccomp = profile()
    # Nothing but the rules below: no architecture map or other profile's settings carried in.
    assert set(seccomp) == {"defaultAction", "defaultErrnoRet", "syscalls"}
    assert seccomp["defaultAction"] == "SCMP_ACT_ERRNO"
    assert seccomp["defaultErrnoRet"] == errno.EPERM
    for rule in seccomp["syscalls"]:
        assert set(rule) <= {"names", "action", "args", "errnoRet", "comment"}, rule
        # Every rule says, in a sentence, which part of the worker needs its calls and why.
        assert re.match(r"^[a-z ]+: \S.{60,}$", rule["comment"]), rule["names"]
        if rule["action"] == "SCMP_ACT_ERRNO":  # a refusal the C library must take as "absent"
            assert rule["names"] == ["clone3"] and rule["errnoRet"] == errno.ENOSYS
        else:
            assert rule["action"] == "SCMP_ACT_ALLOW", rule
    names = [n for r in seccomp["syscalls"] for n in r["names"]]
    # clone twice: without namespace flags for everyone, with them for bubblewrap.
    assert sorted(n for n in set(names) if names.count(n) > 1) == ["clone"]
    assert documented_groups() == groups(seccomp)


def test_every_call_of_the_profile_is_a_system_call_of_the_worker_s_architectures() -> None:
    """A misspelt name would be dropped silently by the engine (runc skips unknown names)."""
    lib = ctypes.CDLL("libseccomp.so.2")
    lib.seccomp_syscall_resolve_name_arch.argtypes = [ctypes.c_uint32, ctypes.c_char_p]
    x86_64 = 0xC000003E  # AUDIT_ARCH_X86_64, the image's platform
    for name in {n for r in profile()["syscalls"] for n in r["names"]}:
        assert lib.seccomp_syscall_resolve_name_arch(x86_64, name.encode()) >= 0, name


def test_no_call_a_container_must_never_make_is_allowed() -> None:
    seccomp = profile()
    assert not FORBIDDEN & allowed(seccomp)
    # Namespaces only through bubblewrap's group: everyone else's clone has none of their flags.
    [everyone] = [
        r for r in seccomp["syscalls"] if r["names"] == ["clone"] and group(r) != BUBBLEWRAP
    ]
    mask = sum(NAMESPACE_FLAGS.values())
    assert everyone["args"] == [
        {"index": 0, "value": mask, "valueTwo": 0, "op": "SCMP_CMP_MASKED_EQ"}
    ]
    assert {"clone", "unshare", "mount", "pivot_root"} <= groups(seccomp)[BUBBLEWRAP]


# --- the seccomp profile, run -------------------------------------------------


def needs_root_and_a_sandbox() -> None:
    if os.geteuid() != 0 or not shutil.which("setpriv") or not shutil.which("unshare"):
        pytest.skip("needs root, setpriv(1) and unshare(1) to start as the worker container")
    from games.sandbox.readiness import isolation_status

    ok, reason = isolation_status()
    if not ok:
        pytest.skip(f"bots cannot be sandboxed on this host at all: {reason}")


def caps() -> list[str]:
    return [f"CAP_{c}" for c in worker()["cap_add"]]


def as_the_container() -> list[str]:
    """The prefix that starts a command as the compose file starts the worker, without an
    engine and before any seccomp profile: /proc/sys read-only, root with the compose file's
    capabilities only."""
    bounding = ",".join(["-all", *[f"+{c[4:].lower()}" for c in caps()]])
    return [
        "unshare", "--mount", "--propagation", "private", "sh", "-c", READ_ONLY_PROC_SYS, "sh",
        "setpriv", f"--bounding-set={bounding}", "--inh-caps=-all",
    ]  # fmt: skip


def confined(path: Path) -> list[str]:
    """As the container, under the seccomp profile at ``path``, loaded with no_new_privs
    (libseccomp's default, the compose file's no-new-privileges)."""
    return [
        *as_the_container(),
        sys.executable,
        str(UNDER_SECCOMP),
        str(path),
        ",".join(caps()),
        "--",
    ]


def in_runc(path: Path, bundle: Path) -> list[str]:
    """The prefix that starts a command in a runc container made as the compose file's worker."""
    return [sys.executable, str(IN_RUNC), str(bundle), str(path), ",".join(caps()), "--"]


def written(seccomp: dict[str, Any], tmp_path: Path) -> Path:
    path = tmp_path / f"profile-{len(list(tmp_path.glob('profile-*')))}.json"
    path.write_text(json.dumps(seccomp))
    return path


def run_smoke(prefix: list[str]) -> tuple[int, str]:
    """The sandbox's own start check (a bot plays a decision), under ``prefix``."""
    done = subprocess.run(
        [*prefix, sys.executable, "-c", SMOKE],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    return done.returncode, done.stdout + done.stderr


def test_the_sandbox_starts_under_the_profile_and_not_without_bubblewrap_s_calls(
    tmp_path: Path,
) -> None:
    """A bot plays a decision in its sandbox as the worker container would start it; without
    the bubblewrap group, or any one call of it, bubblewrap cannot build the sandbox."""
    needs_root_and_a_sandbox()
    seccomp = profile()
    status, output = run_smoke(confined(written(seccomp, tmp_path)))
    assert status == 0 and "bubblewrap sandbox ready" in output, output
    status, output = run_smoke(confined(written(without_group(seccomp, BUBBLEWRAP), tmp_path)))
    assert status != 0, "the sandbox starts without the bubblewrap group: not needed"
    assert "Operation not permitted" in output or "No permissions" in output, output
    for call in sorted(groups(seccomp)[BUBBLEWRAP]):
        path = written(without_call(seccomp, BUBBLEWRAP, call), tmp_path)
        status, output = run_smoke(confined(path))
        assert status != 0, f"the sandbox starts without {call}: not needed"


def needs_runc() -> None:
    if shutil.which("runc") is None:
        if os.environ.get("CI") and os.geteuid() == 0:
            pytest.fail("runc is missing: make isolation-tools installs it (CI must run this)")
        pytest.skip("runc is not installed (make isolation-tools, as root)")


def test_the_sandbox_starts_in_a_runc_container_under_the_profile(tmp_path: Path) -> None:
    """The engine's own path: runc loads the profile (and runs its own code under it) before
    it starts the command, in a container with the worker's capabilities and masked paths."""
    needs_root_and_a_sandbox()
    needs_runc()
    seccomp = profile()
    status, output = run_smoke(in_runc(written(seccomp, tmp_path), tmp_path / "ok"))
    assert status == 0 and "bubblewrap sandbox ready" in output, output
    bare = written(without_group(seccomp, BUBBLEWRAP), tmp_path)
    status, output = run_smoke(in_runc(bare, tmp_path / "bare"))
    assert status != 0, output


# A Python bot using a fair share of the standard library and some memory, as uploads do.
STDLIB_BOT = b"""
import collections, heapq, json, math, random, re, time

def act(observation, legal):
    rng = random.Random(time.monotonic_ns())
    scratch = [rng.random() for _ in range(200_000)]  # megabytes, allocated and given back
    heapq.heapify(scratch)
    words = json.dumps(collections.Counter(re.findall(r"\\w+", repr(observation))))
    assert math.isfinite(scratch[0]) and words
    if legal["actions"]:
        return rng.choice(legal["actions"])
    if "bid" in (legal["space"] or {}):
        return {"bid": legal["space"]["bid"]["min"]}
    return {"place": []}
"""


def health_check(worker_process: Worker) -> str:
    """The compose file's health check command, for this worker's name."""
    test = worker()["healthcheck"]["test"]
    assert test[0] == "CMD-SHELL" and "worker@$$HOSTNAME" in test[1]
    name = worker_process.name.replace("%h", socket.gethostname())
    return str(test[1]).replace("worker@$$HOSTNAME", name)


def work_as_the_worker_container(
    start_worker: Callable[..., Worker], prefix: Callable[[str], list[str]]
) -> Worker:
    """What the worker container does: start (the sandbox's check), validate an upload and
    play a match with two uploaded bots on a prefork pool of two, answer its health check,
    stop warmly. ``prefix(name)`` starts each process (``worker``, ``health``) under test."""
    pending = BotVersionFactory(
        bot__game="brexit", upload=STDLIB_BOT, status=BotVersion.Status.PENDING
    )
    match = MatchFactory(game="brexit")
    uploads = [BotVersionFactory(bot__game="brexit", upload=STDLIB_BOT), BotVersionFactory()]
    for number, version in enumerate(uploads):
        SeatFactory(match=match, number=number, bot_version=version)
    SeatFactory(match=match, number=2, bot_version=None, builtin="random")

    running = start_worker(under=prefix("worker"), pool=("--concurrency", "2"))
    validate_bot_version.delay(pending.id)
    play_match.delay(str(match.id))
    wait_until(
        lambda: Match.objects.get(id=match.id).status == Match.Status.FINISHED,
        180,
        "the match",
        running,
    )
    wait_until(
        lambda: BotVersion.objects.get(id=pending.id).status != BotVersion.Status.PENDING,
        180,
        "the validation",
        running,
    )
    venv = str(Path(sys.executable).parent)
    health = subprocess.run(
        [*prefix("health"), "/bin/sh", "-c", health_check(running)],
        cwd=ROOT,
        env={**os.environ, "PATH": f"{venv}:{os.environ['PATH']}"},
        capture_output=True,
        text=True,
        timeout=120,
    )
    running.stop()

    assert "sandbox: bubblewrap sandbox ready" in running.log, running.log[-3000:]
    pending.refresh_from_db()
    assert pending.status == BotVersion.Status.READY, pending.validation_error
    for seat in Match.objects.get(id=match.id).seats.filter(number__lt=2):
        assert set(seat.verdicts) == {"ok"}, seat.verdicts  # every decision made, none faulted
    assert health.returncode == 0 and "pong" in health.stdout, health.stdout + health.stderr
    assert running.process.returncode == 0, running.log[-3000:]  # the warm shutdown finished
    return running


@pytest.fixture
def e2e_as_root() -> None:
    """Before the other fixtures: skip where the worker container cannot be imitated."""
    needs_root_and_a_sandbox()


@pytest.mark.e2e
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("engine", ["libseccomp", "runc"])
def test_a_worker_under_the_profile_validates_an_upload_and_plays_a_match(
    e2e_as_root: None, start_worker: Callable[..., Worker], tmp_path: Path, engine: str
) -> None:
    if engine == "runc":
        needs_runc()
    path = written(profile(), tmp_path)

    def prefix(name: str) -> list[str]:
        return confined(path) if engine == "libseccomp" else in_runc(path, tmp_path / name)

    work_as_the_worker_container(start_worker, prefix)


def strace_calls(summary: Path) -> set[str]:
    """The system calls of an ``strace -c`` summary (those that return: not exit_group)."""
    lines = summary.read_text().splitlines()
    return {
        line.split()[-1]
        for line in lines[2:]
        if line.strip() and not line.startswith("-") and line.split()[-1] != "total"
    }


@pytest.mark.e2e
@pytest.mark.django_db(transaction=True)
def test_the_worker_container_calls_nothing_the_profile_leaves_out(
    e2e_as_root: None, start_worker: Callable[..., Worker], tmp_path: Path
) -> None:
    """How the allowlist was found, run again: the same work, traced with ``strace -f -c`` and
    no seccomp profile at all, makes only calls the profile allows (docs/deploy.md)."""
    if shutil.which("strace") is None:
        if os.environ.get("CI") and os.geteuid() == 0:
            pytest.fail("strace is missing: make isolation-tools installs it (CI must run this)")
        pytest.skip("strace is not installed (make isolation-tools, as root)")

    def traced(name: str) -> list[str]:
        return [*as_the_container(), "strace", "-f", "-c", "-o", str(tmp_path / f"{name}.strace")]

    work_as_the_worker_container(start_worker, traced)
    seen = strace_calls(tmp_path / "worker.strace") | strace_calls(tmp_path / "health.strace")
    assert {"clone", "unshare", "mount", "pivot_root", "setreuid", "execve"} <= seen
    # Allowed, or answered on purpose (clone3: ENOSYS, then the C library calls clone).
    named = {n for r in profile()["syscalls"] for n in r["names"]}
    assert not seen - named, "called but not in the profile"


# --- the AppArmor profile ----------------------------------------------------


def apparmor_rules() -> list[str]:
    """The profile's rules, one per item, without comments."""
    text = re.sub(r"#.*", "", APPARMOR.read_text())
    body = text.split("{", 1)[1].rsplit("}", 1)[0]
    rules = re.split(r",(?![^()]*\))", body)  # commas inside a (list) do not end a rule
    return [" ".join(rule.split()) for rule in rules if rule.strip()]


def test_the_apparmor_profile_parses() -> None:
    parser = shutil.which("apparmor_parser")
    if parser is None:
        if os.environ.get("CI") and os.geteuid() == 0:
            pytest.fail("apparmor_parser is missing: make isolation-tools installs it")
        pytest.skip("apparmor_parser is not installed (make isolation-tools, as root)")
    done = subprocess.run(
        [parser, "--skip-kernel-load", "--skip-cache", str(APPARMOR)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr


def test_the_apparmor_profile_keeps_the_host_out_of_reach() -> None:
    rules = apparmor_rules()
    text = APPARMOR.read_text()
    assert "#include" not in text and "unconfined)" not in text and "complain" not in text
    # Capabilities named one by one (no bare `capability,`): the container's own four, and
    # the four the kernel grants bubblewrap in the user namespaces it creates, nowhere else.
    granted = {c for r in rules if r.startswith("capability ") for c in r.split()[1:]}
    assert "capability" not in rules
    own = {c.lower() for c in worker()["cap_add"]}
    assert granted == own | {"sys_admin", "net_admin", "setpcap", "sys_ptrace"}
    for denied in (
        "deny /proc/sysrq-trigger rwklx",
        "deny /proc/kcore rwklx",
        "deny /sys/firmware/** rwklx",
        "deny /sys/kernel/security/** rwklx",
        "deny /proc/sys/** w",
        "deny /proc/* w",
    ):
        assert denied in rules, denied
    # The sandbox's mounts, pivot_root and umount; never a file system that shows the kernel.
    assert {"mount", "umount", "pivot_root"} <= set(rules)
    [never] = [r for r in rules if r.startswith("deny mount fstype in (")]
    assert {"proc", "sysfs", "securityfs", "debugfs"} <= set(re.findall(r"\w+", never)[4:])
    assert {"network inet stream", "network inet6 stream", "network unix"} <= set(rules)
    assert "signal (send, receive) peer=backroom-worker" in rules
    assert "ptrace (read, readby) peer=backroom-worker" in rules


# --- the image ----------------------------------------------------------------


def test_the_image_holds_the_bot_uid_pool_and_keeps_uploads_from_it() -> None:
    text = (DEPLOY / "Dockerfile").read_text().replace("\\\n", " ")
    runtime = text.split(" AS runtime", 1)[1]
    assert "deploy/sandbox/setup.sh --pool-only" in runtime
    assert "BACKROOM_SANDBOX_FIRST_UID=" in runtime
    assert "install -d -m 0700 -o root -g root var/media" in runtime
    script = (DEPLOY / "sandbox" / "setup.sh").read_text()
    assert '"${1:-}" = "--pool-only"' in script
