"""The destination port: "deliver this signed message to this destination, return the evidence".

The dispatcher's send step calls one :class:`Destination`; what it gets back is one type,
:class:`Evidence`, which the ledger records (``delivery/outcome.py``). Each kind's adapter
(:mod:`.https`, :mod:`.amqp`, :mod:`.nats`, :mod:`.relay`, or a kind installed from outside)
implements it; :class:`~.registry.DestinationsByKind`, built by the composition root from
the registry, hands each attempt to its kind's, without the dispatcher knowing any.

An attempt moves through typed values (after Svix's worker): :class:`PendingAttempt` (admitted
and signed), :class:`SentAttempt` (handed to its destination), then :class:`Succeeded` or
:class:`Failed` (completed, with the evidence). Pure but for :func:`send_attempt`, which awaits
the destination. The values are frozen ``msgspec`` structs: an attempt makes several, and
they cost a tenth of a frozen dataclass (``bench/bench_destination_port.py``).
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

import msgspec

from hookproof.events.delivery_events import AttemptResponse

from ..egress.failures import FailureCode, Outcome, is_lost
from ..keys.signing import Signer
from .context import Target

__all__ = [
    "Completed",
    "Destination",
    "Evidence",
    "Failed",
    "PendingAttempt",
    "SentAttempt",
    "SignedMessage",
    "Succeeded",
    "send_attempt",
]


class SignedMessage(msgspec.Struct, frozen=True):
    """One attempt's message as signed: the body and its headers. A destination sends both
    as they are; it may add headers the signature does not cover (``traceparent``).

    ``signers``, ``created`` and ``lifetime``: what the admission recorded to sign with, for a
    destination that signs its own form (a broker signs ``"@destination"``, DESIGN.md 13);
    the HTTP headers of such a message carry no signature."""

    body: bytes
    headers: Mapping[str, str]
    signers: Sequence[Signer] = ()
    created: int = 0
    lifetime: int = 300


class Evidence(msgspec.Struct, frozen=True):
    """What a destination observed for one attempt: the answer to that attempt's own request.

    ``outcome`` says what the ledger may conclude (a response came, the request was refused or
    never sent, or its fate is unknown); ``code`` is the failure's stable reason (None only for
    a complete non-3xx response); ``status`` the destination's answer code where it has one.
    The rest is recorded with the attempt: the redirect's ``location``, whether the whole
    request was handed over (``request_written``), the peer that answered and its key digest,
    and whether the answer's body was cut (``body_truncated``: framed by the connection's end
    with no TLS close_notify), and what came back (``response``: headers and a bounded body
    excerpt, redacted; :mod:`.response_excerpt`).
    """

    outcome: Outcome
    code: FailureCode | str | None = None
    status: int | None = None
    retry_after: str | None = None
    location: str | None = None
    request_written: bool = False
    peer_address: str | None = None
    spki_sha256: str | None = None
    body_truncated: bool = False
    #: a broker destination's answer (``BrokerEvidence.evidence()``: confirmed or returned,
    #: stream and sequence, the peer); None for HTTPS
    broker: Mapping[str, Any] | None = None
    #: the forward proxy the attempt went through (``host:port``; ``peer_address`` is then
    #: the vetted address the tunnel reached)
    proxy: str | None = None
    response: AttemptResponse | None = None
    #: the ``traceparent`` the request went out with when a destination wrapper replaced the
    #: message's (the tracing span's); None: the message's own was sent
    traceparent: str | None = None

    @property
    def ok(self) -> bool:
        """Accepted: a complete 2xx answer within the bounds, or a broker's confirmation."""
        if self.code is not None:
            return False
        if self.broker is not None:
            return self.outcome is Outcome.RESPONSE
        return self.status is not None and 200 <= self.status < 300

    @property
    def lost(self) -> bool:
        """The destination may have applied the message and no complete answer came back."""
        code = self.code if isinstance(self.code, FailureCode) or self.code is None else None
        return is_lost(self.outcome, code)


class Destination(Protocol):
    """Delivers one signed message to the attempt's destination; never raises for what the
    destination did (that is evidence), only for a bug."""

    async def deliver(self, message: SignedMessage, target: Target) -> Evidence: ...


# -- an attempt's values --------------------------------------------------------------------


class PendingAttempt(msgspec.Struct, frozen=True):
    """Admitted and signed, not yet handed to its destination. ``started``: when the send
    began (``time.monotonic``); the attempt's duration is counted from it."""

    target: Target
    message: SignedMessage
    started: float

    def sent(self) -> SentAttempt:
        return SentAttempt(self)


class SentAttempt(msgspec.Struct, frozen=True):
    """Handed to its destination; the evidence is not in yet."""

    pending: PendingAttempt

    def completed(self, evidence: Evidence, now: float) -> Completed:
        duration = now - self.pending.started
        if evidence.ok:
            return Succeeded(self, evidence, duration)
        return Failed(self, evidence, duration)


class Succeeded(msgspec.Struct, frozen=True):
    """Completed: the destination accepted the message."""

    sent: SentAttempt
    evidence: Evidence
    duration_s: float


class Failed(msgspec.Struct, frozen=True):
    """Completed without acceptance: refused, not sent, an error answer or an unknown fate
    (the evidence says which; the retry policy decides what follows)."""

    sent: SentAttempt
    evidence: Evidence
    duration_s: float


Completed = Succeeded | Failed


async def send_attempt(destination: Destination, pending: PendingAttempt) -> Completed:
    """Pending -> sent -> completed: the one call to the destination an attempt makes."""
    sent = pending.sent()
    evidence = await destination.deliver(pending.message, pending.target)
    return sent.completed(evidence, time.monotonic())
