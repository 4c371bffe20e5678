"""Running untrusted bots: protocol v1, the sandbox around each bot process, strikes.

The match runner uses :class:`SeatController` (one per seat per match) and the
worker calls :func:`isolation_status` at start; see docs/bots.md.
"""

from games.sandbox.isolation import SandboxUnavailable
from games.sandbox.limits import Limits
from games.sandbox.protocol import PROTOCOL_VERSION
from games.sandbox.readiness import isolation_status
from games.sandbox.seat import MAX_STRIKES, Decision, SeatController
from games.sandbox.verdicts import STRIKES, Verdict

__all__ = [
    "MAX_STRIKES",
    "PROTOCOL_VERSION",
    "STRIKES",
    "Decision",
    "Limits",
    "SandboxUnavailable",
    "SeatController",
    "Verdict",
    "isolation_status",
]
