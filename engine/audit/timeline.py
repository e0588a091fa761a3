"""Timelines of a delivery, a subscription or a business event, and their state as of a time.

Every view is a fold of the pure ``evolve`` functions over the stream as read with
``read_stream(..., as_of=)``: the state at a past moment is computed only from the events
recorded up to then, never from a projection.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from msgspec import UNSET

from hookproof.errors import NotFound, ValidationError
from hookproof.events import Event, EventStore, RecordedEvent
from hookproof.events.delivery_events import (
    ApplicationConfirmed,
    AttemptAdmitted,
    AttemptFailed,
    AttemptLost,
    DeadLettered,
    DeliveriesRecovered,
    DeliveryPlanned,
    DeliveryQuarantined,
    DeliveryReplayRequested,
    DeliverySkipped,
    EndpointAccepted,
    EventIngested,
    EventPayloadConflict,
    OrderingGapSkipped,
    ReceiptConflict,
    event_stream_id,
    legacy_event_stream_id,
)
from hookproof.events.subscription_events import (
    ChallengeFailed,
    ChallengeIssued,
    ChallengePassed,
    ChallengePublished,
    DriftDetected,
    SubscriptionAuthChanged,
    SubscriptionRegistered,
    SubscriptionStateChanged,
    SubscriptionUpdated,
    subscription_stream_id,
)
from hookproof.projections.delivery_story import DeliveryStory, tell
from hookproof.projections.subscriptions import SubscriptionState
from hookproof.projections.subscriptions import evolve as evolve_subscription

from ..delivery.views import evidence_of
from ..destinations.registry import installed, reported_by
from ..subscriptions.validation import in_utc
from .repository import AuditRepository

__all__ = [
    "Entry",
    "Timeline",
    "broker_text",
    "delivery_timeline",
    "event_streams",
    "event_timeline",
    "parse_as_of",
    "subscription_timeline",
    "timeline_entry",
    "timeline_stream",
]


def parse_as_of(text: str | None, field: str = "asOf") -> datetime | None:
    """An ISO 8601 time (``Z`` allowed); a time without a zone is UTC. Errors name ``field``."""
    if text is None:
        return None
    try:
        value = datetime.fromisoformat(text.strip().replace("Z", "+00:00").replace("z", "+00:00"))
    except ValueError as exc:
        raise ValidationError(f"{field} is not an ISO 8601 time", field=field) from exc
    return in_utc(value if value.tzinfo is not None else value.replace(tzinfo=UTC), field)


def _iso(v: Any) -> Any:
    return v.isoformat() if isinstance(v, datetime) else v


@dataclass
class Entry:
    """One event of a timeline, with what it did and the evidence after it."""

    position: int
    stream_id: str
    version: int
    recorded_at: datetime
    type: str
    actor: str | None
    generation: int | None
    key_id: str | None
    outcome: str
    evidence: str
    state: str

    def to_json(self) -> dict[str, Any]:
        return {
            "position": self.position,
            "streamId": self.stream_id,
            "version": self.version,
            "recordedAt": self.recorded_at.isoformat(),
            "type": self.type,
            "actor": self.actor,
            "generation": self.generation,
            "keyId": self.key_id,
            "outcome": self.outcome,
            "evidence": self.evidence,
            "state": self.state,
        }


@dataclass
class Timeline:
    kind: str  # delivery | subscription | event
    id: str
    as_of: datetime | None
    entries: list[Entry]
    state: dict[str, Any] | None
    children: list[Timeline] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "kind": self.kind,
            "id": self.id,
            "asOf": _iso(self.as_of),
            "state": self.state,
            "entries": [e.to_json() for e in self.entries],
        }
        if self.kind == "event":
            out["deliveries"] = [c.to_json() for c in self.children]
        return out


def _actor(rec: RecordedEvent) -> str | None:
    try:
        return rec.meta().actor
    except Exception:  # a metadata blob we cannot read is shown as unknown, not fatal
        return None


def timeline_entry(
    rec: RecordedEvent,
    generation: int | None,
    key_id: str | None,
    outcome: str,
    evidence: str,
    state: str,
) -> Entry:
    """The timeline line of one recorded event (its actor read from the metadata)."""
    return Entry(
        rec.global_position,
        rec.stream_id,
        rec.stream_version,
        rec.recorded_at,
        rec.type,
        _actor(rec),
        generation,
        key_id,
        outcome,
        evidence,
        state,
    )


# -- deliveries --------------------------------------------------------------------------------


#: An answer framed by the connection's end that ended without a TLS close_notify.
_TRUNCATED = " (body truncated: the connection ended without TLS close_notify)"


def _delivery_outcome(story: DeliveryStory) -> tuple[int | None, str | None, str]:
    """(generation, key id, outcome) of the event the story read last."""
    ev = story.last
    assert ev is not None  # a told story has read an event
    if isinstance(ev, DeliveryPlanned):
        receipts = "receipts" if ev.receipts else "no receipts"
        held = f"; filters {ev.filters_digest} held" if ev.filters_digest else ""
        return ev.generation, None, f"planned for {ev.endpoint} ({receipts}{held})"
    if isinstance(ev, AttemptAdmitted):
        extra = " reconciling" if ev.reconciles else ""
        extra += " drain" if ev.drain else ""
        return ev.generation, ev.key_id, f"attempt {ev.attempt} admitted by {ev.dispatcher}{extra}"
    if isinstance(ev, EndpointAccepted):
        cut = _TRUNCATED if ev.body_truncated is True else ""
        reported = reported_by(ev.peer_address)
        if reported is not None:  # the engine did not see this answer itself
            return (
                None,
                None,
                f"attempt {ev.attempt}: {reported} {ev.status} ({ev.peer_address})",
            )
        answer = broker_text(ev.broker) if ev.broker is not UNSET else str(ev.status)
        return None, None, f"attempt {ev.attempt}: ENDPOINT_ACCEPTED {answer}{cut}"
    if isinstance(ev, AttemptFailed):
        status = f" {ev.status}" if ev.status is not None else ""
        cut = _TRUNCATED if ev.body_truncated is True else ""
        if ev.broker is not UNSET:
            status = f" ({broker_text(ev.broker)})"
        return None, None, f"attempt {ev.attempt}: {ev.outcome} {ev.code}{status}{cut}"
    if isinstance(ev, AttemptLost):
        return None, None, f"attempt {ev.attempt}: UNKNOWN_TRANSPORT dispatcher_lost"
    if isinstance(ev, DeadLettered):
        return None, None, f"DEAD_LETTER {ev.reason} (owner {ev.owner or '-'})"
    if isinstance(ev, DeliveryQuarantined):
        return ev.current_generation, None, f"QUARANTINED {ev.reason}"
    if isinstance(ev, DeliveryReplayRequested):
        replay = f" (bulk replay {ev.replay_id})" if ev.replay_id else ""
        return None, None, f"replay requested by {ev.by}{replay}"
    if isinstance(ev, DeliverySkipped):
        return None, None, f"SKIPPED by {ev.by} (releases its aggregate)"
    if isinstance(ev, OrderingGapSkipped):
        return (
            None,
            None,
            f"ordering gap skipped: versions {ev.missing_from}..{ev.missing_to} of "
            f"{ev.aggregate_id} never came in {ev.waited_s:.0f} s",
        )
    if isinstance(ev, ApplicationConfirmed):
        return (
            None,
            ev.receipt_key_id,
            f"APPLICATION_CONFIRMED {ev.result} op={ev.operation_id} "
            f"(receipt key gen {ev.receipt_key_generation})",
        )
    if isinstance(ev, ReceiptConflict):
        return None, None, f"receipt conflict: digest {ev.receipt_digest} quarantined"
    return None, None, ev.type


def _evidence_text(evidence: dict[str, str]) -> str:
    return f"{evidence['endpoint']} / {evidence['application']}"


def _verified_at(sub_events: list[RecordedEvent], moment: datetime) -> int | None:
    """The subscription's verified generation from its events recorded up to ``moment``."""
    state: SubscriptionState | None = None
    for rec in sub_events:
        if rec.recorded_at > moment:
            break
        state = evolve_subscription(state, rec.decode(), rec.stream_version)
    if state is None or state.verified_generation == 0:
        return None
    return state.verified_generation


def _row_json(row: dict[str, Any]) -> dict[str, Any]:
    return {k: _iso(v) for k, v in row.items()}


async def delivery_timeline(
    store: EventStore, delivery_id: str, *, as_of: datetime | None = None
) -> Timeline:
    """The delivery's events in order, and its ledger state (as of ``as_of``)."""
    events = await timeline_stream(store, "delivery", delivery_id, as_of)
    first = events[0].decode()
    sub_events: list[RecordedEvent] = []
    if isinstance(first, DeliveryPlanned):
        sub_events = await store.read_stream(
            subscription_stream_id(first.subscription_id), as_of=as_of
        )
    story: DeliveryStory | None = None
    entries: list[Entry] = []
    for rec in events:
        story = tell(story, rec.decode(), rec.stream_version)
        row = story.ledger.row()
        generation, key_id, outcome = _delivery_outcome(story)
        evidence = evidence_of(row, _verified_at(sub_events, rec.recorded_at))
        entries.append(
            timeline_entry(
                rec,
                generation if generation is not None else story.ledger.generation,
                key_id,
                outcome,
                _evidence_text(evidence),
                story.ledger.state,
            )
        )
    assert story is not None
    moment = as_of or events[-1].recorded_at
    row = story.ledger.row()
    state = _row_json(row)
    state["evidence"] = evidence_of(row, _verified_at(sub_events, moment))
    return Timeline("delivery", delivery_id, as_of, entries, state)


def _by(as_of: datetime | None) -> str:
    return f" as of {as_of.isoformat()}" if as_of is not None else ""


async def timeline_stream(
    store: EventStore, kind: str, entity_id: str, as_of: datetime | None
) -> list[RecordedEvent]:
    """The events of stream ``<kind>-<entity_id>`` recorded up to ``as_of`` (all when None);
    ``NotFound`` when there are none."""
    events = await store.read_stream(f"{kind}-{entity_id}", as_of=as_of)
    if not events:
        raise NotFound(f"no {kind} {entity_id!r} in the log" + _by(as_of), code="not_found")
    return events


# -- subscriptions -----------------------------------------------------------------------------


def _subscription_outcome(ev: Event, before: SubscriptionState | None) -> tuple[str | None, str]:
    if isinstance(ev, SubscriptionRegistered):
        return ev.config.secret_key_id, f"registered for {ev.config.endpoint}"
    if isinstance(ev, SubscriptionUpdated):
        regen = (
            f" (generation {ev.previous_generation} -> {ev.generation})"
            if ev.generation != ev.previous_generation
            else ""
        )
        return ev.config.secret_key_id, f"updated {', '.join(ev.changed)}{regen}"
    if isinstance(ev, SubscriptionStateChanged):
        reason = f": {ev.reason}" if ev.reason else ""
        return None, f"{ev.command}: {ev.from_state} -> {ev.to_state}{reason}"
    if isinstance(ev, ChallengeIssued):
        return ev.key_id, f"challenge {ev.challenge_id} issued"
    if isinstance(ev, ChallengePassed):
        peer = f" from {ev.peer_address}" if ev.peer_address else ""
        return ev.key_id, f"challenge {ev.challenge_id} passed{peer}"
    if isinstance(ev, ChallengePublished):
        return None, f"challenge {ev.challenge_id} published: {broker_text(ev.broker)}"
    if isinstance(ev, ChallengeFailed):
        return None, f"challenge {ev.challenge_id} failed: {ev.reason}"
    if isinstance(ev, DriftDetected):
        return None, f"drift: {ev.reason}"
    if isinstance(ev, SubscriptionAuthChanged):  # the digest only, never the credential
        auth = ev.auth
        return None, "auth removed" if auth is None else f"auth {auth.type} ({auth.digest})"
    if isinstance(ev, DeliveriesRecovered):
        until = f" until {ev.until}" if ev.until else ""
        states = ", ".join(ev.states)
        return None, f"recovered {ev.count} {states} delivery(ies) since {ev.since}{until}"
    return None, ev.type


def _subscription_evidence(s: SubscriptionState) -> str:
    if s.verified_generation and s.verified_generation == s.generation:
        return f"VERIFIED_ENDPOINT (generation {s.generation})"
    if s.verified_generation:
        return f"UNVERIFIED (verified generation {s.verified_generation} is stale)"
    return "UNVERIFIED"


def subscription_state_json(s: SubscriptionState) -> dict[str, Any]:
    return {
        "subscriptionId": s.subscription_id,
        "tenantId": s.tenant_id,
        "state": s.state,
        "generation": s.generation,
        "verifiedGeneration": s.verified_generation or None,
        "evidence": _subscription_evidence(s),
        "endpoint": s.config.endpoint,
        "owner": s.config.owner,
        "receipts": s.config.receipt_key is not None,
        "provenKeyId": s.proven_key_id,
        "pinnedAddresses": list(s.pinned_addresses),
        "pendingChallenge": s.pending.challenge_id if s.pending else None,
        "lastReason": s.last_reason,
        "version": s.version,
        "updatedAt": s.updated_at,
    }


async def subscription_timeline(
    store: EventStore, subscription_id: str, *, as_of: datetime | None = None
) -> Timeline:
    events = await timeline_stream(store, "subscription", subscription_id, as_of)
    state: SubscriptionState | None = None
    entries: list[Entry] = []
    for rec in events:
        ev = rec.decode()
        key_id, outcome = _subscription_outcome(ev, state)
        state = evolve_subscription(state, ev, rec.stream_version)
        generation = getattr(ev, "generation", None)
        entries.append(
            timeline_entry(
                rec,
                generation if isinstance(generation, int) else state.generation,
                key_id,
                outcome,
                _subscription_evidence(state),
                state.state,
            )
        )
    assert state is not None
    return Timeline("subscription", subscription_id, as_of, entries, subscription_state_json(state))


# -- business events ---------------------------------------------------------------------------


async def event_streams(
    store: EventStore, event_id: str, tenant_id: str | None = None
) -> list[tuple[str, str]]:
    """``(tenant, stream id)`` of every tenant's event with this id (one tenant's if named).

    Read from the stored bodies; without one (a log restored on its own), the tenant's own
    stream, then the legacy ``event-<eventId>`` stream, are looked up in the log."""
    # archived events left their bodies behind: their tombstones name them
    rows = await AuditRepository.of(store).event_streams(event_id, tenant_id)
    if rows:
        return sorted({(r["tenant_id"], r["stream_id"]) for r in rows})
    if tenant_id is not None:
        own = event_stream_id(tenant_id, event_id)
        if await store.read_stream(own, to_version=1):
            return [(tenant_id, own)]
    legacy = legacy_event_stream_id(event_id)
    first = await store.read_stream(legacy, to_version=1)
    if first:
        owner = _event_tenant(first[0])
        if tenant_id is None or owner == tenant_id:
            return [(owner or "", legacy)]
    return []


def _event_tenant(rec: RecordedEvent) -> str | None:
    """The tenant that wrote an event-stream event: its ``tenant_id``, else its actor."""
    ev = rec.decode()
    tenant = getattr(ev, "tenant_id", None)
    if tenant:
        return str(tenant)
    actor = _actor(rec) or ""
    return actor.removeprefix("tenant:") if actor.startswith("tenant:") else None


async def event_timeline(
    store: EventStore,
    event_id: str,
    *,
    tenant_id: str | None = None,
    as_of: datetime | None = None,
) -> Timeline:
    """One tenant's event: its ingest (and any payload conflict), then every delivery's timeline.

    Event ids are unique per tenant: without ``tenant_id`` the id must name exactly one
    tenant's event. In a legacy ``event-<eventId>`` stream (written when ids were global),
    conflicts offered by other tenants are left out: they are not this tenant's history."""
    found = await event_streams(store, event_id, tenant_id)
    if not found:
        whose = f" of tenant {tenant_id!r}" if tenant_id else ""
        raise NotFound(f"no event {event_id!r}{whose} in the log", code="not_found")
    if len(found) > 1:
        tenants = ", ".join(t for t, _ in found)
        raise ValidationError(
            f"event id {event_id!r} is used by {len(found)} tenants ({tenants}): name one",
            field="tenant",
            code="ambiguous_event_id",
        )
    owner, stream_id = found[0]
    events = await store.read_stream(stream_id, as_of=as_of)
    if not events:
        raise NotFound(f"no event {event_id!r} in the log" + _by(as_of), code="not_found")
    legacy = stream_id == legacy_event_stream_id(event_id)
    if legacy and owner:
        events = [r for r in events if r.stream_version == 1 or _event_tenant(r) in (owner, None)]
    entries: list[Entry] = []
    deliveries: list[str] = []
    ingested: EventIngested | None = None
    conflicts = 0
    for rec in events:
        ev = rec.decode()
        if isinstance(ev, EventIngested):
            ingested = ingested or ev
            deliveries.extend(d for d in ev.deliveries if d not in deliveries)
            outcome = f"ingested {ev.topic} v{ev.version}: {len(ev.deliveries)} delivery(ies)"
            entries.append(timeline_entry(rec, None, None, outcome, ev.payload_digest, "INGESTED"))
        elif isinstance(ev, EventPayloadConflict):
            conflicts += 1
            outcome = f"payload conflict: offered {ev.offered_digest} quarantined"
            entries.append(timeline_entry(rec, None, None, outcome, ev.existing_digest, "INGESTED"))
        else:
            entries.append(timeline_entry(rec, None, None, ev.type, "", "INGESTED"))
    children: list[Timeline] = []
    for did in deliveries:
        try:
            children.append(await delivery_timeline(store, did, as_of=as_of))
        except NotFound:
            continue  # planned in a transaction recorded after ``as_of`` (cannot happen today)
    state = {
        "eventId": event_id,
        "tenantId": owner or None,
        "streamId": stream_id,
        "topic": ingested.topic if ingested else None,
        "payloadDigest": ingested.payload_digest if ingested else None,
        "payloadConflicts": conflicts,
        "deliveries": [
            {
                "deliveryId": c.id,
                "subscriptionId": (c.state or {}).get("subscription_id"),
                "state": (c.state or {}).get("state"),
                "evidence": (c.state or {}).get("evidence"),
            }
            for c in children
        ],
    }
    return Timeline("event", event_id, as_of, entries, state, children)


def broker_text(broker: dict[str, Any]) -> str:
    """What a broker returned, in a line: AMQP confirmed/returned/nacked, JetStream stream,
    sequence and duplicate, and the peer that carried it."""
    parts: list[str] = [str(broker.get("type") or "broker")]
    amqp, js = broker.get("amqp"), broker.get("jetstream")
    if isinstance(amqp, dict):
        flags = [k for k in ("confirmed", "returned", "nacked") if amqp.get(k)]
        parts.append(",".join(flags) or "no confirmation")
        if amqp.get("returned"):
            parts.append(f"{amqp.get('replyCode')} {amqp.get('replyText')}")
    if isinstance(js, dict):
        dup = " duplicate" if js.get("duplicate") else ""
        parts.append(f"stream {js.get('stream')} seq {js.get('seq')}{dup}")
    own = [  # an installed kind's own answer, under its name
        (name, value)
        for name, value in broker.items()
        if isinstance(value, dict) and name not in ("amqp", "jetstream") and installed().get(name)
    ]
    for name, value in own:
        parts.append(f"{name} " + " ".join(f"{k} {v}" for k, v in sorted(value.items())))
    if amqp is None and js is None and not own:
        parts.append("published, no confirmation" if broker.get("published") else "not published")
    if broker.get("peerAddress"):
        parts.append(f"via {broker.get('peerAddress')}:{broker.get('peerPort')}")
    return " ".join(parts)
