"""Appends to existing delivery streams in the one lock order: the ledger rows, then the log.

A delivery stream's append inserts its events and then, inline, updates the stream's
``deliveries`` row. The claim and the lease reconciler lock that row first
(``FOR UPDATE SKIP LOCKED``) and append after; a writer that inserted its event first and then
waited for the row formed a cycle with them (the claim waiting for the event's
(stream, version) key, the writer for the row): ``DeadlockDetectedError``. So every other
writer locks the rows first, in ``delivery_id`` order, and appends the streams sorted.
"""

from __future__ import annotations

from collections.abc import Sequence

from hookproof.events import ANY, EventStore, RecordedEvent, StreamAppend
from hookproof.events.delivery_events import delivery_id_of

from .repository import DeliveryRepository

__all__ = ["append_to_deliveries"]

async def append_to_deliveries(
    store: EventStore, appends: Sequence[StreamAppend], *, dispatch: bool = False
) -> list[RecordedEvent]:
    """``store.append(appends)`` after locking the deliveries' ledger rows, in one transaction.
    Returns the recorded events in stream-id order. ``dispatch``: attempt outcomes recorded by
    the dispatcher (their commit does not wake the dispatchers: ``dispatch_outcome_lock``)."""
    ordered = sorted(appends, key=lambda a: a.stream_id)
    ids = [d for a in ordered if (d := delivery_id_of(a.stream_id)) is not None]
    ledger = DeliveryRepository.of(store)
    # The transaction is the append's own: a failed append fails it whole, so a savepoint is
    # needed only to retry an "any" append that lost a race.
    savepoint = any(a.expected == ANY for a in ordered)
    async with ledger.transaction() as own:
        await ledger.lock(own, ids, dispatch=dispatch)
        return await store.append(ordered, conn=own, savepoint=savepoint)
