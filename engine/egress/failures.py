"""Failure codes and the one outcome rule (pure; used by the transport and the dispatcher).

Every :class:`EgressResult` carries a :class:`FailureCode` (or ``None`` for a complete
non-3xx response) and an :class:`Outcome`. :func:`outcome_of` is the only place that turns
"what happened on the wire" into an outcome, and :func:`is_lost` the only place that says
whether the endpoint may have applied a request whose answer never completed.
"""

from __future__ import annotations

import enum
from typing import Final

__all__ = ["FAILURE_CODES", "LOST_AFTER_HEAD", "FailureCode", "Outcome", "is_lost", "outcome_of"]


class FailureCode(enum.StrEnum):
    """Stable reason codes of the egress transport (their values are the wire strings)."""

    REFUSED_ADDRESS = "egress_refused_address"
    REFUSED_PORT = "egress_refused_port"
    REFUSED_SCHEME = "egress_refused_scheme"
    INVALID_URL = "egress_invalid_url"
    PIN_MISMATCH = "egress_pin_mismatch"
    DNS_FAILURE = "dns_failure"
    CONNECT_TIMEOUT = "connect_timeout"
    CONNECT_FAILED = "connect_failed"
    TLS_ERROR = "tls_error"
    RESPONSE_TIMEOUT = "response_timeout"
    CONNECTION_RESET = "connection_reset"
    PROTOCOL_ERROR = "protocol_error"
    RESPONSE_TOO_LARGE = "response_too_large"
    REDIRECT = "redirect"
    #: no credential could be had for the endpoint (an OAuth2 token; DESIGN.md section 14)
    AUTH_UNAVAILABLE = "auth_unavailable"
    #: the operator's forward proxy refused or failed the CONNECT (not the endpoint's fault)
    PROXY_FAILED = "egress_proxy_failed"

    @property
    def is_policy_refusal(self) -> bool:
        """Policy said no before any socket was opened (never a network failure)."""
        return self in _POLICY_REFUSALS


_POLICY_REFUSALS: Final = frozenset(
    {
        FailureCode.REFUSED_ADDRESS,
        FailureCode.REFUSED_PORT,
        FailureCode.REFUSED_SCHEME,
        FailureCode.INVALID_URL,
        FailureCode.PIN_MISMATCH,
    }
)

#: Every ``EgressResult.code`` the transport can produce (as strings).
FAILURE_CODES: Final = frozenset(c.value for c in FailureCode)

#: Failures after the status line arrived: the response never completed.
LOST_AFTER_HEAD: Final = frozenset(
    {FailureCode.PROTOCOL_ERROR, FailureCode.CONNECTION_RESET, FailureCode.RESPONSE_TIMEOUT}
)


class Outcome(enum.StrEnum):
    """What the ledger may conclude from a result.

    ``RESPONSE``: a final non-3xx response arrived (``status`` is set; ``code`` may still be
    ``response_too_large``). ``REDIRECT``: a 3xx arrived (a failure; never followed).
    ``REFUSED``: policy refused before any socket was opened. ``NOT_SENT``: the attempt
    failed before any request byte was handed to a connection (RETRYABLE). ``UNKNOWN``:
    request bytes may have reached the endpoint and no complete response came back
    (UNKNOWN_TRANSPORT).
    """

    RESPONSE = "response"
    REDIRECT = "redirect"
    REFUSED = "refused"
    NOT_SENT = "not_sent"
    UNKNOWN = "unknown"


def outcome_of(*, status: int | None, code: FailureCode | None, started: bool) -> Outcome:
    """The outcome of one request: a status line wins, then "bytes may have left"."""
    if status is not None:
        return Outcome.REDIRECT if 300 <= status < 400 else Outcome.RESPONSE
    if started:
        return Outcome.UNKNOWN
    if code is not None and code.is_policy_refusal:
        return Outcome.REFUSED
    return Outcome.NOT_SENT


def is_lost(outcome: Outcome, code: FailureCode | None) -> bool:
    """The endpoint may have applied the request and no complete answer came back."""
    if outcome is Outcome.UNKNOWN:
        return True
    return outcome is Outcome.RESPONSE and code in LOST_AFTER_HEAD
