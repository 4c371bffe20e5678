"""The limits one seat's bot runs under: time, reply size, logs, memory and files."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any


@dataclass(frozen=True)
class Limits:
    move_seconds: float = 1.0
    """Wall-clock deadline of one decision."""
    bank_seconds: float = 10.0
    """Extra wall-clock time for the whole match, consumed by overruns of move_seconds."""
    start_seconds: float = 5.0
    """Wall-clock time to import bot.py and run its start() (not taken from the bank)."""
    reply_bytes: int = 64 * 1024
    stderr_move_bytes: int = 4 * 1024
    stderr_match_bytes: int = 256 * 1024
    memory_bytes: int = 512 * 1024 * 1024
    """Address space (RLIMIT_AS) of the bot process."""
    cpu_seconds: int = 600
    """CPU time (RLIMIT_CPU) of one bot process, for the whole match."""
    cpu_cores: float = 1.0
    """The CPU rate of the bot's whole process tree, every thread (a cgroup's quota: cpu.py)."""
    processes: int = 64
    """RLIMIT_NPROC of the bot uid (threads count too; fork is denied anyway)."""
    file_bytes: int = 16 * 1024 * 1024
    """Largest file the bot may write (RLIMIT_FSIZE)."""
    open_files: int = 64
    tmpfs_bytes: int = 16 * 1024 * 1024
    """Size of the private /tmp."""

    def for_bot(self) -> dict[str, Any]:
        """The limits as told to the bot in the start message."""
        return asdict(self)

    def botkit_args(self) -> list[str]:
        """Command-line flags of sdk/botkit.py that set the process's rlimits."""
        return [
            f"--memory={self.memory_bytes}",
            f"--cpu={self.cpu_seconds}",
            f"--procs={self.processes}",
            f"--fsize={self.file_bytes}",
            f"--files={self.open_files}",
        ]
