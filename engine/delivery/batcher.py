"""Outcome appends, coalesced: many attempts' outcomes in one append (one transaction).

Callers await their own append. A batch that conflicts (a receipt or a lease takeover touched
one stream meanwhile, or one outcome was committed by an earlier try whose answer was lost)
falls back to appending each outcome on its own, so one stream's conflict never loses
another's evidence. Appends go through :func:`.streams.append_to_deliveries`
(the ledger rows locked first, in id order), so a batch never deadlocks with a claim.

A claim may take the queued outcomes (:meth:`OutcomeBatcher.take`) and append them in its own
transaction (one transaction and one commit fewer per batch); it then settles them
(:meth:`OutcomeBatcher.settle`), or, when its transaction failed, hands them back
(:meth:`OutcomeBatcher.requeue`): they go through the batch path above, one by one on a conflict.
"""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass

from hookproof.errors import ConcurrencyConflict, StoreError
from hookproof.events import EventStore, StreamAppend

from .streams import append_to_deliveries

__all__ = ["OutcomeBatcher", "Queued"]


@dataclass
class Queued:
    """One outcome waiting for its batch, and its caller's future."""

    append: StreamAppend
    done: asyncio.Future[None]
    wake: bool = False  # the commit must wake the dispatchers (an ordered delivery's outcome)


class OutcomeBatcher:
    def __init__(self, store: EventStore, *, max_batch: int = 200, linger_s: float = 0.003) -> None:
        self.store = store
        self.max_batch = max_batch
        self.linger_s = linger_s
        self._queue: list[Queued] = []
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._requeued: set[asyncio.Task[None]] = set()

    async def append(self, append: StreamAppend, *, wake: bool = False) -> None:
        """Append ``append`` (with its expected version) in the next batch; raises its error.
        ``wake``: its commit wakes every dispatcher (the outcome of an ordered delivery may
        make the aggregate's next version claimable, in any process); otherwise the batch is
        tagged as the dispatcher's own (``streams.append_to_deliveries``)."""
        fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._queue.append(Queued(append, fut, wake))
        self._wake.set()
        if self._task is None or self._task.done():
            self._task = asyncio.create_task(self._run())
        await fut

    def take(self) -> list[Queued]:
        """Up to ``max_batch`` queued outcomes whose commit wakes nobody, out of the queue:
        the caller appends them (``Queued.append``) in its own transaction (the ledger rows
        locked first, in id order), then calls :meth:`settle` with them or, if that
        transaction failed, :meth:`requeue`."""
        taken: list[Queued] = []
        keep: list[Queued] = []
        for item in self._queue:
            (keep if item.wake or len(taken) >= self.max_batch else taken).append(item)
        self._queue = keep
        return taken

    @staticmethod
    def settle(taken: list[Queued]) -> None:
        """The outcomes handed out by :meth:`take` were committed."""
        for i in taken:
            if not i.done.done():
                i.done.set_result(None)

    def requeue(self, taken: list[Queued]) -> None:
        """The outcomes handed out by :meth:`take` were not committed (the transaction that
        carried them failed): appended now as a batch of their own (one by one on a
        conflict, as any batch)."""
        if not taken:
            return
        task = asyncio.create_task(self._flush(taken))
        self._requeued.add(task)
        task.add_done_callback(self._requeued.discard)

    async def _run(self) -> None:
        while self._queue:
            if len(self._queue) < self.max_batch:
                await asyncio.sleep(self.linger_s)
            batch, self._queue = self._queue[: self.max_batch], self._queue[self.max_batch :]
            if batch:  # a claim may have taken the queue meanwhile
                await self._flush(batch)

    async def _flush(self, batch: list[Queued]) -> None:
        streams = {i.append.stream_id for i in batch}
        if len(streams) == len(batch):
            try:
                await append_to_deliveries(
                    self.store,
                    [i.append for i in batch],
                    dispatch=not any(i.wake for i in batch),
                )
            except ConcurrencyConflict:
                pass  # fall back to one by one below
            except StoreError as exc:
                # duplicate_event_id: one outcome of the batch committed before (a retry after
                # an answer lost to a restart); the others are not written yet: one by one
                if exc.code != "duplicate_event_id":
                    self._fail(batch, exc)
                    return
            except Exception as exc:
                self._fail(batch, exc)
                return
            else:
                for i in batch:
                    if not i.done.done():
                        i.done.set_result(None)
                return
        for i in batch:
            try:
                await append_to_deliveries(self.store, [i.append], dispatch=not i.wake)
            except Exception as exc:
                if not i.done.done():
                    i.done.set_exception(exc)
            else:
                if not i.done.done():
                    i.done.set_result(None)

    @staticmethod
    def _fail(batch: list[Queued], exc: BaseException) -> None:
        for i in batch:
            if not i.done.done():
                i.done.set_exception(exc)

    async def close(self) -> None:
        for task in [*([self._task] if self._task is not None else []), *self._requeued]:
            with contextlib.suppress(Exception):
                await task
