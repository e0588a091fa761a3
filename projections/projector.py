"""Keep projection tables current from the log, checkpoint in the same transaction.

``apply_events`` is the incremental path (also used inline, inside an append's transaction).
``Projector`` tails the log for asynchronous projections. Rebuilding a projection from the whole
log is :mod:`.rebuild`'s.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable, Hashable, Sequence
from typing import Any

import asyncpg
import structlog

from hookproof.events import EventStore, Position, RecordedEvent
from hookproof.events.listening import Listening
from hookproof.events.sqlfiles import render
from hookproof.projections.queries import PROJECTION_QUERIES

from .base import Projection, Row

__all__ = [
    "PageHandler",
    "PageStep",
    "Projector",
    "advance",
    "apply_events",
    "consume",
    "consume_in_database",
    "fold_rows",
    "log_head",
    "pending_events",
    "read_checkpoint",
    "run_woken",
    "save_checkpoint",
]

log = structlog.get_logger("hookproof.projections")

ProgressFn = Callable[[int], None]

SQL = PROJECTION_QUERIES.named(
    "checkpoint_select",
    "rebuild_tail_committed",
    "checkpoint_lock",
    "checkpoint_save",
    "table_indexes",
    "table_rows",
    "rebuild_create_like",
    "checkpoint_select_locked",
    "rebuild_drop_fresh",
    "rebuild_lock_live",
    "rebuild_swap",
    "rebuild_index_drop",
    "rebuild_index_create",
    "rebuild_unique_index_create",
    "rebuild_index_rename",
    "tail_headers",
    "log_head",
    "projection_lag",
    "unlogged_mark_exists",
    "unlogged_mark_set",
    "unlogged_reset",
    "rebuild_set_unlogged",
    "table_triggers",
    "rebuild_trigger_create",
)


async def apply_events(
    conn: asyncpg.Connection,
    projection: Projection,
    events: Sequence[RecordedEvent],
    *,
    table: str | None = None,
) -> int:
    """Fold ``events`` into the affected rows and upsert them. Returns rows written."""
    custom = getattr(projection, "apply_incremental", None)
    if custom is not None:
        return int(await custom(conn, events, table or projection.table))
    out = await fold_rows(conn, projection, events, table=table)
    if out:
        await conn.executemany(projection.sql("upsert", table or projection.table), out)
    return len(out)


async def fold_rows(
    conn: asyncpg.Connection,
    projection: Projection,
    events: Sequence[RecordedEvent],
    *,
    table: str | None = None,
) -> list[tuple[Any, ...]]:
    """The records (``projection.columns`` order) of the rows ``events`` touch, after them:
    the rows loaded, then folded by ``evolve``. :func:`apply_events` upserts them."""
    by_key: dict[Hashable, list[RecordedEvent]] = {}
    for ev in events:
        k = projection.key(ev)
        if k is not None:
            by_key.setdefault(k, []).append(ev)
    if not by_key:
        return []
    rows = await conn.fetch(projection.sql("load", table or projection.table), list(by_key))
    current: dict[Hashable, Row | None] = {projection.row_key(r): dict(r) for r in rows}
    out: list[tuple[Any, ...]] = []
    for k, evs in by_key.items():
        row = current.get(k)
        for ev in evs:
            row = projection.evolve(row, ev)
        if row is not None:
            out.append(projection.record(row))
    return out


async def read_checkpoint(conn: asyncpg.Connection, name: str, *, lock: bool = False) -> Position:
    await conn.execute(SQL["checkpoint_lock"], name)
    r = await conn.fetchrow(SQL["checkpoint_select_locked" if lock else "checkpoint_select"], name)
    assert r is not None
    return Position(int(r["tx_id"]), r["global_position"])


async def save_checkpoint(conn: asyncpg.Connection, name: str, pos: Position) -> None:
    await conn.execute(SQL["checkpoint_save"], name, str(pos.tx_id), pos.global_position)


async def _unlogged_rows_kept(
    conn: asyncpg.Connection, name: str, table: str, pos: Position
) -> Position:
    """The checkpoint an unlogged projection really has: ``pos`` while its mark is there;
    otherwise a crash emptied it (the mark went with the rows), so the table is emptied for
    certain, marked again and its checkpoint moved back to the origin (in the caller's
    transaction, under the checkpoint's row lock)."""
    if await conn.fetchval(SQL["unlogged_mark_exists"], name):
        return pos
    if pos != Position():
        log.warning("projection_unlogged_reset", projection=name, checkpoint=pos.global_position)
    await conn.execute(render(SQL["unlogged_reset"], table=table))
    await conn.execute(SQL["unlogged_mark_set"], name)
    await save_checkpoint(conn, name, Position())
    return Position()


PageHandler = Callable[[asyncpg.Connection, list[RecordedEvent]], Awaitable[int]]
#: a page applied by the database itself: (connection, checkpoint, limit) -> (events, last)
PageStep = Callable[[asyncpg.Connection, Position, int], Awaitable[tuple[int, Position]]]


async def consume(
    store: EventStore,
    checkpoint: str,
    handle: PageHandler,
    *,
    batch: int,
    categories: Sequence[str] | None = None,
    headers_only: bool = False,
    unlogged_table: str | None = None,
    payload_types: Sequence[str] | None = None,
) -> int:
    """Hand every page readable after ``checkpoint`` to ``handle``, each in the transaction
    that moves the checkpoint past it (so a page is handled once). Returns the handler's sum.
    ``headers_only``: the page's rows carry no payload, metadata or hashes (all categories);
    ``payload_types``: only rows of these types carry them (with ``categories``).
    ``unlogged_table``: the handler writes that UNLOGGED table; if a crash emptied it, the
    checkpoint goes back to the origin first (:func:`_unlogged_rows_kept`)."""
    if headers_only and categories:
        raise ValueError("a headers-only tail reads every category")
    total = 0
    while True:
        async with store.pool.acquire() as conn, conn.transaction():
            pos = await read_checkpoint(conn, checkpoint, lock=True)
            if unlogged_table is not None:
                pos = await _unlogged_rows_kept(conn, checkpoint, unlogged_table, pos)
            if headers_only:
                rows = await conn.fetch(
                    SQL["tail_headers"], str(pos.tx_id), pos.global_position, batch
                )
                page = [RecordedEvent.from_record(r) for r in rows]
            else:
                page = await store.read_after(
                    pos,
                    limit=batch,
                    conn=conn,
                    categories=list(categories) if categories else None,
                    payload_types=payload_types,
                )
            if not page:
                break
            total += await handle(conn, page)
            await save_checkpoint(conn, checkpoint, page[-1].position)
        if len(page) < batch:
            break
    return total


async def consume_in_database(store: EventStore, projection: Projection, *, batch: int) -> int:
    """:func:`consume` for a projection that folds its pages on the server
    (``projection.apply_tail(conn, after, limit, table)``: events read and the last one's
    position): each page in the transaction that moves its checkpoint, under the checkpoint's
    row lock, and no event row comes to Python. Returns the events read."""
    apply_tail = projection.apply_tail  # type: ignore[attr-defined]
    total = 0
    while True:
        async with store.pool.acquire() as conn, conn.transaction():
            pos = await read_checkpoint(conn, projection.name, lock=True)
            n, last = await apply_tail(conn, pos, batch, projection.table)
            if n == 0 or last is None:
                break
            total += n
            await save_checkpoint(conn, projection.name, last)
        if n < batch:
            break
    return total


async def advance(
    store: EventStore,
    checkpoint: str,
    step: PageStep,
    *,
    batch: int,
    unlogged_table: str | None = None,
) -> int:
    """As :func:`consume`, for a projection whose pages the database reads, folds and writes
    in one statement (``step``): each page in the transaction that moves the checkpoint past
    it, nothing of it decoded in this process. Returns the events applied."""
    total = 0
    while True:
        async with store.pool.acquire() as conn, conn.transaction():
            pos = await read_checkpoint(conn, checkpoint, lock=True)
            if unlogged_table is not None:
                pos = await _unlogged_rows_kept(conn, checkpoint, unlogged_table, pos)
            applied, last = await step(conn, pos, batch)
            if not applied:
                break
            total += applied
            await save_checkpoint(conn, checkpoint, last)
        if applied < batch:
            break
    return total


async def run_woken(
    store: EventStore,
    stop: asyncio.Event,
    tick: Callable[[], Awaitable[object]],
    *,
    poll_interval: float,
    tick_failed: str,
    listener_lost: str,
    min_interval: float = 0.0,
) -> None:
    """Run ``tick`` until ``stop`` is set: each NOTIFY on the events channel wakes it, polling
    every ``poll_interval`` seconds backs it. A failed tick (e.g. a Postgres restart) is logged
    as ``tick_failed`` and retried on the next one, so the worker outlives it. Ticks start at
    least ``min_interval`` apart: the NOTIFYs of a busy log (one per committing transaction)
    are taken together, one transaction per tick instead of one per commit."""
    wake = asyncio.Event()
    loop = asyncio.get_running_loop()

    def _notify(*_: object) -> None:
        wake.set()

    def _lost(exc: BaseException) -> None:  # a listener the server dropped (a restart)
        log.info(listener_lost, error=type(exc).__name__)

    stopping = asyncio.ensure_future(stop.wait())  # a stop wakes the waits below at once
    stopping.add_done_callback(lambda _: wake.set())
    try:
        async with Listening(store, _notify, on_lost=_lost) as listener:
            while not stop.is_set():
                wake.clear()
                started = loop.time()
                try:
                    await listener.refresh()  # after a restart
                    await tick()
                except Exception as exc:  # the worker outlives a bad tick; the log says why
                    log.warning(tick_failed, error=type(exc).__name__)
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(wake.wait(), poll_interval)
                rest = started + min_interval - loop.time()
                if rest > 0 and not stop.is_set():
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(stop.wait(), rest)
    finally:
        stopping.cancel()


class Projector:
    """Tails the log and applies pages to asynchronous projections, one transaction per page."""

    def __init__(
        self, store: EventStore, projections: Sequence[Projection], *, batch: int = 2000
    ) -> None:
        self.store = store
        self.projections = list(projections)
        self.batch = batch

    async def run_once(self) -> int:
        """Apply everything currently readable; returns the number of events applied."""
        total = 0
        for projection in self.projections:
            if getattr(projection, "apply_tail", None) is not None:
                total += await consume_in_database(self.store, projection, batch=self.batch)
                continue
            if (in_database := getattr(projection, "advance", None)) is not None:

                async def step(
                    conn: asyncpg.Connection,
                    pos: Position,
                    limit: int,
                    p: Projection = projection,
                    run: Any = in_database,
                ) -> tuple[int, Position]:
                    return await run(conn, p.table, pos, limit)  # type: ignore[no-any-return]

                total += await advance(
                    self.store,
                    projection.name,
                    step,
                    batch=self.batch,
                    unlogged_table=projection.table if projection.unlogged else None,
                )
                continue

            async def apply(
                conn: asyncpg.Connection, page: list[RecordedEvent], p: Projection = projection
            ) -> int:
                await apply_events(conn, p, page)
                return len(page)

            total += await consume(
                self.store,
                projection.name,
                apply,
                batch=self.batch,
                headers_only=projection.headers_only,
                unlogged_table=projection.table if projection.unlogged else None,
            )
        return total

    async def settle(self, within: float, *, poll: float = 0.05) -> int:
        """Apply everything committed when called, waiting at most ``within`` seconds for
        transactions still open elsewhere (the commit-safe read stops at the oldest one).
        Returns how many events the slowest projection still has to apply (0: at the head)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + within
        async with self.store.pool.acquire() as conn:
            head = await log_head(conn)
        while True:
            await self.run_once()
            async with self.store.pool.acquire() as conn:
                behind = 0
                for p in self.projections:
                    checkpoint = await read_checkpoint(conn, p.name)
                    behind = max(behind, await pending_events(conn, p, checkpoint, head))
            if behind == 0 or loop.time() + poll > deadline:
                return behind
            await asyncio.sleep(poll)

    async def run(
        self, stop: asyncio.Event, *, poll_interval: float = 1.0, min_interval: float = 0.05
    ) -> None:
        """Keep projections current until ``stop`` is set (NOTIFY wakes it, polling backs it;
        at most one tick per ``min_interval``)."""
        await run_woken(
            self.store,
            stop,
            self.run_once,
            poll_interval=poll_interval,
            min_interval=min_interval,
            tick_failed="projector_error",
            listener_lost="projector_listener_lost",
        )


async def log_head(conn: asyncpg.Connection) -> Position:
    """The last committed event's position in this snapshot (the origin: an empty log)."""
    r = await conn.fetchrow(SQL["log_head"])
    return Position() if r is None else Position(int(r["tx_id"]), r["global_position"])


async def pending_events(
    conn: asyncpg.Connection, projection: Projection, checkpoint: Position, head: Position
) -> int:
    """Events up to ``head`` the projection has still to apply after ``checkpoint``."""
    if checkpoint >= head:
        return 0
    cats = list(projection.categories) if projection.categories else None
    n = await conn.fetchval(
        SQL["projection_lag"],
        str(checkpoint.tx_id),
        checkpoint.global_position,
        str(head.tx_id),
        head.global_position,
        cats,
    )
    return int(n)
