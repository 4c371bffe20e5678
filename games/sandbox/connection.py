"""One running bot process: JSON lines in and out, a deadline per exchange, capped stderr.

Nothing a bot does makes these methods raise: every misbehaviour comes back
as an :class:`Exchange` with a fault verdict. Every text of the bot's in an Exchange (its
stderr, the message of its error) is storable (games.engine.storable) from here on. The process is killed (its whole
process group; bubblewrap's pid namespace takes everything inside with it) on
timeout, on an oversized reply and on close.

Time is charged as the larger of the wall-clock time of an exchange and the CPU the bot's
whole process tree (every thread) used since its previous reply: a bot whose threads compute
between its decisions pays for it at its next one, and one whose CPU outruns its time is
stopped with a ``timeout`` verdict. Each bot runs capped at ``Limits.cpu_cores`` where the host
allows it (cpu.py).
"""

from __future__ import annotations

import contextlib
import json
import os
import selectors
import signal
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from games.engine.storable import storable
from games.engine.types import JSON
from games.sandbox import cpu, isolation, packages
from games.sandbox.limits import Limits
from games.sandbox.protocol import encode
from games.sandbox.verdicts import Verdict

_CHUNK = 65536
CPU_POLL_SECONDS = 0.05
"""How often the CPU of a bot being waited for is read (one file with a cgroup, else /proc)."""


@dataclass
class Exchange:
    """The reply to one message, or the fault instead of it."""

    reply: JSON | None
    fault: Verdict | None
    detail: str
    stderr: str
    elapsed: float


class BotConnection:
    """The sandboxed process of one seat's bot, from start to close."""

    def __init__(self, bot_dir: Path, limits: Limits, *, mode: str) -> None:
        """``mode`` is bwrap, unsafe-dev or bare: readiness.require_isolation() chooses it."""
        self.bot_dir = Path(bot_dir)
        self.limits = limits
        self.mode = mode
        self.proc: subprocess.Popen[bytes] | None = None
        self._lease: isolation.UidLease | None = None
        self._staged: Path | None = None
        self._out = bytearray()
        self._err = bytearray()
        self._err_dropped = 0
        self._err_total = 0
        self._exit_detail = ""
        self._cage: cpu.Cage | None = None
        self._cpu_mark = 0.0
        """The tree's CPU at the end of the previous exchange: what it uses after is charged."""

    # --- lifecycle -------------------------------------------------------

    @property
    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def _spawn(self) -> None:
        self._staged = isolation.stage(self.bot_dir)
        kwargs: dict[str, Any] = {}
        env: dict[str, str] = {}  # bubblewrap sets the bot's own (--clearenv, --setenv)
        if self.mode == isolation.BWRAP:
            self._lease = isolation.lease_uid()
            argv = isolation.bwrap_command(self._staged, self.limits)
            if os.geteuid() == 0:  # the bot runs as the pool uid: its group may read the copy
                isolation.admit(self._staged, self._lease.gid)
                kwargs = {"user": self._lease.uid, "group": self._lease.gid, "extra_groups": []}
        else:
            packages.link(self._staged / isolation.PACKAGE_LINKS)
            env = packages.environment()
            if self.mode == isolation.UNSAFE_DEV:
                argv = isolation.unsafe_command(self._staged, self.limits)
            else:  # "bare": only the benchmark's baseline uses it
                argv = isolation.bare_command(self._staged)
        where = cpu.plan()
        if where.capped and self.mode != "bare":
            self._cage = cpu.Cage(where, self.limits.cpu_cores)
            kwargs["preexec_fn"] = self._cage.enter
        self.proc = subprocess.Popen(  # noqa: S603 (argv built by isolation.py, never a shell)
            argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
            cwd=str(self._staged),
            close_fds=True,
            process_group=0,
            **kwargs,
        )
        if self._cage is not None:
            self._cage.started()
        for pipe in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            assert pipe is not None
            os.set_blocking(pipe.fileno(), False)

    def start(self, start_msg: JSON) -> Exchange:
        """Launch the process, send ``start`` and wait for ``ready`` (limits.start_seconds)."""
        began = time.monotonic()
        try:
            self._spawn()
        except isolation.SandboxUnavailable:
            self.close()  # e.g. every pool uid busy: the host's problem, not the bot's
            raise
        except (OSError, subprocess.SubprocessError) as exc:  # the platform's fault, reported
            self.close()  # as this start's failure (SubprocessError: a cage could not be entered)
            return Exchange(None, Verdict.CRASH, f"could not start the bot: {exc}", "", 0.0)
        got = self._exchange(start_msg, None, self.limits.start_seconds, began)
        if got.fault is None and (got.reply or {}).get("type") != "ready":
            got = self._error_reply(got)
        if got.fault is not None:
            self.close()
        return got

    def finish(self, end_msg: JSON, grace: float) -> str:
        """Send ``end``, give the bot ``grace`` seconds to exit by itself, stop it.

        Returns what it wrote to stderr meanwhile (e.g. ``print`` in its ``end()``), capped.
        """
        proc = self.proc
        if proc is not None and proc.stderr is not None and self.alive:
            self.send(end_msg)
            with contextlib.suppress(OSError):
                assert proc.stdin is not None
                proc.stdin.close()  # the runner's loop ends at end of input
            deadline = time.monotonic() + grace
            with selectors.DefaultSelector() as sel:
                sel.register(proc.stderr.fileno(), selectors.EVENT_READ)
                # Until the bot closes stderr (it exits) or the grace is over.
                with contextlib.suppress(OSError):
                    while (left := deadline - time.monotonic()) > 0:
                        if sel.select(left) and self._read_stderr() < 0:
                            break
        self.close()
        return self._take_stderr()

    def close(self, grace: float = 0.0) -> None:
        """Stop the process (after ``grace`` seconds to exit by itself) and clean up."""
        proc = self.proc
        if proc is not None:
            if grace > 0 and proc.poll() is None:
                try:
                    assert proc.stdin is not None
                    proc.stdin.close()
                    proc.wait(grace)
                except (OSError, subprocess.TimeoutExpired):
                    pass
            self._kill()
            for pipe in (proc.stdin, proc.stdout, proc.stderr):
                if pipe is not None:
                    with contextlib.suppress(OSError):
                        pipe.close()
        if self._lease is not None:
            self._lease.release()
            self._lease = None
        if self._staged is not None:
            isolation.unstage(self._staged)
            self._staged = None
        if self._cage is not None:
            self._cage.close()
            self._cage = None

    def _kill(self) -> None:
        proc = self.proc
        if proc is None:
            return
        if proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
        if self._cage is not None:
            self._cage.kill()  # all it holds, whatever left the process group
        with contextlib.suppress(subprocess.TimeoutExpired):  # SIGKILL cannot be refused
            proc.wait(5)

    def caged(self) -> bool:
        """Whether the bot's process is inside its CPU cage (readiness's smoke run asks)."""
        if self.proc is None or self._cage is None:
            return False
        pids = self._cage.pids()
        return self.proc.pid in pids

    def cpu_seconds(self) -> float:
        """CPU used so far by the bot's whole process tree, every thread."""
        if self.proc is None:
            return 0.0
        if self._cage is not None:
            with contextlib.suppress(OSError, ValueError):
                used = self._cage.cpu_seconds()
                if used is not None:
                    return used
        return cpu.tree_cpu_seconds(self.proc.pid)

    # --- exchanges -------------------------------------------------------

    def send(self, msg: JSON, timeout: float = 0.5) -> None:
        """Send a message that needs no reply (``end``); best effort."""
        if self.alive:
            self._exchange(msg, None, timeout, time.monotonic(), want_reply=False)

    def ask(self, msg: JSON, timeout: float) -> Exchange:
        """Send ``msg`` and wait up to ``timeout`` seconds for the reply with its ``id``."""
        began = time.monotonic()
        if not self.alive:
            return Exchange(None, Verdict.CRASH, self._dead_detail(), self._take_stderr(), 0.0)
        got = self._exchange(msg, msg.get("id"), timeout, began)
        if got.fault is None and (got.reply or {}).get("type") != "action":
            got = self._error_reply(got)
        return got

    def _error_reply(self, got: Exchange) -> Exchange:
        """A failure the bot kit reported ({"type": "error", ...}), or an unexpected message."""
        reply = got.reply or {}
        if reply.get("type") == "error":
            kind = reply.get("error")
            verdict = {"memory": Verdict.MEMORY, "bad_output": Verdict.BAD_OUTPUT}.get(
                str(kind), Verdict.CRASH
            )
            message = storable(str(reply.get("message", "")) or str(kind))[-2000:]
            return Exchange(None, verdict, message, got.stderr, got.elapsed)
        text = json.dumps(reply)[:200]
        return Exchange(
            None, Verdict.BAD_OUTPUT, f"unexpected message: {text}", got.stderr, got.elapsed
        )

    def _exchange(
        self, msg: JSON, msg_id: Any, timeout: float, began: float, *, want_reply: bool = True
    ) -> Exchange:
        proc = self.proc
        assert proc is not None and proc.stdin and proc.stdout and proc.stderr
        self._out.clear()  # anything unsolicited before this message is dropped
        pending = memoryview(encode(msg))
        deadline = began + timeout
        sel = selectors.DefaultSelector()
        out_fd, err_fd, in_fd = proc.stdout.fileno(), proc.stderr.fileno(), proc.stdin.fileno()
        sel.register(out_fd, selectors.EVENT_READ)
        sel.register(err_fd, selectors.EVENT_READ)
        sel.register(in_fd, selectors.EVENT_WRITE)
        writing, out_open = True, True
        # Not on the bench's bare baseline; else read when the reply comes, and every poll
        # interval while the bot thinks (a fast reply costs one read).
        watch = want_reply and self.mode != "bare"
        next_check = began + CPU_POLL_SECONDS

        def done(
            reply: JSON | None, fault: Verdict | None, detail: str, spent: float = 0.0
        ) -> Exchange:
            sel.close()
            if watch and fault is None:
                spent = self._spent()
                self._cpu_mark += spent
                if spent > timeout:  # its threads used more than the time it had
                    self._kill()
                    reply, fault, detail = None, Verdict.TIMEOUT, self._cpu_detail(spent, timeout)
            self._drain_stderr()
            # A message without a reply (``end``) has no log of its own: what the bot printed
            # meanwhile (its end()) stays buffered for finish(), which returns it.
            stderr = self._take_stderr() if want_reply else ""
            return Exchange(reply, fault, detail, stderr, max(time.monotonic() - began, spent))

        try:
            while True:
                if not want_reply and not writing:
                    return done(None, None, "")
                now = time.monotonic()
                left = deadline - now
                if left <= 0:
                    self._kill()
                    return done(None, Verdict.TIMEOUT, f"no reply within {timeout:.2f} s")
                if watch and now >= next_check:
                    spent = self._spent()
                    if spent > timeout:
                        self._kill()
                        return done(None, Verdict.TIMEOUT, self._cpu_detail(spent, timeout), spent)
                    next_check = now + CPU_POLL_SECONDS
                wait = min(left, next_check - now) if watch else left
                for key, _ in sel.select(wait):
                    fd = key.fd
                    if fd == in_fd:
                        try:
                            pending = pending[os.write(in_fd, pending) :]
                        except BrokenPipeError:
                            pending = pending[:0]
                        except BlockingIOError:
                            continue
                        if not pending:
                            sel.unregister(in_fd)
                            writing = False
                    elif fd == err_fd:
                        if self._read_stderr() < 0:
                            sel.unregister(err_fd)
                    else:
                        chunk = self._read(out_fd)
                        if chunk is None:
                            continue
                        if not chunk:
                            sel.unregister(out_fd)
                            out_open = False
                            continue
                        self._out += chunk
                        got = self._take_line(msg_id)
                        if got is not None:
                            return done(*got)
                if not out_open:
                    return done(None, *self._died())
        except OSError as exc:  # a pipe gone wrong is the bot's process dying
            self._kill()
            return done(None, Verdict.CRASH, f"pipe error: {exc}")

    def _spent(self) -> float:
        """CPU the bot used since the end of its previous exchange (0 once it is gone)."""
        return max(0.0, self.cpu_seconds() - self._cpu_mark)

    @staticmethod
    def _cpu_detail(spent: float, timeout: float) -> str:
        return (
            f"used {spent:.2f} s of CPU (all its threads, since its previous reply), more than"
            f" the {timeout:.2f} s it had"
        )

    def _take_line(self, msg_id: Any) -> tuple[JSON | None, Verdict | None, str] | None:
        """The reply if a complete line with the right id has arrived; a fault if bad."""
        cap = self.limits.reply_bytes
        while True:
            newline = self._out.find(b"\n")
            if newline < 0:
                if len(self._out) > cap:
                    self._kill()  # cannot find the next line boundary cheaply: start afresh
                    return None, Verdict.BAD_OUTPUT, f"reply longer than {cap} bytes"
                return None
            line = bytes(self._out[:newline])
            del self._out[: newline + 1]
            if len(line) > cap:
                return None, Verdict.BAD_OUTPUT, f"reply longer than {cap} bytes"
            if not line.strip():
                continue
            try:
                reply = json.loads(line)
            except (ValueError, RecursionError):
                return None, Verdict.BAD_OUTPUT, f"reply is not JSON: {line[:200]!r}"
            if not isinstance(reply, dict):
                return None, Verdict.BAD_OUTPUT, f"reply is not a JSON object: {line[:200]!r}"
            if msg_id is not None and reply.get("id") != msg_id:
                continue  # a stale or stray line: keep waiting for this message's reply
            return reply, None, ""

    def _died(self) -> tuple[Verdict, str]:
        """Why the process closed its output: exited, killed by a limit, out of memory."""
        proc = self.proc
        assert proc is not None
        try:
            code = proc.wait(1.0)
        except subprocess.TimeoutExpired:
            self._kill()
            code = proc.returncode
        self._drain_stderr()
        tail = bytes(self._err[-2000:]).decode("utf-8", "replace")
        if code is not None and code < 0:
            name = signal.Signals(-code).name if -code in signal.valid_signals() else str(-code)
            self._exit_detail = f"bot process killed by {name}"
            if -code == signal.SIGXCPU:
                return Verdict.TIMEOUT, f"CPU limit of {self.limits.cpu_seconds} s exhausted"
        else:
            self._exit_detail = f"bot process exited with status {code}"
        if "MemoryError" in tail:
            return Verdict.MEMORY, f"{self._exit_detail} (out of memory)"
        return Verdict.CRASH, self._exit_detail

    def _dead_detail(self) -> str:
        return self._exit_detail or "bot process is not running"

    # --- pipes -----------------------------------------------------------

    @staticmethod
    def _read(fd: int) -> bytes | None:
        try:
            return os.read(fd, _CHUNK)
        except BlockingIOError:
            return None

    def _read_stderr(self) -> int:
        """Read one chunk of stderr into the capped buffer: its size, 0 if none, -1 at EOF."""
        proc = self.proc
        assert proc is not None and proc.stderr is not None
        chunk = self._read(proc.stderr.fileno())
        if chunk is None:
            return 0
        if not chunk:
            return -1
        room = min(
            self.limits.stderr_move_bytes - len(self._err),
            self.limits.stderr_match_bytes - self._err_total,
        )
        keep = chunk[: max(0, room)]
        self._err += keep
        self._err_total += len(keep)
        self._err_dropped += len(chunk) - len(keep)
        return len(chunk)

    def _drain_stderr(self) -> None:
        """Read what stderr holds now, without waiting (bounded: a flood must not hold us)."""
        proc = self.proc
        if proc is None or proc.stderr is None or proc.stderr.closed:
            return
        for _ in range(64):
            try:
                if self._read_stderr() <= 0:
                    return
            except OSError:
                return

    def _take_stderr(self) -> str:
        # Bytes that are not UTF-8 are kept as their escapes (\xff), not dropped for U+FFFD.
        text = storable(bytes(self._err).decode("utf-8", "backslashreplace"))
        if self._err_dropped:
            text += f"\n[... {self._err_dropped} more bytes of stderr dropped]"
        self._err.clear()
        self._err_dropped = 0
        return text
