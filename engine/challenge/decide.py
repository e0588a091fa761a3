"""Pure decisions of a challenge's completion: the verdict on an answer and what it records.

No I/O and no clock. The challenger (``service.py``) gives the transport's result, the time and,
for an hmac-sha256 subscription, the shared secret it looked up; here:

- :func:`transport_reason`: a result that is no answer at all (a redirect, a refusal, a
  timeout) fails before anything else is looked at;
- :func:`verdict`: ``None`` when the answer activates the subscription as the log stands now,
  else the reason code: the state checks first (:func:`state_reason`), then the secret, the
  answer itself (``protocol.check_response``) and whether the state may be activated;
- :func:`decide`: ``ChallengePassed`` with the ``activate`` transition when the verdict is
  None, else one ``ChallengeFailed`` with its reason.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING

from msgspec import UNSET

from hookproof.events import Event
from hookproof.events.subscription_events import (
    ChallengeFailed,
    ChallengePassed,
    SubscriptionStateChanged,
)
from hookproof.projections.subscriptions import SubscriptionState

from ..egress.failures import Outcome
from ..subscriptions.machine import next_state
from .protocol import Challenge, check_response

if TYPE_CHECKING:
    from ..egress.result import EgressResult

__all__ = [
    "Complete",
    "decide",
    "needs_secret",
    "state_reason",
    "transport_reason",
    "verdict",
]


@dataclass(frozen=True, slots=True)
class Complete:
    """Record the outcome of ``challenge`` as answered by ``result`` at ``at``.

    ``reason``: a failure already found (by the transport, or by an earlier look at the log):
    it is what is recorded. Otherwise ``decide`` reaches the verdict itself, with ``secret``
    (the shared secret the answer's MAC must be under; never shown in a repr)."""

    challenge: Challenge
    result: EgressResult
    at: datetime
    reason: str | None = None
    location: str | None = None
    secret: bytes | None = field(default=None, repr=False)


def transport_reason(result: EgressResult) -> tuple[str | None, str | None]:
    """``(reason, location)`` when the transport brought no answer to judge (a redirect names
    its ``Location``), else ``(None, None)``."""
    if result.outcome is Outcome.REDIRECT:
        return "redirect", result.location
    if result.outcome is Outcome.RESPONSE and result.code is None:
        return None, None
    return result.code or result.outcome.value, None


def state_reason(
    challenge: Challenge, state: SubscriptionState, result: EgressResult
) -> str | None:
    """Why the log as it stands refuses this challenge's answer (no secret needed), or None."""
    if challenge.challenge_id in state.consumed_challenges:
        return "challenge_consumed"
    pending = state.pending
    if pending is None or pending.challenge_id != challenge.challenge_id:
        return "challenge_not_pending"
    if challenge.generation != state.generation:
        return "stale_generation"
    if challenge.endpoint_digest != state.config.endpoint_digest:
        return "endpoint_changed"
    if result.peer_address is None or result.peer_address not in result.resolved:
        return "address_not_pinned"
    return None


def needs_secret(state: SubscriptionState) -> bool:
    """Whether the answer's proof is a MAC under the subscription's shared secret."""
    return state.config.signature_algorithm == "hmac-sha256"


def verdict(
    challenge: Challenge,
    state: SubscriptionState,
    result: EgressResult,
    now: datetime,
    secret: bytes | None = None,
) -> str | None:
    """None when the answer proves control of the endpoint and the state may be activated,
    else the reason code (``secret``: the shared secret, for an hmac-sha256 subscription)."""
    reason = state_reason(challenge, state, result)
    if reason is not None:
        return reason
    if needs_secret(state) and secret is None:
        return "secret_unavailable"
    receipt = state.config.receipt_key.public_key_jwk if state.config.receipt_key else None
    reason = check_response(
        challenge,
        status=result.status,
        content_type=result.header("Content-Type"),
        body=result.body,
        now=now,
        hmac_secret=secret if needs_secret(state) else None,
        receipt_public_jwk=receipt,
        consumed=state.consumed_challenges,
    )
    if reason is None and next_state(state.state, "activate") is None:
        return "state_not_challengeable"
    return reason


def decide(state: SubscriptionState, command: Complete) -> list[Event]:
    """The events that record the completion: passed (with the ``activate`` transition) when
    no failure was found before and the :func:`verdict` is None, else one ``ChallengeFailed``."""
    challenge, result, at = command.challenge, command.result, command.at.isoformat()
    reason = command.reason
    if reason is None:
        reason = verdict(challenge, state, result, command.at, command.secret)
    target = next_state(state.state, "activate")
    if reason is not None or target is None:
        return [
            ChallengeFailed(
                subscription_id=state.subscription_id,
                challenge_id=challenge.challenge_id,
                generation=challenge.generation,
                reason=reason or "state_not_challengeable",
                location=command.location,
                status=result.status if reason == "bad_status" else None,
                at=at,
                proxy=result.proxy or UNSET,
                peer_address=(result.peer_address or UNSET) if result.proxy else UNSET,
            )
        ]
    return [
        ChallengePassed(
            subscription_id=state.subscription_id,
            challenge_id=challenge.challenge_id,
            generation=challenge.generation,
            key_id=challenge.key_id,
            peer_address=result.peer_address,
            resolved_addresses=sorted(result.resolved),
            spki_sha256=result.spki_sha256,
            issuer=result.certificate.issuer if result.certificate else None,
            at=at,
            proxy=result.proxy or UNSET,
        ),
        SubscriptionStateChanged(
            subscription_id=state.subscription_id,
            command="activate",
            from_state=state.state,
            to_state=target,
            generation=state.generation,
            reason=f"challenge {challenge.challenge_id} passed",
            at=at,
        ),
    ]
