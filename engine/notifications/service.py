"""The notifier: tails the log for causes (``decide.cause_of``), works out which tenants hear
each one, and publishes the notification as a business event of that tenant through the
ordinary ingest, so it is planned, signed, ledgered and receipted like any other delivery.

It keeps a checkpoint (``projection_checkpoints``, name ``notifier``) and holds its row lock
while it works a page, so several daemons never work the same page at once. Publishing is
idempotent (the notification's event id is derived from the cause's event id and the tenant),
so a page worked again after a crash plans nothing twice.

Who hears what:

- ``hookproof.subscription.suspended`` / ``hookproof.subscription.drift_detected``: the
  subscription's tenant.
- ``hookproof.delivery.dead_lettered``: the delivery's tenant; never for a delivery of a
  notification (no loops).
- ``hookproof.key.compromised``: an engine key signs every ed25519 subscription, so every
  tenant with a live (not REVOKED/EXPIRED) ed25519 subscription hears it, with the list of its
  own affected subscriptions; a subscription secret's compromise is heard by its owner only.
- ``hookproof.rollout.paused``: tenants with live subscriptions in the rollout (all tenants
  with live subscriptions for a rollout over ``"all"``), each with its own subscription ids.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

import msgspec
import structlog

from hookproof.errors import HookproofError
from hookproof.events import EventStore, RecordedEvent
from hookproof.events.key_events import PURPOSE_SUBSCRIPTION, KeyCreated, key_stream_id
from hookproof.events.rollout_events import RolloutCreated, rollout_stream_id
from hookproof.projections.projector import consume, run_woken
from hookproof.schemas.api import EventIn

from .decide import (
    CAUSE_TYPES,
    DEAD_LETTERED,
    DRIFT_DETECTED,
    KEY_COMPROMISED,
    ROLLOUT_PAUSED,
    SUSPENDED,
    Cause,
    cause_of,
    is_notification_topic,
    notification_event,
)
from .repository import NotificationRepository

if TYPE_CHECKING:
    from ..ingest.ingest import IngestService

__all__ = ["Notifier", "listener_patterns"]

log = structlog.get_logger("hookproof.notifications")
CHECKPOINT = "notifier"
CATEGORIES = ("subscription", "delivery", "key", "rollout")
MAX_LISTED = 1000  # subscription ids listed in one notification's payload


def listener_patterns(topic: str) -> list[str]:
    """The topic and its ``prefix.*`` patterns (never a bare ``*``)."""
    parts = topic.split(".")
    return [topic, *(".".join(parts[:i]) + ".*" for i in range(1, len(parts)))]


class Notifier:
    def __init__(
        self,
        store: EventStore,
        ingest: IngestService,
        *,
        batch: int = 500,
        repository: NotificationRepository | None = None,
    ) -> None:
        self.store = store
        self.repository = repository or NotificationRepository.of(store)
        self.ingest = ingest
        self.batch = batch
        self.published = 0

    # -- who hears a cause ------------------------------------------------------------------

    async def audience(self, cause: Cause) -> dict[str, dict[str, Any]]:
        """tenant id -> extra payload facts for that tenant."""
        repo = self.repository
        if cause.topic in (SUSPENDED, DRIFT_DETECTED):
            tenant = await repo.subscription_tenant(cause.subject)
            return {tenant: {}} if tenant else {}
        if cause.topic == DEAD_LETTERED:
            row = await repo.delivery(cause.subject)
            if row is None:
                return {}
            if is_notification_topic(row["topic"]):
                log.info("notification_loop_suppressed", delivery_id=cause.subject)
                return {}
            extra: dict[str, Any] = {
                "eventId": row["event_id"],
                "subscriptionId": row["subscription_id"],
                "topic": row["topic"],
            }
            return {row["tenant_id"]: extra}
        if cause.topic == KEY_COMPROMISED:
            created = await self._first(key_stream_id(cause.subject))
            only = None
            extra = {"purpose": "engine"}
            if isinstance(created, KeyCreated):
                extra = {"purpose": created.purpose, "algorithm": created.algorithm}
                if created.purpose == PURPOSE_SUBSCRIPTION:
                    if created.subscription_id is None:
                        return {}
                    only = created.subscription_id
            rows = await repo.key_tenants(only)
            return {r["tenant_id"]: {**extra, **_affected(r["subscriptions"])} for r in rows}
        if cause.topic == ROLLOUT_PAUSED:
            created = await self._first(rollout_stream_id(cause.subject))
            subs = None
            if isinstance(created, RolloutCreated) and created.subscriptions is not None:
                subs = sorted({*created.subscriptions, *created.internal})
            rows = await repo.rollout_tenants(subs)
            return {r["tenant_id"]: _affected(r["subscriptions"]) for r in rows}
        return {}

    async def _first(self, stream: str) -> Any:
        events = await self.store.read_stream(stream, to_version=1)
        return events[0].decode() if events else None

    # -- publishing -------------------------------------------------------------------------

    async def publish(
        self,
        cause: Cause,
        *,
        source_event_id: str,
        source_version: int,
        occurred_at: Any,
        audience: dict[str, dict[str, Any]] | None = None,
    ) -> int:
        """Publish ``cause`` to each tenant of its audience that has a subscription naming the
        topic. Returns the number of notifications published. Callable by any engine part
        whose cause is not (yet) an event in the log the notifier reads."""
        audience = await self.audience(cause) if audience is None else audience
        if not audience:
            return 0
        listeners = await self.repository.listeners(listener_patterns(cause.topic), list(audience))
        n = 0
        for r in listeners:
            tenant = r["tenant_id"]
            doc = notification_event(
                cause,
                tenant_id=tenant,
                source_event_id=source_event_id,
                source_version=source_version,
                occurred_at=occurred_at,
                extra=audience[tenant],
            )
            try:
                result = await self.ingest.ingest(
                    tenant, msgspec.convert(doc, EventIn), actor="system:notifier", internal=True
                )
            except HookproofError as exc:  # recorded in the log, never retried forever
                log.warning(
                    "notification_failed", topic=cause.topic, tenant_id=tenant, code=exc.code
                )
                continue
            n += 1
            log.info(
                "notification_published",
                topic=cause.topic,
                tenant_id=tenant,
                event_id=doc["eventId"],
                subject=cause.subject,
                deliveries=len(result.deliveries),
                created=result.created,
            )
        self.published += n
        return n

    async def handle(self, rec: RecordedEvent) -> int:
        if rec.type not in CAUSE_TYPES:  # most of the log: not decoded at all
            return 0
        try:
            cause = cause_of(rec.decode())
        except Exception as exc:  # an event this version cannot read is not a cause
            log.warning(
                "notifier_undecodable", position=rec.global_position, error=type(exc).__name__
            )
            return 0
        if cause is None:
            return 0
        return await self.publish(
            cause,
            source_event_id=str(rec.event_id),
            source_version=rec.stream_version,
            occurred_at=rec.recorded_at,
        )

    # -- the worker -------------------------------------------------------------------------

    async def run_once(self) -> int:
        """Work every readable page; returns the number of notifications published."""

        async def publish_page(_conn: Any, page: list[RecordedEvent]) -> int:
            return sum([await self.handle(rec) for rec in page])

        return await consume(
            self.store,
            CHECKPOINT,
            publish_page,
            batch=self.batch,
            categories=CATEGORIES,
            payload_types=sorted(CAUSE_TYPES),  # the rest of the log's bytes stay in Postgres
        )

    async def run(
        self, stop: asyncio.Event, *, poll_interval: float = 0.5, min_interval: float = 0.05
    ) -> None:
        await run_woken(
            self.store,
            stop,
            self.run_once,
            poll_interval=poll_interval,
            min_interval=min_interval,
            tick_failed="notifier_tick_failed",
            listener_lost="notifier_listener_lost",
        )


def _affected(subscriptions: list[str]) -> dict[str, Any]:
    ids = list(subscriptions)
    return {"subscriptions": ids[:MAX_LISTED], "subscriptionCount": len(ids)}
