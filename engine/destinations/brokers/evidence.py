"""What one publish to a broker produced: the broker's own answer as evidence (pure).

ENDPOINT_ACCEPTED for a broker means the broker confirmed durable acceptance (DESIGN.md
section 13). :class:`BrokerEvidence` records what the broker returned and the
:class:`BrokerOutcome` the ledger may conclude from it:

============  ======================================================  ====================
outcome       when                                                    ledger
============  ======================================================  ====================
accepted      AMQP: ``basic.ack`` and no ``basic.return``;            ENDPOINT_ACCEPTED
              NATS: a PubAck from the declared stream (``duplicate``
              is acceptance of the earlier publish)
rejected      the broker answered "not taken": ``broker_nack``,       RETRYABLE (or dead
              ``unroutable``, ``jetstream_no_stream`` (no stream       letter when spent)
              listens: a plain publish, never counted),
              ``jetstream_wrong_stream``, ``jetstream_error``,
              ``broker_refused`` (channel closed: no such exchange,
              access refused), ``broker_auth_failed``
refused       policy said no before any socket (egress codes)         as an HTTPS refusal
not_sent      failed before the message was handed to a connection    RETRYABLE
              (``broker_handshake_timeout``, ``broker_frame_too_large``
              on the handshake: :mod:`.bounds`)
unknown       handed to a connection, no confirmation: connection     UNKNOWN_TRANSPORT,
              lost, ``confirm_timeout``, a bound passed after the     retried with the same
              publish (``broker_frame_too_large``,                    delivery id
              ``broker_budget_exceeded``)
============  ======================================================  ====================

:meth:`BrokerEvidence.evidence` is the JSON-safe summary for the attempt event, ``GET
/v1/deliveries/{id}``, ``audit`` and logs: no body, no header value, no credential (the
credentials' keyed digest only). It is written compact, because it is written once per attempt
into the ledger (WAL): a member at its default (``null``, ``false``, empty) is left out, and so
are the message id (the delivery's or challenge's own id, which the event carries) and the
resolved set when it is just the peer. :func:`recorded_evidence` gives every member back, for
a record written compact or (before session 10) in full; the views read through it.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any, Final

from ...egress.failures import FailureCode
from ...egress.policy import AddressDrift
from ...egress.result import PeerCertificate
from .bounds import LimitCode

__all__ = [
    "BROKER_CODES",
    "AmqpConfirmation",
    "BrokerCode",
    "BrokerEvidence",
    "BrokerOutcome",
    "JetStreamAck",
    "broker_view",
    "recorded_evidence",
]

#: the members of :meth:`BrokerEvidence.evidence` a tenant sees (GET /v1/deliveries/{id},
#: the console): what the broker returned and the peer; not the resolver's answers nor the
#: library's detail (the operator's log has those)
_TENANT_MEMBERS: Final = (
    "type",
    "outcome",
    "code",
    "destination",
    "messageId",
    "amqp",
    "jetstream",
    "published",
    "peerAddress",
    "peerPort",
    "tls",
    "spkiSha256",
    "connectionReused",
    "credentialsDigest",
)


#: every member of a broker record and its default (left out of a compact record)
_DEFAULTS: Final[dict[str, Any]] = {
    "kind": "broker",
    "type": None,
    "outcome": None,
    "code": None,
    "destination": None,
    "messageId": None,
    "amqp": None,
    "jetstream": None,
    "published": False,
    "resolved": [],
    "denied": [],
    "peerAddress": None,
    "peerPort": None,
    "tls": False,
    "spkiSha256": None,
    "certIssuer": None,
    "allowanceUsed": False,
    "connectionReused": False,
    "credentialsDigest": None,
    "elapsedS": None,
    "detail": "",
}
_AMQP_DEFAULTS: Final[dict[str, Any]] = {
    "confirmed": False,
    "nacked": False,
    "returned": False,
    "replyCode": None,
    "replyText": None,
}
_JETSTREAM_DEFAULTS: Final[dict[str, Any]] = {"duplicate": False, "domain": None}


def _compact(doc: dict[str, Any], defaults: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in doc.items() if k not in defaults or v != defaults[k]}


def recorded_evidence(recorded: dict[str, Any], message_id: str | None = None) -> dict[str, Any]:
    """Every member of a recorded broker answer, compact or full; ``message_id``: the id of
    the delivery or challenge it belongs to (a compact record leaves it out)."""
    out = {**_DEFAULTS, **recorded}
    if out["messageId"] is None:
        out["messageId"] = message_id
    if not out["resolved"] and out["peerAddress"] is not None:
        out["resolved"] = [out["peerAddress"]]
    if isinstance(out["amqp"], dict):
        out["amqp"] = {**_AMQP_DEFAULTS, **out["amqp"]}
    if isinstance(out["jetstream"], dict):
        out["jetstream"] = {**_JETSTREAM_DEFAULTS, **out["jetstream"]}
    out["resolved"] = list(out["resolved"])
    out["denied"] = list(out["denied"])
    return out


def broker_view(evidence: dict[str, Any], message_id: str | None = None) -> dict[str, Any]:
    """The tenant's view of a recorded broker answer (compact or full)."""
    full = recorded_evidence(evidence, message_id)
    return {k: full[k] for k in _TENANT_MEMBERS}


class BrokerOutcome(enum.StrEnum):
    """What the ledger may conclude from one publish (see the module table)."""

    ACCEPTED = "accepted"
    REJECTED = "rejected"
    REFUSED = "refused"
    NOT_SENT = "not_sent"
    UNKNOWN = "unknown"


class BrokerCode(enum.StrEnum):
    """Stable reason codes of the broker publishers (beside the egress ones)."""

    BROKER_NACK = "broker_nack"
    UNROUTABLE = "unroutable"
    JETSTREAM_NO_STREAM = "jetstream_no_stream"
    JETSTREAM_WRONG_STREAM = "jetstream_wrong_stream"
    JETSTREAM_ERROR = "jetstream_error"
    BROKER_REFUSED = "broker_refused"
    BROKER_AUTH_FAILED = "broker_auth_failed"
    CONFIRM_TIMEOUT = "confirm_timeout"
    CONNECTION_LOST = "connection_lost"
    PLAIN_NOT_ALLOWED = "destination_plain_not_allowed"


#: Every ``BrokerEvidence.code`` a publisher can produce (broker, bounds and egress codes).
BROKER_CODES: Final = (
    frozenset(c.value for c in BrokerCode)
    | frozenset(c.value for c in LimitCode)
    | frozenset(c.value for c in FailureCode)
)


@dataclass(frozen=True, slots=True)
class AmqpConfirmation:
    """What RabbitMQ answered: ``confirmed`` (a ``basic.ack``), ``nacked`` (``basic.nack``),
    ``returned`` (a ``basic.return`` of the mandatory message, with its reply)."""

    confirmed: bool = False
    nacked: bool = False
    returned: bool = False
    reply_code: int | None = None
    reply_text: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "confirmed": self.confirmed,
            "nacked": self.nacked,
            "returned": self.returned,
            "replyCode": self.reply_code,
            "replyText": self.reply_text,
        }


@dataclass(frozen=True, slots=True)
class JetStreamAck:
    """A JetStream PubAck: the stream that stored the message, its sequence, ``duplicate``
    when the stream had it already (the same ``Nats-Msg-Id`` inside its window)."""

    stream: str
    seq: int
    duplicate: bool = False
    domain: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "stream": self.stream,
            "seq": self.seq,
            "duplicate": self.duplicate,
            "domain": self.domain,
        }


@dataclass(frozen=True, slots=True)
class BrokerEvidence:
    """The outcome of one publish. ``code`` is ``None`` only for ``accepted``.

    ``published``: the message was handed to a connection (so the broker may have it);
    ``peer_address``/``peer_port`` the socket that carried it; ``resolved`` every address
    the broker host resolved to; ``error`` the translated exception (its ``__cause__`` the
    library's), kept for the caller, never serialised.
    """

    outcome: BrokerOutcome
    code: str | None
    type: str
    destination: str
    message_id: str
    amqp: AmqpConfirmation | None = None
    jetstream: JetStreamAck | None = None
    published: bool = False
    resolved: tuple[str, ...] = ()
    peer_address: str | None = None
    peer_port: int | None = None
    tls: bool = False
    certificate: PeerCertificate | None = None
    allowance_used: bool = False
    reused: bool = False
    credentials_digest: str | None = None
    denied: tuple[tuple[str, str], ...] = ()
    #: the resolved set compared with the challenge's pin (None: no pin applied); kept for
    #: the drift guard, not serialised (``resolved`` and ``code`` say it)
    drift: AddressDrift | None = None
    elapsed_s: float = 0.0
    detail: str = ""
    error: BaseException | None = field(default=None, repr=False, compare=False)

    @property
    def ok(self) -> bool:
        """The broker confirmed durable acceptance."""
        return self.outcome is BrokerOutcome.ACCEPTED

    @property
    def spki_sha256(self) -> str | None:
        """The broker certificate's SPKI sha-256 (TLS), as an egress result has it."""
        return self.certificate.spki_sha256 if self.certificate else None

    @property
    def lost(self) -> bool:
        """Published and no confirmation came back (UNKNOWN_TRANSPORT)."""
        return self.outcome is BrokerOutcome.UNKNOWN

    def evidence(self) -> dict[str, Any]:
        """A JSON-safe summary for events, the API and logs (no secret, no body), compact:
        read it back with :func:`recorded_evidence`."""
        # built member by member (once per attempt, on the dispatcher's path); the round trip
        # through recorded_evidence() is tested against full_evidence()
        doc: dict[str, Any] = {
            "kind": "broker",
            "type": self.type,
            "outcome": self.outcome.value,
            "destination": self.destination,
        }
        if self.code is not None:
            doc["code"] = self.code
        if self.amqp is not None:
            doc["amqp"] = _compact(self.amqp.to_json(), _AMQP_DEFAULTS)
        if self.jetstream is not None:
            doc["jetstream"] = _compact(self.jetstream.to_json(), _JETSTREAM_DEFAULTS)
        if self.published:
            doc["published"] = True
        if self.resolved and (len(self.resolved) != 1 or self.resolved[0] != self.peer_address):
            doc["resolved"] = list(self.resolved)
        if self.denied:
            doc["denied"] = [list(d) for d in self.denied]
        if self.peer_address is not None:
            doc["peerAddress"] = self.peer_address
        if self.peer_port is not None:
            doc["peerPort"] = self.peer_port
        if self.tls:
            doc["tls"] = True
        cert = self.certificate
        if cert is not None:
            doc["spkiSha256"] = cert.spki_sha256
            doc["certIssuer"] = cert.issuer
        if self.allowance_used:
            doc["allowanceUsed"] = True
        if self.reused:
            doc["connectionReused"] = True
        if self.credentials_digest is not None:
            doc["credentialsDigest"] = self.credentials_digest
        if self.detail:
            doc["detail"] = self.detail
        return doc

    def full_evidence(self) -> dict[str, Any]:
        """Every member (what :func:`recorded_evidence` gives back from a compact record)."""
        cert = self.certificate
        return {
            "kind": "broker",
            "type": self.type,
            "outcome": self.outcome.value,
            "code": self.code,
            "destination": self.destination,
            "messageId": self.message_id,
            "amqp": self.amqp.to_json() if self.amqp else None,
            "jetstream": self.jetstream.to_json() if self.jetstream else None,
            "published": self.published,
            "resolved": list(self.resolved),
            "denied": [list(d) for d in self.denied],
            "peerAddress": self.peer_address,
            "peerPort": self.peer_port,
            "tls": self.tls,
            "spkiSha256": cert.spki_sha256 if cert else None,
            "certIssuer": cert.issuer if cert else None,
            "allowanceUsed": self.allowance_used,
            "connectionReused": self.reused,
            "credentialsDigest": self.credentials_digest,
            "elapsedS": round(self.elapsed_s, 6),
            "detail": self.detail,
        }
