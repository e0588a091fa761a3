"""Outcome appends, coalesced: many attempts' outcomes in one append (one transaction).

Callers await their own append. A batch that conflicts (a receipt or a lease takeover touched
one stream meanwhile, or one outcome was committed by an earlier try whose answer was lost)
falls back to appending each outcome on its own, so one stream's conflict never loses
another's evidence. Appends go through :func:`.streams.append_to_deliveries`
(the ledger rows locked first, in id order), so a batch never deadlocks with a claim.
"""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass

from hookproof.errors import ConcurrencyConflict, StoreError
from hookproof.events import EventStore, StreamAppend

from .streams import append_to_deliveries

__all__ = ["OutcomeBatcher"]


@dataclass
class _Item:
    append: StreamAppend
    done: asyncio.Future[None]
    wake: bool = False  # the commit must wake the dispatchers (an ordered delivery's outcome)


class OutcomeBatcher:
    def __init__(self, store: EventStore, *, max_batch: int = 200, linger_s: float = 0.003) -> None:
        self.store = store
        self.max_batch = max_batch
        self.linger_s = linger_s
        self._queue: list[_Item] = []
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    async def append(self, append: StreamAppend, *, wake: bool = False) -> None:
        """Append ``append`` (with its expected version) in the next batch; raises its error.
        ``wake``: its commit wakes every dispatcher (the outcome of an ordered delivery may
        make the aggregate's next version claimable, in any process); otherwise the batch is
        tagged as the dispatcher's own (``streams.append_to_deliveries``)."""
        fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._queue.append(_Item(append, fut, wake))
        self._wake.set()
        if self._task is None or self._task.done():
            self._task = asyncio.create_task(self._run())
        await fut

    async def _run(self) -> None:
        while self._queue:
            if len(self._queue) < self.max_batch:
                await asyncio.sleep(self.linger_s)
            batch, self._queue = self._queue[: self.max_batch], self._queue[self.max_batch :]
            await self._flush(batch)

    async def _flush(self, batch: list[_Item]) -> None:
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
    def _fail(batch: list[_Item], exc: BaseException) -> None:
        for i in batch:
            if not i.done.done():
                i.done.set_exception(exc)

    async def close(self) -> None:
        if self._task is not None:
            with contextlib.suppress(Exception):
                await self._task
