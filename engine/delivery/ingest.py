"""Ingest: canonicalise once, plan one delivery per eligible subscription, all in one append."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import asyncpg
import msgspec

from hookproof.errors import ConflictError, ValidationError
from hookproof.events import NO_STREAM, EventStore, Metadata, StreamAppend
from hookproof.events.canonical import canonical_json
from hookproof.events.delivery_events import (
    DeliveryPlanned,
    EventIngested,
    EventPayloadConflict,
    event_stream_id,
)
from hookproof.events.sqlfiles import query
from hookproof.projections.deliveries import DeliveryLedger
from hookproof.schemas.api import EventIn
from hookproof_subscriber import content_digest

from .. import tracing
from ..notifications.decide import is_notification_topic, names_notifications
from ..subscriptions.matching import filter_matches, topic_matches
from ..subscriptions.validation import parse_time, printable

__all__ = ["IngestResult", "IngestService", "deliveries_inline", "delivery_id_for"]

PKG = "hookproof.engine"
_ID = re.compile(r"^[A-Za-z0-9._:\-]{1,200}$")
_VERSION = re.compile(r"^(0|[1-9][0-9]{0,4})\.(0|[1-9][0-9]{0,4})$")
_LEDGER = DeliveryLedger()


def delivery_id_for(tenant_id: str, event_id: str, subscription_id: str) -> str:
    """Stable: the same (tenant, event, subscription) always has the same delivery id."""
    h = hashlib.sha256(f"{tenant_id}\0{event_id}\0{subscription_id}".encode()).hexdigest()
    return "dlv_" + h[:28]


async def deliveries_inline(conn: asyncpg.Connection, recorded: list[Any]) -> None:
    """Inline projection hook for the ledger (same transaction as the delivery events)."""
    from hookproof.projections.projector import apply_events

    if any(e.category == "delivery" for e in recorded):
        await apply_events(conn, _LEDGER, [e for e in recorded if e.category == "delivery"])


class IngestResult(msgspec.Struct, frozen=True):
    event_id: str
    payload_digest: str
    deliveries: list[dict[str, str]]
    created: bool


def canonical_body(e: EventIn) -> bytes:
    return canonical_json(
        {
            "type": e.topic,
            "eventId": e.event_id,
            "version": e.version,
            "aggregateId": e.aggregate_id,
            "aggregateVersion": e.aggregate_version,
            "occurredAt": e.occurred_at,
            "payload": e.payload,
        }
    )


def _topic_patterns(topic: str) -> list[str]:
    parts = topic.split(".")
    return [topic, "*", *(".".join(parts[:i]) + ".*" for i in range(1, len(parts)))]


def validate_event(e: EventIn) -> int:
    if not _ID.match(e.event_id):
        raise ValidationError("eventId must be 1..200 of [A-Za-z0-9._:-]", field="eventId")
    if not e.topic or len(e.topic) > 200 or "*" in e.topic or not printable(e.topic):
        raise ValidationError("topic must be 1..200 characters without '*'", field="topic")
    m = _VERSION.match(e.version)
    if not m:
        raise ValidationError('version must be "MAJOR.MINOR"', field="version")
    if not e.aggregate_id or len(e.aggregate_id) > 200 or not printable(e.aggregate_id):
        raise ValidationError("aggregateId must be 1..200 characters", field="aggregateId")
    if e.aggregate_version < 0 or e.aggregate_version > 2**62:
        raise ValidationError(
            "aggregateVersion must be a non-negative integer", field="aggregateVersion"
        )
    parse_time(e.occurred_at, "occurredAt")
    return int(m.group(1))


class IngestService:
    def __init__(
        self, store: EventStore, *, clock: Callable[[], datetime] = lambda: datetime.now(UTC)
    ) -> None:
        self.store = store
        self.clock = clock
        if deliveries_inline not in store.inline:
            store.inline.append(deliveries_inline)

    async def ingest(
        self, tenant_id: str, e: EventIn, *, actor: str, internal: bool = False
    ) -> IngestResult:
        """``internal``: the engine's own notifications, the only events allowed under the
        reserved ``hookproof.`` topic prefix."""
        major = validate_event(e)
        if not internal and is_notification_topic(e.topic):
            raise ValidationError(
                "topics under 'hookproof.' are reserved for the engine's own notifications",
                field="topic",
                code="reserved_topic",
            )
        with tracing.span(
            "hookproof.ingest",
            {
                "hookproof.tenant_id": tenant_id,
                "hookproof.event_id": e.event_id,
                "hookproof.topic": e.topic,
            },
        ) as span:
            result = await self._record(tenant_id, e, major, actor)
            span.set("hookproof.planned_deliveries", len(result.deliveries))
            span.set("hookproof.created", result.created)
            return result

    async def _record(self, tenant_id: str, e: EventIn, major: int, actor: str) -> IngestResult:
        body = canonical_body(e)
        digest = content_digest(body)
        now = self.clock()
        async with self.store.pool.acquire() as conn:
            async with conn.transaction():
                stream_id = event_stream_id(tenant_id, e.event_id)
                inserted = await conn.fetchval(
                    query("ingest_body_insert", PKG),
                    tenant_id,
                    e.event_id,
                    stream_id,
                    digest,
                    body,
                    e.topic,
                )
                if inserted is not None:
                    return await self._plan(
                        conn, tenant_id, stream_id, e, major, body, digest, now, actor
                    )
                existing = await self._existing(conn, tenant_id, e, digest, now, actor)
                if not isinstance(existing, _PayloadConflict):
                    return existing
        raise existing  # committed: the conflict event, and nothing else

    async def _plan(
        self,
        conn: asyncpg.Connection,
        tenant_id: str,
        stream_id: str,
        e: EventIn,
        major: int,
        body: bytes,
        digest: str,
        now: datetime,
        actor: str,
    ) -> IngestResult:
        """Inside the ingest transaction: one delivery per eligible subscription, one append."""
        rows = await conn.fetch(
            query("ingest_candidates", PKG), tenant_id, _topic_patterns(e.topic)
        )
        notification = is_notification_topic(e.topic)
        appends: list[StreamAppend] = []
        deliveries: list[dict[str, str]] = []
        meta = Metadata(actor=actor, correlation_id=e.event_id)
        for r in rows:
            if r["tenant_id"] != tenant_id:  # the query is tenant-scoped; never trust one filter
                continue
            if major not in r["event_versions"] or not topic_matches(r["topics"], e.topic):
                continue
            if notification and not names_notifications(r["topics"]):
                continue  # a bare '*' never brings the engine's notifications
            config = msgspec.json.decode(r["config"])
            if not filter_matches(config.get("filter"), e.payload):
                continue
            did = delivery_id_for(tenant_id, e.event_id, r["subscription_id"])
            deliveries.append({"deliveryId": did, "subscriptionId": r["subscription_id"]})
            appends.append(
                StreamAppend(
                    f"delivery-{did}",
                    [
                        DeliveryPlanned(
                            delivery_id=did,
                            event_id=e.event_id,
                            subscription_id=r["subscription_id"],
                            tenant_id=tenant_id,
                            generation=r["generation"],
                            endpoint=r["endpoint"],
                            endpoint_digest=r["endpoint_digest"],
                            payload_digest=digest,
                            topic=e.topic,
                            owner=config["owner"],
                            receipts=config.get("receipt_key") is not None,
                            max_attempts=config["retry_policy"]["max_attempts"],
                            at=now.isoformat(),
                        )
                    ],
                    NO_STREAM,
                    meta,
                )
            )
        deliveries.sort(key=lambda d: d["deliveryId"])
        appends.insert(
            0,
            StreamAppend(
                stream_id,
                [
                    EventIngested(
                        event_id=e.event_id,
                        tenant_id=tenant_id,
                        topic=e.topic,
                        version=e.version,
                        aggregate_id=e.aggregate_id,
                        aggregate_version=e.aggregate_version,
                        occurred_at=e.occurred_at,
                        payload_digest=digest,
                        body_size=len(body),
                        deliveries=[d["deliveryId"] for d in deliveries],
                        at=now.isoformat(),
                    )
                ],
                NO_STREAM,
                meta,
            ),
        )
        await self.store.append(appends, conn=conn)
        return IngestResult(e.event_id, digest, deliveries, True)

    async def _existing(
        self,
        conn: asyncpg.Connection,
        tenant_id: str,
        e: EventIn,
        digest: str,
        now: datetime,
        actor: str,
    ) -> IngestResult | _PayloadConflict:
        """This tenant's event of that id: the same payload is idempotent, another a conflict.

        The conflict goes to the stream the tenant's event lives in (a legacy
        ``event-<eventId>`` stream for events ingested before ids were tenant-scoped)."""
        row = await conn.fetchrow(query("ingest_body_get", PKG), tenant_id, e.event_id)
        assert row is not None
        if row["payload_digest"] != digest:
            await self.store.append(
                [
                    StreamAppend(
                        row["stream_id"],
                        [
                            EventPayloadConflict(
                                event_id=e.event_id,
                                tenant_id=tenant_id,
                                existing_digest=row["payload_digest"],
                                offered_digest=digest,
                                at=now.isoformat(),
                            )
                        ],
                        metadata=Metadata(actor=actor, correlation_id=e.event_id),
                    )
                ],
                conn=conn,
            )
            return _PayloadConflict(
                "this eventId was already ingested with another payload",
                code="event_payload_conflict",
                eventId=e.event_id,
                payloadDigest=row["payload_digest"],
            )
        rows = await conn.fetch(query("deliveries_of_event", PKG), tenant_id, e.event_id)
        deliveries = [
            {"deliveryId": r["delivery_id"], "subscriptionId": r["subscription_id"]} for r in rows
        ]
        return IngestResult(e.event_id, digest, deliveries, False)


class _PayloadConflict(ConflictError):
    """Raised after the conflict event is appended; the transaction must still commit."""
