"""Pure decisions of a broker challenge (DESIGN.md section 13). No I/O, no clock.

A broker subscription's challenge is published to its destination like a delivery; the
broker's confirmation is recorded (:func:`decide_published`: ``ChallengePublished``, or
``ChallengeFailed`` with the broker's code when it did not take it). The consumer that read it
answers with the ``hookproof.challenge-response.v1`` body at ``POST
/v1/challenges/{challengeId}/response``: no token, the answer authenticates itself (the nonce
only a reader of the destination saw, and the proof under the secret or the receipt key).
:func:`precheck` judges it first against the subscription's projection row (the pending
challenge's id, nonce hash and expiry: no stream is read for a guess, a replay, a wrong nonce
or a late answer); :func:`answer_reason` then judges it against the log; only a valid answer
is recorded (:func:`decide_answer`: ``ChallengePassed`` and ``activate``). A wrong, replayed or
late answer records nothing: unauthenticated input never creates an event.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Final

from hookproof.events import Event
from hookproof.events.subscription_events import (
    ChallengeFailed,
    ChallengePassed,
    ChallengePublished,
    SubscriptionStateChanged,
)
from hookproof.projections.subscriptions import PendingChallenge, PendingRow, SubscriptionState
from hookproof_subscriber.challenge import CHALLENGE_TYPE

from ..subscriptions.machine import next_state
from .protocol import Challenge, check_response, expiry_of

__all__ = [
    "ANSWER_REASONS",
    "MAX_ANSWER_BYTES",
    "Answer",
    "Published",
    "answer_reason",
    "challenge_of",
    "decide_answer",
    "decide_published",
    "precheck",
]

#: the largest answer read (a response body is a few hundred bytes)
MAX_ANSWER_BYTES: Final = 8 * 1024
#: the reasons an answer is refused beyond ``protocol.REASON_CODES``
ANSWER_REASONS: Final = frozenset(
    {
        "challenge_not_pending",
        "challenge_not_published",
        "not_a_broker",
        "stale_generation",
        "endpoint_changed",
        "state_not_challengeable",
        "secret_unavailable",
    }
)


@dataclass(frozen=True, slots=True)
class Published:
    """Record what the broker answered to the challenge's publish."""

    challenge_id: str
    generation: int
    accepted: bool
    code: str | None
    peer_address: str | None
    resolved: tuple[str, ...]
    spki_sha256: str | None
    broker: dict[str, Any]
    at: datetime
    #: the broker's own words on a refusal ("no exchange 'x' in vhost '/'"; never a secret,
    #: never the engine's view of DNS): recorded so ``lastReasonDetail`` can say it
    detail: str | None = None


@dataclass(frozen=True, slots=True)
class Answer:
    """A consumer's answer to ``challenge_id``, judged at ``at`` (``secret``: the shared
    secret of an hmac-sha256 subscription; never in a repr)."""

    challenge_id: str
    body: bytes
    at: datetime
    secret: bytes | None = field(default=None, repr=False)


def decide_published(state: SubscriptionState, command: Published) -> list[Event]:
    """``ChallengePublished`` when the broker confirmed the challenge and it is still the
    pending one; ``ChallengeFailed`` with the broker's code when it did not take it."""
    pending = state.pending
    at = command.at.isoformat()
    if pending is None or pending.challenge_id != command.challenge_id:
        return []
    if not command.accepted:
        return [
            ChallengeFailed(
                subscription_id=state.subscription_id,
                challenge_id=command.challenge_id,
                generation=command.generation,
                reason=command.code or "broker_failed",
                detail=command.detail,
                at=at,
            )
        ]
    return [
        ChallengePublished(
            subscription_id=state.subscription_id,
            challenge_id=command.challenge_id,
            generation=command.generation,
            peer_address=command.peer_address,
            resolved_addresses=sorted(command.resolved),
            spki_sha256=command.spki_sha256,
            broker=command.broker,
            at=at,
        )
    ]


def challenge_of(state: SubscriptionState, pending: PendingChallenge, nonce: str) -> Challenge:
    """The challenge as it was published (the same bytes ``protocol.build_challenge`` made),
    rebuilt from the log and the answer's nonce (checked against its recorded hash first)."""
    doc = {
        "type": CHALLENGE_TYPE,
        "challengeId": pending.challenge_id,
        "nonce": nonce,
        "subscriptionId": state.subscription_id,
        "generation": pending.generation,
        "endpointDigest": pending.endpoint_digest,
        "expiresAt": pending.expires_at,
        "keyId": pending.key_id,
    }
    body = json.dumps(doc, separators=(",", ":")).encode()
    return Challenge(
        pending.challenge_id,
        nonce,
        state.subscription_id,
        pending.generation,
        pending.endpoint_digest,
        pending.expires_at,
        pending.key_id,
        body,
    )


def _nonce(body: bytes) -> str | None:
    try:
        doc = json.loads(body.decode("utf-8"))
    except (ValueError, UnicodeDecodeError, RecursionError):
        return None
    nonce = doc.get("nonce") if isinstance(doc, dict) else None
    return nonce if isinstance(nonce, str) and 0 < len(nonce) <= 256 else None


def precheck(row: PendingRow | None, answer: Answer) -> str | None:
    """None when the answer names the subscription's pending challenge with its nonce, in
    time (its stream may then be read to judge the rest), else the reason: a guess or an
    answer to anything but the pending challenge is ``challenge_not_found``, the challenge
    answered last ``response_replayed``."""
    if row is None or row.challenge_id != answer.challenge_id or row.expires_at is None:
        replayed = row is not None and row.answered == answer.challenge_id
        return "response_replayed" if replayed else "challenge_not_found"
    nonce = _nonce(answer.body)
    if nonce is None:
        return "malformed_response"
    digest = hashlib.sha256(nonce.encode()).hexdigest()
    if not hmac.compare_digest(digest, row.nonce_sha256 or ""):
        return "nonce_mismatch"
    if answer.at >= expiry_of(row.expires_at):
        return "expired"
    return None


def answer_reason(state: SubscriptionState, answer: Answer) -> str | None:
    """None when the answer proves the consumer read this challenge from the destination
    and the subscription may be activated, else the reason code."""
    if answer.challenge_id in state.consumed_challenges:
        return "response_replayed"
    pending = state.pending
    if pending is None or pending.challenge_id != answer.challenge_id:
        return "challenge_not_pending"
    if state.config.destination is None or state.config.destination.is_relay:
        return "not_a_broker"
    if pending.published is None:
        return "challenge_not_published"
    if pending.generation != state.generation:
        return "stale_generation"
    if pending.endpoint_digest != state.config.endpoint_digest:
        return "endpoint_changed"
    nonce = _nonce(answer.body)
    if nonce is None:
        return "malformed_response"
    digest = hashlib.sha256(nonce.encode()).hexdigest()
    if not hmac.compare_digest(digest, pending.nonce_sha256):
        return "nonce_mismatch"
    hmac_secret = state.config.signature_algorithm == "hmac-sha256"
    if hmac_secret and answer.secret is None:
        return "secret_unavailable"
    receipt = state.config.receipt_key.public_key_jwk if state.config.receipt_key else None
    reason = check_response(
        challenge_of(state, pending, nonce),
        status=200,
        content_type="application/json",
        body=answer.body,
        now=answer.at,
        hmac_secret=answer.secret if hmac_secret else None,
        receipt_public_jwk=receipt,
        consumed=state.consumed_challenges,
    )
    if reason is None and next_state(state.state, "activate") is None:
        return "state_not_challengeable"
    return reason


def decide_answer(state: SubscriptionState, answer: Answer) -> list[Event]:
    """``ChallengePassed`` and ``activate`` for a valid answer; nothing otherwise."""
    if answer_reason(state, answer) is not None:
        return []
    pending = state.pending
    assert pending is not None and pending.published is not None
    target = next_state(state.state, "activate")
    assert target is not None
    at = answer.at.isoformat()
    published = pending.published
    return [
        ChallengePassed(
            subscription_id=state.subscription_id,
            challenge_id=pending.challenge_id,
            generation=pending.generation,
            key_id=pending.key_id,
            peer_address=published.peer_address,
            resolved_addresses=sorted(published.resolved_addresses),
            spki_sha256=published.spki_sha256,
            at=at,
        ),
        SubscriptionStateChanged(
            subscription_id=state.subscription_id,
            command="activate",
            from_state=state.state,
            to_state=target,
            generation=state.generation,
            reason=f"challenge {pending.challenge_id} answered",
            at=at,
        ),
    ]
