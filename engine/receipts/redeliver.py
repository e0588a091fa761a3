"""Receipt timeout: a receipt-contract delivery accepted by a 2xx but never confirmed.

A 2xx proves only that something accepted the bytes; under the receipt contract the engine
expects a receipt. When none came within ``HOOKPROOF_RECEIPT_TIMEOUT`` seconds (default 900;
0 disables the worker), the delivery is sent again with the same identity (same eventId,
deliveryId and bytes; a new attempt), at most ``HOOKPROOF_RECEIPT_REDELIVERIES`` times
(default 3). The subscriber SDK deduplicates by event id and answers a retry of an event it
already applied by re-sending the original receipt, so a lost receipt is recovered and an
event dropped between the 2xx and the application is applied exactly once. A test event
(``hookproof-test-`` ids) is never sent again: its 2xx answers the test (the SDK confirms it).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from datetime import UTC, datetime

import structlog

from hookproof.errors import ConcurrencyConflict
from hookproof.events import EventStore, Metadata, StreamAppend
from hookproof.events.delivery_events import (
    REDELIVERY_ACTOR,
    DeliveryReplayRequested,
    delivery_stream_id,
)

from ..delivery.streams import append_to_deliveries
from .repository import ReceiptRepository

__all__ = ["REDELIVERY_ACTOR", "ReceiptRedeliverer"]

log = structlog.get_logger("hookproof.receipts")


class ReceiptRedeliverer:
    def __init__(
        self,
        store: EventStore,
        *,
        timeout_s: float = 900.0,
        max_redeliveries: int = 3,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
        repository: ReceiptRepository | None = None,
    ) -> None:
        self.store = store
        self.repository = repository or ReceiptRepository.of(store)
        self.timeout_s = timeout_s
        self.max_redeliveries = max_redeliveries
        self.clock = clock
        self.redelivered = 0
        self.exhausted = 0

    async def redeliver_overdue(self, older_than_s: float | None = None, limit: int = 200) -> int:
        """Schedule one more attempt for overdue unconfirmed deliveries; how many."""
        age = self.timeout_s if older_than_s is None else older_than_s
        rows = await self.repository.overdue(age, limit)
        n = 0
        for r in rows:
            stream = delivery_stream_id(r["delivery_id"])
            events = await self.store.read_stream(stream)
            done = sum(
                1
                for e in events
                if isinstance(ev := e.decode(), DeliveryReplayRequested)
                and ev.by == REDELIVERY_ACTOR
            )
            if done >= self.max_redeliveries:
                self.exhausted += 1
                continue
            event = DeliveryReplayRequested(
                delivery_id=r["delivery_id"], by=REDELIVERY_ACTOR, at=self.clock().isoformat()
            )
            with contextlib.suppress(ConcurrencyConflict):  # it moved (a receipt): skip
                await append_to_deliveries(
                    self.store,
                    [
                        StreamAppend(
                            stream,
                            [event],
                            r["stream_version"],
                            Metadata(actor=REDELIVERY_ACTOR, correlation_id=r["event_id"]),
                        )
                    ],
                )
                n += 1
                log.info(
                    "receipt_overdue_redelivery",
                    delivery_id=r["delivery_id"],
                    subscription_id=r["subscription_id"],
                    redelivery=done + 1,
                )
        self.redelivered += n
        return n

    async def run(self, stop: asyncio.Event) -> None:
        interval = max(1.0, min(60.0, self.timeout_s / 4))
        while not stop.is_set():
            try:
                await self.redeliver_overdue()
            except Exception as exc:
                log.warning("receipt_redelivery_tick_failed", error=type(exc).__name__)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), interval)
