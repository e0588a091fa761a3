"""What one POST produced: the result, its timings and the peer certificate (no I/O)."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any

from cryptography import x509
from cryptography.hazmat.primitives import serialization

from hookproof.errors import EgressRefused

from .failures import FailureCode, Outcome, is_lost
from .policy import AddressDrift

__all__ = ["EgressResult", "EgressTimings", "PeerCertificate", "describe_certificate"]


@dataclass(frozen=True, slots=True)
class PeerCertificate:
    """What the engine records about the verified peer certificate."""

    spki_sha256: str
    subject: str
    issuer: str
    authority_key_id: str | None
    not_after: str


@dataclass(frozen=True, slots=True)
class EgressTimings:
    """Seconds from the start of ``post`` (``None`` when the step did not happen)."""

    resolved: float | None = None
    connected: float | None = None
    request_written: float | None = None
    response_headers: float | None = None
    total: float = 0.0


@dataclass(frozen=True, slots=True)
class EgressResult:
    """The outcome of one POST. ``code`` is ``None`` only for a complete non-3xx response.

    ``resolved`` is every address the host resolved to (IP literal: itself), ``denied`` the
    ``(address, reason)`` pairs that made vetting refuse, ``peer_address``/``peer_port`` the
    socket actually used, ``certificate`` the verified peer certificate (SPKI sha-256, issuer,
    authority key id). ``request_started``/``request_written``: the headers / the whole
    request were handed to the connection; both err on the side of "maybe sent" (they are
    set just before the bytes are written), so ``NOT_SENT`` is only reported when no request
    byte can have left.
    """

    outcome: Outcome
    code: FailureCode | None
    url: str
    host: str
    port: int
    status: int | None = None
    headers: tuple[tuple[str, str], ...] = ()
    body: bytes = b""
    location: str | None = None
    resolved: tuple[str, ...] = ()
    peer_address: str | None = None
    peer_port: int | None = None
    #: the forward proxy the connection was tunnelled through (``host:port``); the peer above
    #: is then the vetted address the tunnel went to
    proxy: str | None = None
    certificate: PeerCertificate | None = None
    request_started: bool = False
    request_written: bool = False
    allowance_used: bool = False
    denied: tuple[tuple[str, str], ...] = ()
    drift: AddressDrift | None = None
    timings: EgressTimings = field(default_factory=EgressTimings)
    detail: str = ""
    #: the body was framed by the connection's end and that end came without a TLS
    #: close_notify: the status stands, the body may be incomplete
    body_truncated: bool = False
    #: every byte of the answer read: head, body, chunk framing and trailers (bounded)
    response_bytes: int = 0

    @property
    def ok(self) -> bool:
        """A complete 2xx response within the bounds."""
        return self.code is None and self.status is not None and 200 <= self.status < 300

    @property
    def lost(self) -> bool:
        """The endpoint may have applied the request and no complete answer came back."""
        return is_lost(self.outcome, self.code)

    @property
    def spki_sha256(self) -> str | None:
        return self.certificate.spki_sha256 if self.certificate else None

    def header(self, name: str) -> str | None:
        """First response header value for ``name`` (case-insensitive)."""
        lname = name.lower()
        return next((v for k, v in self.headers if k.lower() == lname), None)

    def raise_for_refusal(self) -> None:
        """Raise :class:`EgressRefused` (with this ``code``) if policy refused the target."""
        if self.outcome is Outcome.REFUSED:
            raise EgressRefused(self.detail or "egress refused", code=self.code, url=self.url)

    def evidence(self) -> dict[str, Any]:
        """A JSON-safe summary for events and logs: no body, no headers but Retry-After."""
        cert = self.certificate
        return {
            "outcome": self.outcome.value,
            "code": self.code,
            "url": self.url,
            "status": self.status,
            "location": self.location,
            "retryAfter": self.header("Retry-After"),
            "resolved": list(self.resolved),
            "denied": [list(d) for d in self.denied],
            "peerAddress": self.peer_address,
            "peerPort": self.peer_port,
            "proxy": self.proxy,
            "spkiSha256": cert.spki_sha256 if cert else None,
            "certIssuer": cert.issuer if cert else None,
            "certAuthorityKeyId": cert.authority_key_id if cert else None,
            "requestStarted": self.request_started,
            "requestWritten": self.request_written,
            "allowanceUsed": self.allowance_used,
            "addressDrift": None
            if self.drift is None
            else {
                "expected": sorted(self.drift.expected),
                "observed": sorted(self.drift.observed),
                "denied": dict(sorted(self.drift.denied.items())),
            },
            "bodyBytes": len(self.body),
            "bodyTruncated": self.body_truncated,
            "responseBytes": self.response_bytes,
            "timings": {
                "resolved": self.timings.resolved,
                "connected": self.timings.connected,
                "requestWritten": self.timings.request_written,
                "responseHeaders": self.timings.response_headers,
                "total": self.timings.total,
            },
            "detail": self.detail,
        }


def describe_certificate(der: bytes) -> PeerCertificate:
    """The recorded facts of a verified peer certificate (DER), computed once per connection."""
    cert = x509.load_der_x509_certificate(der)
    spki = cert.public_key().public_bytes(
        serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    try:
        aki = cert.extensions.get_extension_for_class(x509.AuthorityKeyIdentifier).value
        aki_hex = aki.key_identifier.hex() if aki.key_identifier else None
    except x509.ExtensionNotFound:
        aki_hex = None
    return PeerCertificate(
        spki_sha256=hashlib.sha256(spki).hexdigest(),
        subject=cert.subject.rfc4514_string(),
        issuer=cert.issuer.rfc4514_string(),
        authority_key_id=aki_hex,
        not_after=cert.not_valid_after_utc.isoformat(),
    )
