"""A challenge to a subscription of an installed kind that declares its members (DESIGN.md 15):
published like a delivery, through that kind's adapter behind the composed destination port,
and answered at ``POST /v1/challenges/{id}/response`` as a broker's is. Pure: the message,
the attempt the adapter reads, and what is recorded of its evidence."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from hookproof.projections.subscriptions import SubscriptionState

from ..destinations.port import Evidence, SignedMessage
from ..keys.signing import Signer
from .broker import Published
from .disclosure import tenant_reason
from .protocol import Challenge

__all__ = ["ChallengeAttempt", "challenge_message", "published"]


@dataclass(frozen=True, slots=True)
class ChallengeAttempt:
    """The challenge as a destination reads an attempt (``destinations.context.Target``):
    the challenge id is the event and delivery id, attempt 1 (as a broker's challenge)."""

    delivery_id: str
    event_id: str
    tenant_id: str
    subscription_id: str
    generation: int
    endpoint: str
    endpoint_digest: str
    attempt: int
    sub_generation: int
    sub_version: int

    @classmethod
    def of(cls, state: SubscriptionState, challenge: Challenge) -> ChallengeAttempt:
        return cls(
            delivery_id=challenge.challenge_id,
            event_id=challenge.challenge_id,
            tenant_id=state.tenant_id,
            subscription_id=state.subscription_id,
            generation=challenge.generation,
            endpoint=state.config.endpoint,
            endpoint_digest=state.config.endpoint_digest,
            attempt=1,
            sub_generation=state.generation,
            sub_version=state.version,
        )


def challenge_message(
    challenge: Challenge,
    headers: dict[str, str],
    signer: Signer,
    *,
    signs_own_form: bool,
    created: int,
    lifetime: int,
) -> SignedMessage:
    """The challenge as the kind sends it: signed over HTTP (``headers``), or for a kind that
    signs its own form, with the signer it signs with."""
    if signs_own_form:
        plain = {"Content-Type": "application/json", "traceparent": headers["traceparent"]}
        return SignedMessage(challenge.body, plain, (signer,), created, lifetime)
    return SignedMessage(challenge.body, headers, (), created, lifetime)


def published(challenge: Challenge, evidence: Evidence, at: datetime) -> Published:
    """What is recorded of the kind's answer to the challenge's publish."""
    shown = tenant_reason(str(evidence.code)) if evidence.code is not None else None
    return Published(
        challenge.challenge_id,
        challenge.generation,
        evidence.ok,
        shown,
        evidence.peer_address,
        (),
        evidence.spki_sha256,
        dict(evidence.broker or {}),
        at,
        None,
    )
