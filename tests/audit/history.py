"""Scripted histories for the audit tests: event builders and an appender through the store."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from hookproof.events import ANY, Event, EventStore, Metadata, StreamAppend
from hookproof.events.delivery_events import (
    ApplicationConfirmed,
    AttemptAdmitted,
    AttemptFailed,
    AttemptLost,
    DeadLettered,
    DeliveryPlanned,
    DeliveryReplayRequested,
    EndpointAccepted,
    EventIngested,
)
from hookproof.events.key_events import (
    KeyActivated,
    KeyCreated,
    KeyRevoked,
    KeyState,
    RevokeReason,
)
from hookproof.events.subscription_events import (
    ChallengeFailed,
    ChallengeIssued,
    ChallengePassed,
    ReceiptKey,
    SubscriptionConfig,
    SubscriptionRegistered,
    SubscriptionStateChanged,
    SubscriptionUpdated,
)

T0 = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)


def at(minutes: float = 0) -> str:
    return (T0 + timedelta(minutes=minutes)).isoformat()


def config(endpoint: str = "https://example.test/hook", receipt_gen: int | None = None) -> Any:
    return SubscriptionConfig(
        endpoint=endpoint,
        endpoint_digest="sha-256=:" + endpoint + ":",
        topics=["order.*"],
        event_versions=[1],
        region="eu",
        signature_algorithm="ed25519",
        owner="team-orders",
        receipt_key=(
            ReceiptKey(
                key_id=f"rk{receipt_gen}", public_key_jwk={"kty": "OKP"}, generation=receipt_gen
            )
            if receipt_gen
            else None
        ),
    )


def registered(sid: str, generation: int = 1, **kw: Any) -> Event:
    return SubscriptionRegistered(
        subscription_id=sid, tenant_id="t1", generation=generation, config=config(**kw), at=at()
    )


def updated(sid: str, generation: int, previous: int, **kw: Any) -> Event:
    return SubscriptionUpdated(
        subscription_id=sid,
        generation=generation,
        previous_generation=previous,
        changed=["endpoint"],
        config=config(**kw),
        at=at(),
    )


def issued(sid: str, cid: str, generation: int = 1) -> Event:
    return ChallengeIssued(
        subscription_id=sid,
        challenge_id=cid,
        generation=generation,
        endpoint_digest="d",
        nonce_sha256="n",
        key_id="k1",
        expires_at=at(5),
        at=at(),
    )


def passed(sid: str, cid: str, generation: int = 1) -> Event:
    return ChallengePassed(
        subscription_id=sid,
        challenge_id=cid,
        generation=generation,
        key_id="k1",
        peer_address="127.0.0.1",
        resolved_addresses=["127.0.0.1"],
        spki_sha256=None,
        at=at(),
    )


def failed_challenge(sid: str, cid: str, generation: int = 1) -> Event:
    return ChallengeFailed(
        subscription_id=sid, challenge_id=cid, generation=generation, reason="bad_mac", at=at()
    )


def state_changed(
    sid: str, command: str, from_state: str, to_state: str, generation: int = 1
) -> Event:
    return SubscriptionStateChanged(
        subscription_id=sid,
        command=command,
        from_state=from_state,
        to_state=to_state,
        generation=generation,
        at=at(),
    )


def planned(did: str, sid: str = "s1", event_id: str = "e1", receipts: bool = False) -> Event:
    return DeliveryPlanned(
        delivery_id=did,
        event_id=event_id,
        subscription_id=sid,
        tenant_id="t1",
        generation=1,
        endpoint="https://example.test/hook",
        endpoint_digest="d",
        payload_digest="sha-256=:p:",
        topic="order.created",
        owner="team-orders",
        receipts=receipts,
        max_attempts=5,
        at=at(),
    )


def admitted(
    did: str, attempt: int, key_id: str = "k1", reconciles: bool = False, minute: float = 0
) -> Event:
    return AttemptAdmitted(
        delivery_id=did,
        attempt=attempt,
        generation=1,
        subscription_version=4,
        endpoint="https://example.test/hook",
        payload_digest="sha-256=:p:",
        key_id=key_id,
        key_generation=1,
        signature_alg="ed25519",
        dispatcher="w1",
        lease_until=at(minute + 1),
        reconciles=reconciles,
        at=at(minute),
    )


def accepted(did: str, attempt: int, minute: float = 0) -> Event:
    return EndpointAccepted(
        delivery_id=did,
        attempt=attempt,
        status=204,
        peer_address="127.0.0.1",
        spki_sha256=None,
        duration_ms=3.0,
        at=at(minute),
    )


def failed(did: str, attempt: int, outcome: str = "RETRYABLE", minute: float = 0) -> Event:
    return AttemptFailed(
        delivery_id=did,
        attempt=attempt,
        outcome=outcome,
        code="http_500" if outcome == "RETRYABLE" else "response_lost",
        status=500 if outcome == "RETRYABLE" else None,
        request_written=True,
        retry_at=at(minute + 1),
        duration_ms=5.0,
        at=at(minute),
    )


def lost(did: str, attempt: int, minute: float = 0) -> Event:
    return AttemptLost(
        delivery_id=did, attempt=attempt, dispatcher="w1", retry_at=at(minute + 1), at=at(minute)
    )


def dead(did: str, attempt: int, owner: str = "team-orders") -> Event:
    return DeadLettered(
        delivery_id=did,
        attempt=attempt,
        owner=owner,
        reason="attempts_exhausted",
        replay=f"hookproof deliveries replay {did}",
        at=at(),
    )


def replay(did: str) -> Event:
    return DeliveryReplayRequested(delivery_id=did, by="ops", at=at())


def confirmed(
    did: str,
    sid: str = "s1",
    event_id: str = "e1",
    op: str = "op1",
    result: str = "applied",
    receipt_gen: int = 1,
    minute: float = 0,
) -> Event:
    return ApplicationConfirmed(
        delivery_id=did,
        event_id=event_id,
        subscription_id=sid,
        payload_digest="sha-256=:p:",
        operation_id=op,
        result=result,
        applied_at=at(minute),
        receipt_key_id=f"rk{receipt_gen}",
        receipt_key_generation=receipt_gen,
        receipt_digest="r",
        at=at(minute),
    )


def ingested(event_id: str, deliveries: list[str]) -> Event:
    return EventIngested(
        event_id=event_id,
        topic="order.created",
        version="1.0",
        aggregate_id="order-1",
        aggregate_version=1,
        occurred_at=at(),
        payload_digest="sha-256=:p:",
        body_size=10,
        deliveries=deliveries,
        at=at(),
    )


def key_created(kid: str, state: str = "ACTIVE", generation: int = 1) -> Event:
    return KeyCreated(
        key_id=kid,
        algorithm="ed25519",
        purpose="engine",
        generation=generation,
        state=KeyState(state),
        public_key="AAAA",
        max_message_lifetime_s=3600,
        created_at=T0,
        activated_at=T0 if state == "ACTIVE" else None,
    )


def key_activated(kid: str) -> Event:
    return KeyActivated(key_id=kid, at=T0)


def key_revoked(kid: str, reason: str = "compromised") -> Event:
    return KeyRevoked(
        key_id=kid, at=T0, reason=RevokeReason(reason), previous_state=KeyState.ACTIVE
    )


async def put(store: EventStore, stream: str, *events: Event, actor: str = "test") -> None:
    """Append to one stream (any expected version), as its own transaction."""
    await store.append([StreamAppend(stream, list(events), ANY, Metadata(actor=actor))])
