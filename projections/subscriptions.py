"""The subscription fold and its eligibility projection (``subscriptions`` table).

``evolve`` is pure and shared: the engine folds a stream to decide a command, the projection
folds the log into one row per subscription, kept inline (same transaction as the append) so
the dispatcher's admission check never reads a row behind the log.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

import msgspec

from hookproof.events import Event, RecordedEvent
from hookproof.events.queries import EVENT_QUERIES
from hookproof.events.subscription_events import (
    ChallengeFailed,
    ChallengeIssued,
    ChallengePassed,
    ChallengePublished,
    DriftDetected,
    SubscriptionAuthChanged,
    SubscriptionConfig,
    SubscriptionRegistered,
    SubscriptionStateChanged,
    SubscriptionUpdated,
    subscription_id_of,
    subscription_stream_id,
)

from .base import Projection, Row

__all__ = ["PendingChallenge", "PendingRow", "SubscriptionState", "Subscriptions", "evolve", "fold"]

EVENT_SQL = EVENT_QUERIES.named("read_stream")


@dataclass(frozen=True)
class PendingChallenge:
    challenge_id: str
    generation: int
    endpoint_digest: str
    key_id: str
    expires_at: str
    #: a broker challenge the broker confirmed: the peer that carried it and the addresses
    #: its host resolved to (what a valid answer pins), None until then
    published: ChallengePublished | None = None
    nonce_sha256: str = ""


@dataclass(frozen=True, slots=True)
class PendingRow:
    """A subscription's pending challenge as its projection row holds it (None: none
    pending) and the challenge answered last: all an answer is checked against before its
    stream is read."""

    challenge_id: str | None
    nonce_sha256: str | None
    expires_at: str | None
    answered: str | None


@dataclass(frozen=True)
class SubscriptionState:
    """A subscription as the log says it is after ``version`` events."""

    subscription_id: str
    tenant_id: str
    generation: int
    state: str
    config: SubscriptionConfig
    version: int
    created_at: str
    updated_at: str
    pending: PendingChallenge | None = None
    consumed_challenges: frozenset[str] = frozenset()
    verified_generation: int = 0
    proven_key_id: str | None = None
    pinned_addresses: tuple[str, ...] = ()
    spki_sha256: str | None = None
    issuer: str | None = None
    last_reason: str | None = None
    #: the status of the last challenge answered with a status other than 200 (``bad_status``)
    last_status: int | None = None
    #: what the last failed challenge's ``detail`` said (a broker's refusal text), if anything
    last_detail: str | None = None
    #: the challenge answered (passed or failed) last
    answered_challenge: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)


def evolve(state: SubscriptionState | None, event: Event, version: int) -> SubscriptionState:
    """The state after one event of the subscription's stream."""
    if isinstance(event, SubscriptionRegistered):
        return SubscriptionState(
            subscription_id=event.subscription_id,
            tenant_id=event.tenant_id,
            generation=event.generation,
            state="PENDING_CHALLENGE",
            config=event.config,
            version=version,
            created_at=event.at,
            updated_at=event.at,
        )
    if state is None:
        raise ValueError(f"{event.type} before subscription.registered")
    if isinstance(event, SubscriptionUpdated):
        regenerated = event.generation != state.generation
        return replace(
            state,
            generation=event.generation,
            config=event.config,
            state="PENDING_CHALLENGE" if regenerated else state.state,
            pending=None if regenerated else state.pending,
            pinned_addresses=() if regenerated else state.pinned_addresses,
            spki_sha256=None if regenerated else state.spki_sha256,
            version=version,
            updated_at=event.at,
        )
    if isinstance(event, SubscriptionAuthChanged):
        return replace(
            state,
            config=msgspec.structs.replace(state.config, auth=event.auth),
            version=version,
            updated_at=event.at,
        )
    if isinstance(event, SubscriptionStateChanged):
        return replace(
            state,
            state=event.to_state,
            generation=event.generation,
            pending=None if event.generation != state.generation else state.pending,
            last_reason=event.reason,
            last_detail=None,
            version=version,
            updated_at=event.at,
        )
    if isinstance(event, ChallengeIssued):
        return replace(
            state,
            pending=PendingChallenge(
                event.challenge_id,
                event.generation,
                event.endpoint_digest,
                event.key_id,
                event.expires_at,
                nonce_sha256=event.nonce_sha256,
            ),
            version=version,
            updated_at=event.at,
        )
    if isinstance(event, ChallengePublished):
        pending = state.pending
        if pending is not None and pending.challenge_id == event.challenge_id:
            pending = replace(pending, published=event)
        return replace(state, pending=pending, version=version, updated_at=event.at)
    if isinstance(event, ChallengePassed):
        return replace(
            state,
            pending=None,
            consumed_challenges=state.consumed_challenges | {event.challenge_id},
            answered_challenge=event.challenge_id,
            verified_generation=event.generation,
            proven_key_id=event.key_id,
            pinned_addresses=tuple(sorted(event.resolved_addresses)),
            spki_sha256=event.spki_sha256,
            issuer=event.issuer,
            version=version,
            updated_at=event.at,
        )
    if isinstance(event, ChallengeFailed):
        pending = state.pending
        consumed = state.consumed_challenges
        answered = state.answered_challenge
        if pending is not None and pending.challenge_id == event.challenge_id:
            pending = None
            consumed = consumed | {event.challenge_id}
            answered = event.challenge_id
        return replace(
            state,
            pending=pending,
            consumed_challenges=consumed,
            answered_challenge=answered,
            last_reason=event.reason,
            last_status=event.status,
            last_detail=event.detail,
            version=version,
            updated_at=event.at,
        )
    if isinstance(event, DriftDetected):
        return replace(
            state, last_reason=event.reason, last_detail=None, version=version, updated_at=event.at
        )
    return replace(state, version=version)


def fold(events: list[RecordedEvent]) -> SubscriptionState | None:
    state: SubscriptionState | None = None
    for ev in events:
        state = evolve(state, ev.decode(), ev.stream_version)
    return state


def _config_json(config: SubscriptionConfig) -> str:
    return msgspec.json.encode(config).decode()


class Subscriptions(Projection):
    """One row per subscription: what the API lists and what the dispatcher admits against."""

    name = "subscriptions"
    table = "subscriptions"
    columns = (
        "subscription_id",
        "tenant_id",
        "generation",
        "state",
        "endpoint",
        "endpoint_digest",
        "topics",
        "event_versions",
        "config",
        "stream_version",
        "pinned_addresses",
        "spki_sha256",
        "proven_key_id",
        "expires_at",
        "created_at",
        "updated_at",
        "consumer_id",
        "pending_challenge_id",
        "pending_nonce_sha256",
        "pending_expires_at",
        "answered_challenge_id",
        "filters_key",
    )
    key_column = "subscription_id"
    categories = ("subscription",)
    inline = True

    def key(self, event: RecordedEvent) -> str | None:
        sid = event.stream_id
        return subscription_id_of(sid)

    async def apply_incremental(
        self, conn: Any, events: Sequence[RecordedEvent], table: str
    ) -> int:
        """Refold each touched stream from the log (streams are short; rows hold no history)."""
        touched = sorted({k for e in events if (k := self.key(e)) is not None})
        rows = []
        for sid in touched:
            recs = await conn.fetch(
                EVENT_SQL["read_stream"], subscription_stream_id(sid), 1, None, None
            )
            state = fold([RecordedEvent.from_record(r) for r in recs])
            if state is not None:
                rows.append(self.record(_to_row(state)))
        if rows:
            await conn.executemany(self.sql("upsert", table), rows)
        return len(rows)

    def evolve(self, row: Row | None, event: RecordedEvent) -> Row:
        state = _from_row(row) if row is not None else None
        new = evolve(state, event.decode(), event.stream_version)
        return _to_row(new)


def _to_row(s: SubscriptionState) -> Row:
    return {
        "subscription_id": s.subscription_id,
        "tenant_id": s.tenant_id,
        "generation": s.generation,
        "state": s.state,
        "endpoint": s.config.endpoint,
        "endpoint_digest": s.config.endpoint_digest,
        "topics": list(s.config.topics),
        "event_versions": list(s.config.event_versions),
        "config": _config_json(s.config),
        "stream_version": s.version,
        "pinned_addresses": list(s.pinned_addresses),
        "spki_sha256": s.spki_sha256,
        "proven_key_id": s.proven_key_id,
        "expires_at": _ts(s.config.expires_at),
        "created_at": _ts(s.created_at),
        "updated_at": _ts(s.updated_at),
        "consumer_id": s.config.consumer_id,
        "pending_challenge_id": s.pending.challenge_id if s.pending else None,
        "pending_nonce_sha256": s.pending.nonce_sha256 if s.pending else None,
        "pending_expires_at": s.pending.expires_at if s.pending else None,
        "answered_challenge_id": s.answered_challenge,
        "filters_key": s.config.filters.index_key if s.config.filters is not None else None,
        "_state": s,
    }


def _ts(text: str | None) -> datetime | None:
    return datetime.fromisoformat(text) if text else None


def _from_row(row: Row) -> SubscriptionState:
    cached = row.get("_state")
    if isinstance(cached, SubscriptionState):
        return cached
    raise LookupError("subscription rows are rebuilt from the stream, not from columns")
