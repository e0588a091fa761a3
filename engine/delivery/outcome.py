"""What one attempt's evidence means for the ledger, the retry policy and the breaker.

Pure: ``classify`` turns evidence into an :class:`AttemptError`, ``breaker_success`` says
whether the endpoint counts as available, ``outcome_events`` gives the events to record.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from msgspec import UNSET

from hookproof.events import Event
from hookproof.events.delivery_events import AttemptFailed, AttemptRequest, EndpointAccepted
from hookproof.events.subscription_events import RetryPolicy
from hookproof.projections.ledger import LedgerState as S

from ..destinations.port import Evidence
from ..egress import Outcome
from .claim import dead_letter_event
from .retry import DETERMINISTIC, AttemptError, RetryDecision, decide, parse_retry_after

__all__ = ["Recorded", "breaker_success", "classify", "outcome_events"]


def classify(result: Evidence, now: datetime) -> AttemptError:
    """The retry-relevant reading of evidence that is not a 2xx."""
    if result.outcome is Outcome.REDIRECT:
        return AttemptError("redirect", status=result.status)
    if result.outcome is Outcome.RESPONSE:
        if result.code is not None:  # the status line came: lost, or e.g. response_too_large
            return AttemptError(str(result.code), status=result.status, unknown=result.lost)
        wait = parse_retry_after(result.retry_after, now)
        return AttemptError(
            f"http_{result.status}",
            status=result.status,
            retry_after_s=wait.seconds,
            retry_after_ignored=wait.ignored,
        )
    return AttemptError(str(result.code or result.outcome.value), unknown=result.lost)


def breaker_success(result: Evidence) -> bool:
    """The breaker counts unavailability (no answer, 5xx, 429), not a 4xx verdict."""
    status = result.status
    if result.code in DETERMINISTIC:  # the transformation's verdict: nothing was sent
        return True
    return result.ok or (status is not None and 400 <= status < 500 and status != 429)


@dataclass(frozen=True, slots=True)
class Recorded:
    events: list[Event]
    outcome: str  # endpoint_accepted | retryable | unknown_transport | dead_letter
    decision: RetryDecision | None = None  # None for a 2xx


def outcome_events(
    *,
    delivery_id: str,
    attempt: int,
    owner: str,
    policy: RetryPolicy,
    result: Evidence,
    duration_s: float,
    now: datetime,
    rand: float,
    request: AttemptRequest | None = None,
) -> Recorded:
    """The events that record one attempt's evidence, and what they amount to.

    A 2xx whose body was cut (framed by the connection's end, no TLS close_notify) is still
    ENDPOINT_ACCEPTED: the status line came whole over the authenticated connection, and a 2xx
    is the endpoint's acceptance, nothing more (DESIGN.md section 7); only the body, which
    decides nothing here, may be incomplete, and the event says so (``body_truncated``).
    ``request``: what of the request cannot be rebuilt later (recorded with the outcome)."""
    ms = round(duration_s * 1000, 3)
    at = now.isoformat()
    broker = dict(result.broker) if result.broker is not None else UNSET
    if result.ok:
        assert result.status is not None or result.broker is not None
        accepted = EndpointAccepted(
            delivery_id=delivery_id,
            attempt=attempt,
            status=result.status,
            peer_address=result.peer_address,
            spki_sha256=result.spki_sha256,
            duration_ms=ms,
            at=at,
            body_truncated=result.body_truncated or UNSET,
            broker=broker,
            proxy=result.proxy or UNSET,
            response=result.response or UNSET,
            request=request or UNSET,
        )
        return Recorded([accepted], "endpoint_accepted")
    error = classify(result, now)
    decision = decide(policy, attempt, error, rand=rand)
    kind = S.UNKNOWN_TRANSPORT.value if error.unknown else S.RETRYABLE.value
    events: list[Event] = [
        AttemptFailed(
            delivery_id=delivery_id,
            attempt=attempt,
            outcome=kind,
            code=error.code,
            status=result.status,
            location=result.location,
            request_written=result.request_written,
            peer_address=result.peer_address,
            retry_at=(now + timedelta(seconds=decision.delay_s)).isoformat(),
            retry_after_ignored=error.retry_after_ignored,
            duration_ms=ms,
            at=at,
            body_truncated=result.body_truncated or UNSET,
            broker=broker,
            proxy=result.proxy or UNSET,
            response=result.response or UNSET,
            request=request or UNSET,
        )
    ]
    if decision.retry:
        return Recorded(events, kind.lower(), decision)
    reason = decision.dead_letter_reason or decision.reason
    events.append(dead_letter_event(delivery_id, attempt, owner, reason, now))
    return Recorded(events, "dead_letter", decision)
