"""The per-request context: one :class:`Attempt`, reachable from the vetting resolver and the
socket guard (:mod:`.guard`) through the :data:`CURRENT` context variable."""

from __future__ import annotations

import asyncio
import contextvars
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .addresses import IPAddress

if TYPE_CHECKING:
    from ..endpoint import Endpoint
    from .errors import Refusal
    from .pool import ConnectionFacts
    from .result import PeerCertificate

__all__ = ["CURRENT", "Attempt"]


@dataclass(slots=True)
class Attempt:
    """Per-request state, reachable from the resolver and the socket guard through a context
    variable."""

    endpoint: Endpoint
    body_len: int
    t0: float
    deadline: float
    vetted: frozenset[tuple[IPAddress, int]] = frozenset()
    resolved: Sequence[IPAddress] = ()
    refusal: Refusal | None = None
    guard_refusals: int = 0
    socket_opened: int = 0
    peer: tuple[str, int] | None = None
    certificate: PeerCertificate | None = None
    facts: ConnectionFacts | None = None
    reused: bool = False
    connected_at: float | None = None
    resolved_at: float | None = None
    headers_sent: bool = False
    body_sent: int = 0
    written_at: float | None = None

    def now(self) -> float:
        return asyncio.get_running_loop().time() - self.t0

    @property
    def request_written(self) -> bool:
        return self.headers_sent and self.body_sent >= self.body_len


CURRENT: contextvars.ContextVar[Attempt | None] = contextvars.ContextVar(
    "hookproof_egress_attempt", default=None
)
