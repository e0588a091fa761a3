"""Keep projection tables current from the log, checkpoint in the same transaction; rebuild.

``apply_events`` is the incremental path (also used inline, inside an append's transaction).
``Projector`` tails the log for asynchronous projections. ``rebuild`` folds the whole log in
memory, bulk-loads a fresh table with COPY and swaps it in with its checkpoint in one
transaction (blue/green), so a reader never sees a half-built projection.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import re
import time
from collections.abc import Awaitable, Callable, Hashable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import asyncpg
import structlog

from hookproof.events import EventStore, Position, RecordedEvent
from hookproof.events.listening import Listening
from hookproof.events.sqlfiles import identifier, render
from hookproof.projections.queries import PROJECTION_QUERIES

from .base import Projection, Row

__all__ = [
    "Lag",
    "PageHandler",
    "PageStep",
    "Projector",
    "RebuildResult",
    "advance",
    "apply_events",
    "consume",
    "consume_in_database",
    "fold_all",
    "read_checkpoint",
    "rebuild",
    "run_woken",
    "table_rows",
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
    by_key: dict[Hashable, list[RecordedEvent]] = {}
    for ev in events:
        k = projection.key(ev)
        if k is not None:
            by_key.setdefault(k, []).append(ev)
    if not by_key:
        return 0
    target = table or projection.table
    rows = await conn.fetch(projection.sql("load", target), list(by_key))
    current: dict[Hashable, Row | None] = {projection.row_key(r): dict(r) for r in rows}
    out: list[tuple[Any, ...]] = []
    for k, evs in by_key.items():
        row = current.get(k)
        for ev in evs:
            row = projection.evolve(row, ev)
        if row is not None:
            out.append(projection.record(row))
    if out:
        await conn.executemany(projection.sql("upsert", target), out)
    return len(out)


async def read_checkpoint(conn: asyncpg.Connection, name: str, *, lock: bool = False) -> Position:
    await conn.execute(SQL["checkpoint_lock"], name)
    r = await conn.fetchrow(SQL["checkpoint_select_locked" if lock else "checkpoint_select"], name)
    assert r is not None
    return Position(int(r["tx_id"]), r["global_position"])


async def _save_checkpoint(conn: asyncpg.Connection, name: str, pos: Position) -> None:
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
    await _save_checkpoint(conn, name, Position())
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
            await _save_checkpoint(conn, checkpoint, page[-1].position)
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
            await _save_checkpoint(conn, projection.name, last)
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
            await _save_checkpoint(conn, checkpoint, last)
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
                    behind = max(behind, await _pending(conn, p, checkpoint, head))
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


def fold_all(
    projection: Projection, events: Sequence[RecordedEvent], state: dict[Any, Row]
) -> None:
    """Fold events into an in-memory table (the rebuild path; it owns ``state``'s rows,
    made by ``projection.new_state()``). A projection with a ``fold_page`` folds the page."""
    custom = getattr(projection, "fold_page", None)
    if custom is not None:
        custom(events, state)
        return
    evolve = getattr(projection, "evolve_owned", projection.evolve)
    key = projection.key
    for ev in events:
        k = key(ev)
        if k is None:
            continue
        state[k] = evolve(state.get(k), ev)


@dataclass(frozen=True)
class Lag:
    """How far a live asynchronous projection was behind the log when it was verified: it was
    compared with the rebuild at its own ``checkpoint``; ``events`` more were committed up to
    ``head``. A lag is the projector's delay, never a difference."""

    events: int
    checkpoint: Position
    head: Position


@dataclass(frozen=True)
class RebuildResult:
    name: str
    events: int
    rows: int
    seconds: float
    position: Position
    differences: list[str] | None = None
    #: with ``verify``, for an asynchronous projection (an inline one cannot lag)
    lag: Lag | None = None

    @property
    def rate(self) -> float:
        return self.events / self.seconds if self.seconds > 0 else float("inf")


async def table_rows(
    conn: asyncpg.Connection, projection: Projection, table: str
) -> dict[Any, Row]:
    rows = await conn.fetch(render(SQL["table_rows"], table=table))
    key = projection.row_key
    return {key(r): dict(r) for r in rows}


def _diff(projection: Projection, live: dict[Any, Row], fresh: dict[Any, Row]) -> list[str]:
    out: list[str] = []
    for k in sorted(set(live) | set(fresh), key=str):
        a, b = live.get(k), fresh.get(k)
        if a is None:
            out.append(f"missing in live: {projection.key_column}={k}")
        elif b is None:
            out.append(f"extra in live: {projection.key_column}={k}")
        else:
            for c in projection.columns:
                if a.get(c) != b.get(c):
                    out.append(
                        f"{projection.key_column}={k} {c}: live={a.get(c)!r} rebuilt={b.get(c)!r}"
                    )
    return out


async def rebuild(
    store: EventStore,
    projection: Projection,
    *,
    verify: bool = False,
    page_size: int = 10_000,
    progress: ProgressFn | None = None,
    inline: bool = False,
) -> RebuildResult:
    """Rebuild ``projection`` from the whole log.

    Reads in keyset pages in commit-safe order (the next page is fetched while the current
    one is folded), folds in memory, COPYs into a fresh table, builds the live table's
    secondary indexes on it, then swaps it in with its checkpoint in one transaction. With
    ``verify``, compares the fresh rows with the live table at the same log position and
    returns the differences instead of swapping: an asynchronous projection at its own
    checkpoint (how far that is behind the head is the result's ``lag``), an inline one at
    the head of one snapshot.

    ``inline``: the projection is written inside the append transactions (not by the
    projector); the swap then catches up on every committed event, since no projector will.
    """
    with _gc_paused():
        return await _rebuild(store, projection, verify, page_size, progress, inline)


@contextlib.contextmanager
def _gc_paused() -> Iterator[None]:
    """A rebuild allocates millions of objects that all live to the end: the cyclic collector
    would walk the growing table again and again (measured: 3-4x the whole rebuild)."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


async def _rebuild(
    store: EventStore,
    projection: Projection,
    verify: bool,
    page_size: int,
    progress: ProgressFn | None,
    inline: bool,
) -> RebuildResult:
    started = time.perf_counter()
    if verify and not inline:
        return await _verify_at_checkpoint(store, projection, page_size, progress, started)
    async with store.pool.acquire() as conn:
        state, count, pos = await _fold_log(store, conn, projection, page_size, progress)
        if verify:
            async with conn.transaction(isolation="repeatable_read"):
                live = await table_rows(conn, projection, projection.table)
                # Catch the fresh copy up to what the live table has seen, so only real
                # differences show: everything committed in this snapshot (an inline
                # projection is written in the appends' own transactions).
                extra = [
                    RecordedEvent.from_record(r)
                    for r in await conn.fetch(
                        _tail_committed(),
                        str(pos.tx_id),
                        pos.global_position,
                        list(projection.categories) if projection.categories else None,
                    )
                ]
            fold_all(projection, extra, state)
            differences = _diff(projection, live, state)
            return RebuildResult(
                projection.name, count, len(state), time.perf_counter() - started, pos, differences
            )
        fresh = f"{projection.table}_rebuild"
        async with conn.transaction():
            await conn.execute(render(SQL["rebuild_drop_fresh"], fresh=fresh))
            # the primary key's columns, each a quoted identifier (render quotes one name)
            key = ", ".join(identifier(c) for c in projection.primary_key)
            await conn.execute(
                render(SQL["rebuild_create_like"], fresh=fresh, live=projection.table).replace(
                    "{key}", key
                )
            )
            if projection.unlogged:
                await conn.execute(render(SQL["rebuild_set_unlogged"], fresh=fresh))
            await conn.copy_records_to_table(
                fresh,
                records=[projection.record(r) for r in state.values()],
                columns=list(projection.columns),
            )
            indexes = await _copy_indexes(conn, projection.table, fresh)
        async with conn.transaction():
            await read_checkpoint(conn, projection.name, lock=True)
            await conn.execute(render(SQL["rebuild_lock_live"], live=projection.table))
            # Anything applied to the live table meanwhile is re-read after the new checkpoint.
            if inline:
                cats = list(projection.categories) if projection.categories else None
                rows = await conn.fetch(
                    _tail_committed(), str(pos.tx_id), pos.global_position, cats
                )
                tail = [RecordedEvent.from_record(r) for r in rows]
            else:
                tail = await store.read_after(pos, limit=1_000_000, conn=conn)
            if tail:
                await apply_events(conn, projection, tail, table=fresh)
                fold_all(projection, tail, state)  # so ``rows`` counts what was swapped in
                pos = tail[-1].position
                count += len(tail)
            table = projection.table
            await conn.execute(
                render(
                    SQL["rebuild_swap"],
                    live=table,
                    fresh=fresh,
                    live_pkey=f"{table}_pkey",
                    fresh_pkey=f"{fresh}_pkey",
                )
            )
            for name in indexes:
                await conn.execute(
                    render(SQL["rebuild_index_rename"], index=name + _INDEX_SUFFIX, name=name)
                )
            await _save_checkpoint(conn, projection.name, pos)
            if projection.unlogged:  # the swapped-in rows are the checkpoint's
                await conn.execute(SQL["unlogged_mark_set"], projection.name)
    return RebuildResult(projection.name, count, len(state), time.perf_counter() - started, pos)


async def _verify_at_checkpoint(
    store: EventStore,
    projection: Projection,
    page_size: int,
    progress: ProgressFn | None,
    started: float,
) -> RebuildResult:
    """Compare an asynchronous projection with the log folded up to the live table's own
    checkpoint, read in the same snapshot as its rows: a projector that is behind (stopped
    before catching up, killed, its role off) shows as a :class:`Lag`, never as a
    difference. The events up to the checkpoint are all committed (the projector read them
    behind the commit-safe fence), so the fold sees exactly what the live table saw."""
    async with store.pool.acquire() as conn:
        async with conn.transaction(isolation="repeatable_read"):
            checkpoint = await _checkpoint_seen(conn, projection.name)
            if projection.unlogged and not await conn.fetchval(
                SQL["unlogged_mark_exists"], projection.name
            ):  # a crash emptied it: its rows are the origin's, however far the checkpoint
                checkpoint = Position()
            live = await table_rows(conn, projection, projection.table)
            head = await log_head(conn)
            behind = await _pending(conn, projection, checkpoint, head)
        state, count, pos = await _fold_log(
            store, conn, projection, page_size, progress, until=checkpoint
        )
    return RebuildResult(
        projection.name,
        count,
        len(state),
        time.perf_counter() - started,
        pos,
        _diff(projection, live, state),
        Lag(behind, checkpoint, max(head, checkpoint)),
    )


async def _checkpoint_seen(conn: asyncpg.Connection, name: str) -> Position:
    """A projection's checkpoint, read without writing (a hot standby is read-only): the
    origin when the projection has none yet."""
    r = await conn.fetchrow(SQL["checkpoint_select"], name)
    return Position() if r is None else Position(int(r["tx_id"]), r["global_position"])


async def _fold_log(
    store: EventStore,
    conn: asyncpg.Connection,
    projection: Projection,
    page_size: int,
    progress: ProgressFn | None,
    *,
    until: Position | None = None,
) -> tuple[dict[Any, Row], int, Position]:
    """Fold the log (up to and including ``until``) in memory: (rows, events, last position).
    The next page is fetched while the current one is folded."""
    state = projection.new_state()
    pos = Position()
    count = 0
    if until is not None and until <= pos:
        return state, count, pos
    pending: asyncio.Future[list[RecordedEvent]] = asyncio.ensure_future(
        store.read_after(pos, limit=page_size, conn=conn, categories=projection.categories)
    )
    try:
        while True:
            page = await pending
            if not page:
                break
            full = len(page) == page_size
            if until is not None and page[-1].position >= until:
                page = [ev for ev in page if ev.position <= until]
                full = False
            if not page:
                break
            pos = page[-1].position
            if full:
                pending = asyncio.ensure_future(
                    store.read_after(
                        pos, limit=page_size, conn=conn, categories=projection.categories
                    )
                )
            else:
                pending = _done([])
            fold_all(projection, page, state)
            count += len(page)
            if progress is not None:
                progress(count)
    finally:
        if not pending.done():
            pending.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await pending
    return state, count, pos


async def log_head(conn: asyncpg.Connection) -> Position:
    """The last committed event's position in this snapshot (the origin: an empty log)."""
    r = await conn.fetchrow(SQL["log_head"])
    return Position() if r is None else Position(int(r["tx_id"]), r["global_position"])


async def _pending(
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


_INDEX_SUFFIX = "__rebuild"
_CREATE_INDEX = re.compile(
    r"^CREATE (?P<unique>UNIQUE )?INDEX (?P<name>\S+) ON (?P<table>\S+) (?P<rest>.*)$", re.S
)


def _tail_committed() -> str:
    return SQL["rebuild_tail_committed"]


def _done(value: list[RecordedEvent]) -> asyncio.Future[list[RecordedEvent]]:
    fut: asyncio.Future[list[RecordedEvent]] = asyncio.get_running_loop().create_future()
    fut.set_result(value)
    return fut


async def _copy_indexes(conn: asyncpg.Connection, live: str, fresh: str) -> list[str]:
    """Build the live table's secondary indexes on ``fresh`` (renamed at the swap)."""
    names: list[str] = []
    for r in await conn.fetch(SQL["table_indexes"], live):
        m = _CREATE_INDEX.match(r["indexdef"])
        if m is None:
            raise RuntimeError(f"cannot rebuild index definition: {r['indexdef']}")
        name = r["indexname"]
        temporary = name + _INDEX_SUFFIX
        await conn.execute(render(SQL["rebuild_index_drop"], index=temporary))
        create = SQL["rebuild_unique_index_create" if m["unique"] else "rebuild_index_create"]
        # the definition is the catalogue's own text for the live index, not input
        await conn.execute(
            render(create, index=temporary, fresh=fresh).replace("{definition}", m["rest"])
        )
        names.append(name)
    return names
