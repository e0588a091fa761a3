"""Reading the ledger: a delivery with its evidence and attempts, an event, dead letters."""

from __future__ import annotations

import builtins
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from hookproof.errors import ConflictError, NotFound, StoreError
from hookproof.events import Event, EventStore, Metadata, StreamAppend
from hookproof.events.delivery_events import (
    DeliveryReplayRequested,
    DeliverySkipped,
    EventIngested,
    delivery_stream_id,
    event_stream_id,
)
from hookproof.projections.delivery_story import DeliveryStory, read_story

from ..challenge.disclosure import tenant_dead_letter_reason
from ..db.repository import Record
from .admission import ledger_next
from .repository import DeliveryRepository
from .stats_view import Window, stats_view
from .story_view import delivery_view, evidence_of, response_view
from .streams import append_to_deliveries

__all__ = ["DeliveryReader", "evidence_of", "response_view"]


def _command(delivery_id: str, row: Any, event: Event, actor: str) -> StreamAppend:
    """An operator's command on a delivery, expected at the version ``row`` was read at."""
    return StreamAppend(
        delivery_stream_id(delivery_id),
        [event],
        row["stream_version"],
        Metadata(actor=actor, correlation_id=row["event_id"]),
    )


def _iso(v: Any) -> Any:
    return v.isoformat() if hasattr(v, "isoformat") else v


class DeliveryReader:
    def __init__(self, store: EventStore, deliveries: DeliveryRepository) -> None:
        self.store = store
        self.deliveries = deliveries

    async def delivery(self, tenant_id: str, delivery_id: str) -> dict[str, Any]:
        """The delivery as its tenant sees it (:func:`.story_view.delivery_view`): the ledger
        projection's row and the story of its stream; an archived one, from its archived
        stream alone (``"archived": true``)."""
        row = await self.deliveries.get(tenant_id, delivery_id)
        if row is None:
            archived = await self._archived_story(tenant_id, delivery_id)
            if archived is None:
                raise NotFound("no such delivery", code="delivery_not_found")
            return {**await self._view(archived.ledger.row(), archived), "archived": True}
        return await self._view(dict(row), await self._story(delivery_id))

    async def _story(self, delivery_id: str) -> DeliveryStory | None:
        """The story of the delivery's stream (hot or archived), read once."""
        events = await self.store.read_stream(delivery_stream_id(delivery_id))
        return read_story((rec.decode(), rec.stream_version) for rec in events)

    async def _archived_story(self, tenant_id: str, delivery_id: str) -> DeliveryStory | None:
        """The story of an archived delivery, from its archived stream (only for its own
        tenant)."""
        if self.store.archive is None:
            return None
        owner = await self.deliveries.archived_owner(delivery_id)
        if owner is not None and owner != tenant_id:
            return None  # another tenant's: decided before any segment is touched
        try:
            story = await self._story(delivery_id)
        except StoreError:
            if owner is None:  # archived before owners were recorded: maybe not this tenant's
                return None
            raise
        if story is None or story.ledger.tenant_id != tenant_id:
            return None
        return story

    async def _view(self, row: dict[str, Any], story: DeliveryStory | None) -> dict[str, Any]:
        stored = await self.deliveries.body(row["tenant_id"], row["event_id"])
        return delivery_view(
            row,
            story,
            verified_generation=await self.deliveries.verified_generation(row["subscription_id"]),
            body=stored["body"] if stored is not None else None,
        )

    async def event(self, tenant_id: str, event_id: str) -> dict[str, Any]:
        """This tenant's event of that id; another tenant's event of the same id is invisible.
        Archived deliveries (and an archived event) are answered from the archive."""
        body = await self.deliveries.body(tenant_id, event_id)
        rows = await self.deliveries.of_event(tenant_id, event_id)
        stream = body["stream_id"] if body is not None else event_stream_id(tenant_id, event_id)
        ingested = await self._ingested(stream)
        if body is not None:
            topic, digest = body["topic"], body["payload_digest"]
        elif ingested is not None:
            topic, digest = ingested.topic, ingested.payload_digest
        else:
            raise NotFound("no such event", code="event_not_found")
        deliveries = [
            {
                "deliveryId": r["delivery_id"],
                "subscriptionId": r["subscription_id"],
                "state": r["state"],
                "evidence": evidence_of(dict(r)),
            }
            for r in rows
        ]
        hot = {r["delivery_id"] for r in rows}
        for did in ingested.deliveries if ingested is not None else []:
            if did in hot:
                continue
            story = await self._archived_story(tenant_id, did)
            if story is not None:
                deliveries.append(
                    {
                        "deliveryId": did,
                        "subscriptionId": story.ledger.subscription_id,
                        "state": story.ledger.state,
                        "evidence": evidence_of(story.ledger.row()),
                        "archived": True,
                    }
                )
        deliveries.sort(key=lambda d: d["deliveryId"])
        out = {
            "eventId": event_id,
            "topic": topic,
            "payloadDigest": digest,
            "deliveries": deliveries,
        }
        if body is None:
            out["archived"] = True
        return out

    async def _ingested(self, stream: str) -> EventIngested | None:
        """The event's ``event.ingested`` (hot or archived), when the store reads the archive."""
        if self.store.archive is None:
            return None
        events = await self.store.read_stream(stream, to_version=1)
        first = events[0].decode() if events else None
        return first if isinstance(first, EventIngested) else None

    async def attempt_stats(
        self,
        tenant_id: str,
        subscription_id: str,
        now: datetime,
        hours: int = 24,
        interval: str = "hour",
    ) -> dict[str, Any]:
        """Attempts of the last ``hours`` whole hours (and this one), per hour (or per UTC day:
        ``interval="day"``, the ``hours / 24`` days ending with today) and outcome, with their
        latency percentiles (:mod:`.stats_view`)."""
        window = Window(now, hours, interval)
        rows = await self.deliveries.attempt_stats(tenant_id, subscription_id, window.start)
        return stats_view(subscription_id, window, rows)

    async def attempt_stats_of(
        self,
        tenant_id: str,
        subscription_ids: Sequence[str],
        now: datetime,
        hours: int = 24,
        interval: str = "hour",
    ) -> dict[str, Any]:
        """:meth:`attempt_stats` of several subscriptions in one read: ``{"since", "items"}``,
        one item per id, in the order given, each exactly what the single route answers."""
        window = Window(now, hours, interval)
        rows = await self.deliveries.attempt_stats_of(tenant_id, subscription_ids, window.start)
        by_sub: dict[str, list[Record]] = {sid: [] for sid in subscription_ids}
        for r in rows:
            by_sub.setdefault(r["subscription_id"], []).append(r)
        return {
            "since": window.text[0],
            "items": [stats_view(sid, window, by_sub[sid]) for sid in subscription_ids],
        }

    async def dead_letters(self, tenant_id: str, limit: int = 200) -> builtins.list[dict[str, Any]]:
        return (await self.dead_letters_page(tenant_id, limit))[0]

    async def dead_letters_page(
        self,
        tenant_id: str,
        limit: int,
        before: tuple[datetime, str] | None = None,
        consumer_id: str | None = None,
    ) -> tuple[builtins.list[dict[str, Any]], tuple[datetime, str] | None]:
        """Newest first, from the ledger projection; the key to continue before, if more
        (only of ``consumer_id``'s subscriptions when given)."""
        rows = await self.deliveries.dead_letters(tenant_id, limit + 1, before, consumer_id)
        more = len(rows) > limit
        rows = rows[:limit]
        items = [
            {
                "deliveryId": r["delivery_id"],
                "eventId": r["event_id"],
                "subscriptionId": r["subscription_id"],
                "owner": r["owner"],
                "reason": tenant_dead_letter_reason(r["dead_letter_reason"]),
                "attempt": r["attempt"],
                "replay": f"POST /v1/deliveries/{r['delivery_id']}/replay",
                "deadSince": _iso(r["updated_at"]),
            }
            for r in rows
        ]
        nxt = (rows[-1]["updated_at"], rows[-1]["delivery_id"]) if more and rows else None
        return items, nxt

    async def _admitting(self, tenant_id: str, delivery_id: str, command: str, refused: str) -> Any:
        """The tenant's delivery row, if the ledger lets ``command`` act on its state now."""
        row = await self.deliveries.get(tenant_id, delivery_id)
        if row is None:
            raise NotFound("no such delivery", code="delivery_not_found")
        if ledger_next(row["state"], command) is None:
            raise ConflictError(
                f"a {row['state']} delivery cannot be {refused}",
                code=f"{command}_not_allowed",
                state=row["state"],
            )
        return row

    async def skip(
        self, tenant_id: str, delivery_id: str, *, actor: str, now: str
    ) -> dict[str, Any]:
        """Give a dead letter up: it releases its aggregate (ordered delivery) for good."""
        row = await self._admitting(tenant_id, delivery_id, "skip", "skipped (only a dead letter)")
        await self.store.append(
            [
                _command(
                    delivery_id,
                    row,
                    DeliverySkipped(delivery_id=delivery_id, by=actor, at=now),
                    actor,
                )
            ]
        )
        return await self.delivery(tenant_id, delivery_id)

    async def replay(
        self, tenant_id: str, delivery_id: str, *, actor: str, now: str
    ) -> dict[str, Any]:
        row = await self._admitting(tenant_id, delivery_id, "replay", "replayed")
        await append_to_deliveries(
            self.store,
            [
                _command(
                    delivery_id,
                    row,
                    DeliveryReplayRequested(delivery_id=delivery_id, by=actor, at=now),
                    actor,
                )
            ],
        )
        return await self.delivery(tenant_id, delivery_id)
