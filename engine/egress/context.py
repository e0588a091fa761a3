"""The per-request context: one :class:`Attempt`, reachable from the vetting resolver and the
socket guard (:mod:`.guard`) through the :data:`CURRENT` context variable. It also records
what the exchange got back; the transport makes the exchange's one result of it
(:class:`.result.EgressResult`)."""

from __future__ import annotations

import asyncio
import contextvars
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from .addresses import IPAddress
from .failures import FailureCode

if TYPE_CHECKING:
    from .endpoint import Endpoint
    from .errors import Refusal
    from .identity import ClientIdentity
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
    #: the client certificate presented in the handshake (mtls), part of the pool's origin
    identity: ClientIdentity | None = None
    resolved: Sequence[IPAddress] = ()
    refusal: Refusal | None = None
    guard_refusals: int = 0
    socket_opened: int = 0
    peer: tuple[str, int] | None = None
    #: the forward proxy the connection went through (``host:port``), if any
    proxy: str | None = None
    certificate: PeerCertificate | None = None
    facts: ConnectionFacts | None = None
    reused: bool = False
    connected_at: float | None = None
    resolved_at: float | None = None
    headers_sent: bool = False
    body_sent: int = 0
    written_at: float | None = None
    # what came back (``code``: a failure, ``None``: a complete response); the transport
    # makes the exchange's one result, :class:`.result.EgressResult`, of these
    code: FailureCode | None = None
    detail: str = ""
    status: int | None = None
    headers: tuple[tuple[str, str], ...] = ()
    location: str | None = None
    head_at: float | None = None
    chunks: list[bytes] = field(default_factory=list)
    #: the body ended with the connection without a TLS close_notify (it may be incomplete)
    truncated: bool = False
    #: every byte of the answer read (head, body, chunk framing, trailers)
    received: int = 0

    def now(self) -> float:
        return asyncio.get_running_loop().time() - self.t0

    @property
    def request_written(self) -> bool:
        return self.headers_sent and self.body_sent >= self.body_len


CURRENT: contextvars.ContextVar[Attempt | None] = contextvars.ContextVar(
    "hookproof_egress_attempt", default=None
)
