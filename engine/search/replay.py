"""Bulk replay as a job (issue 54 item 2): the deliveries a search finds, replayed at a rate
the tenant sets, visible and cancellable.

``start`` selects every matching delivery once (the count a dry run answers for the same
search), records them with the job (``replays``, ``replay_items``: migration 1061) and a
``replay.started`` event (the search's digest, the count, who asked), and runs the job in the
background: one delivery at a time, paced by :func:`due_after` (never faster than the rate),
each one claimed first (a cancel and a claim never interleave) and replayed with its own
``delivery.replay_requested`` naming the replay, or recorded FAILED with the reason it could
not be (the ledger's ``replay`` rule: e.g. in flight). A cancel leaves every delivery not yet
claimed untouched (CANCELLED) and says how many. Nothing here sends: the dispatcher claims the
replayed deliveries like any other, with the same admission.
"""

from __future__ import annotations

import asyncio
import re
import secrets
from collections.abc import Callable, Coroutine
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any, Final

import msgspec
import structlog

from hookproof.errors import ConcurrencyConflict, ConflictError, HookproofError, NotFound
from hookproof.events import EventStore, Metadata, StreamAppend
from hookproof.events.delivery_events import DeliveryReplayRequested, delivery_stream_id
from hookproof.events.replay_events import (
    ReplayCancelled,
    ReplayFinished,
    ReplayStarted,
    replay_stream_id,
)
from hookproof.projections.ledger import ledger_next
from hookproof.schemas.search import REPLAY_MAX

from ..db.queries import ENGINE_QUERIES
from ..db.repository import PoolRepository
from ..delivery.repository import DeliveryRepository
from ..delivery.streams import append_to_deliveries
from .query import SearchQuery, query_digest
from .search import Search

__all__ = ["REPLAY_ID", "SAMPLE", "ReplayTooLarge", "Replays", "due_after"]

log = structlog.get_logger("hookproof.replay")
#: runs a job beside the request (the engine's background jobs: awaited by drain, cancelled at
#: close)
Spawn = Callable[[Coroutine[Any, Any, None], str], object]
SQL = ENGINE_QUERIES.named(
    "replay_insert",
    "replay_get",
    "replay_claim",
    "replay_item_done",
    "replay_cancel",
    "replay_finish",
)
REPLAY_ID: Final = re.compile(r"^rpl_[0-9a-f]{24}$")
#: how many delivery ids a dry run shows
SAMPLE: Final = 10


class ReplayTooLarge(HookproofError):
    code = "replay_too_large"
    status = 422
    title = "Replay too large"


def due_after(started: float, index: int, rate_per_second: float) -> float:
    """When (on the monotonic clock) the ``index``-th delivery of a replay may go: never
    sooner than ``index / rate`` after the start, so no window of ``t`` seconds holds more
    than ``rate * t + 1`` of them."""
    return started + index / rate_per_second


def _view(r: Any) -> dict[str, Any]:
    return {
        "id": r["replay_id"],
        "state": r["state"],
        "total": r["total"],
        "ratePerSecond": r["rate_per_second"],
        "queryDigest": r["query_digest"],
        "requestedBy": r["requested_by"],
        "progress": {
            "replayed": r["replayed"],
            "failed": r["failed"],
            "cancelled": r["cancelled"],
            "pending": r["pending"],
        },
        "createdAt": r["created_at"].isoformat(),
        "updatedAt": r["updated_at"].isoformat(),
    }


class Replays(PoolRepository):
    """Bulk replays of one engine: started, run by ``spawn``, read and cancelled."""

    def __init__(
        self,
        store: EventStore,
        search: Search,
        spawn: Spawn,
        *,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
    ) -> None:
        super().__init__(store.pool)
        self.store = store
        self.search = search
        self.spawn = spawn
        self.clock = clock
        self.deliveries = DeliveryRepository.of(store)

    async def _selection(self, q: SearchQuery) -> list[str]:
        # every match: a cursor in the body does not narrow a replay
        ids = await self.search.all_delivery_ids(replace(q, before=None), REPLAY_MAX + 1)
        if len(ids) > REPLAY_MAX:
            raise ReplayTooLarge(
                f"the search finds more than {REPLAY_MAX} deliveries: narrow it",
                most=REPLAY_MAX,
            )
        return ids

    async def dry_run(self, q: SearchQuery) -> dict[str, Any]:
        """How many deliveries a replay of ``q`` takes now, and the newest few of them."""
        ids = await self._selection(q)
        return {
            "dryRun": True,
            "count": len(ids),
            "sample": ids[:SAMPLE],
            "queryDigest": query_digest(q.source),
        }

    async def start(self, q: SearchQuery, *, rate_per_second: float, actor: str) -> dict[str, Any]:
        """Select, record (``replay.started``) and start the job; its view (202)."""
        ids = list(reversed(await self._selection(q)))  # oldest first
        replay_id = "rpl_" + secrets.token_hex(12)
        digest = query_digest(q.source)
        async with self.transaction() as conn:
            await conn.execute(
                SQL["replay_insert"],
                replay_id,
                q.tenant_id,
                q.consumer_id,
                digest,
                msgspec.json.encode(q.source).decode(),
                rate_per_second,
                actor,
                ids,
            )
        started = ReplayStarted(
            replay_id=replay_id,
            tenant_id=q.tenant_id,
            query_digest=digest,
            query=q.source,
            count=len(ids),
            rate_per_second=rate_per_second,
            by=actor,
            consumer_id=q.consumer_id,
            at=self.clock().isoformat(),
        )
        await self.store.append(
            [StreamAppend(replay_stream_id(replay_id), [started], 0, Metadata(actor=actor))]
        )
        log.info("replay_started", replay_id=replay_id, count=len(ids), rate=rate_per_second)
        self.spawn(self.run(replay_id, q.tenant_id, rate_per_second, actor), f"replay-{replay_id}")
        return await self.get(q.tenant_id, replay_id, q.consumer_id)

    async def get(self, tenant_id: str, replay_id: str, consumer_id: str | None) -> dict[str, Any]:
        """The tenant's replay (a portal session: only one it may see), else 404."""
        row = await self.pool.fetchrow(SQL["replay_get"], replay_id, tenant_id)
        if row is None or (consumer_id is not None and row["consumer_id"] != consumer_id):
            raise NotFound("no such replay", code="replay_not_found")
        return _view(row)

    async def cancel(
        self, tenant_id: str, replay_id: str, consumer_id: str | None, *, actor: str
    ) -> dict[str, Any]:
        """Stop a running replay: the deliveries it had not reached stay as they are."""
        await self.get(tenant_id, replay_id, consumer_id)  # 404 unless visible
        row = await self.pool.fetchrow(SQL["replay_cancel"], replay_id, tenant_id)
        if row is None:
            view = await self.get(tenant_id, replay_id, consumer_id)
            raise ConflictError(
                f"a {view['state']} replay cannot be cancelled",
                code="replay_not_running",
                state=view["state"],
            )
        view = await self.get(tenant_id, replay_id, consumer_id)
        progress = view["progress"]
        event = ReplayCancelled(
            replay_id=replay_id,
            by=actor,
            replayed=progress["replayed"],
            failed=progress["failed"],
            cancelled=int(row["cancelled"]),
            at=self.clock().isoformat(),
        )
        await self.store.append(
            [StreamAppend(replay_stream_id(replay_id), [event], "any", Metadata(actor=actor))]
        )
        log.info("replay_cancelled", replay_id=replay_id, cancelled=event.cancelled)
        return view

    async def run(self, replay_id: str, tenant_id: str, rate_per_second: float, actor: str) -> None:
        """The job: one delivery at a time, paced, until none is pending or it is cancelled."""
        loop = asyncio.get_running_loop()
        started = loop.time()
        index = 0
        while True:
            wait = due_after(started, index, rate_per_second) - loop.time()
            if wait > 0:  # paced before the claim: a cancel meanwhile stops it
                await asyncio.sleep(wait)
            claimed = await self.pool.fetchrow(SQL["replay_claim"], replay_id)
            if claimed is None:
                break
            index += 1
            status, reason = await self._replay_one(
                replay_id, tenant_id, claimed["delivery_id"], actor
            )
            await self.pool.execute(
                SQL["replay_item_done"], replay_id, claimed["seq"], status, reason
            )
        done = await self.pool.fetchrow(SQL["replay_finish"], replay_id)
        if done is None:
            return  # cancelled: its event says so
        event = ReplayFinished(
            replay_id=replay_id,
            replayed=int(done["replayed"]),
            failed=int(done["failed"]),
            at=self.clock().isoformat(),
        )
        await self.store.append(
            [StreamAppend(replay_stream_id(replay_id), [event], "any", Metadata(actor=actor))]
        )
        log.info("replay_finished", replay_id=replay_id, replayed=event.replayed)

    async def _replay_one(
        self, replay_id: str, tenant_id: str, delivery_id: str, actor: str
    ) -> tuple[str, str | None]:
        for _ in range(3):  # the delivery moved meanwhile: read it again
            row = await self.deliveries.get(tenant_id, delivery_id)
            if row is None:
                return "FAILED", "delivery_not_found"
            if ledger_next(row["state"], "replay") is None:
                return "FAILED", f"replay_not_allowed:{row['state']}"
            event = DeliveryReplayRequested(
                delivery_id=delivery_id,
                by=actor,
                at=self.clock().isoformat(),
                replay_id=replay_id,
            )
            append = StreamAppend(
                delivery_stream_id(delivery_id),
                [event],
                row["stream_version"],
                Metadata(actor=actor, correlation_id=row["event_id"], causation_id=replay_id),
            )
            try:
                await append_to_deliveries(self.store, [append])
            except ConcurrencyConflict:
                continue
            return "REPLAYED", None
        return "FAILED", "replay_race"
