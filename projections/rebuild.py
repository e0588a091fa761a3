"""Rebuild a projection from the log: fold the whole log in memory, bulk-load a fresh table
with COPY and swap it in with its checkpoint in one transaction (blue/green), so a reader never
sees a half-built projection; ``verify`` compares the rebuild with the live table."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import re
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import asyncpg
import structlog

from hookproof.events import EventStore, Position, RecordedEvent
from hookproof.events.sqlfiles import identifier, render

from .base import Projection, Row
from .projector import (
    SQL,
    ProgressFn,
    apply_events,
    log_head,
    pending_events,
    read_checkpoint,
    save_checkpoint,
)

__all__ = ["Lag", "RebuildResult", "fold_all", "rebuild", "table_rows"]

log = structlog.get_logger("hookproof.projections")


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
            # before the rows: what the live table's triggers write for its inserted rows
            # (the delivery log's keys) is written for the fresh copy's, by the COPY
            await _copy_triggers(conn, projection.table, fresh)
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
            await save_checkpoint(conn, projection.name, pos)
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
            behind = await pending_events(conn, projection, checkpoint, head)
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


_CREATE_TRIGGER = re.compile(
    r"^(?P<create>CREATE (?:CONSTRAINT )?TRIGGER \S+ .*?) ON (?P<table>\S+) (?P<rest>.*)$", re.S
)


async def _copy_triggers(conn: asyncpg.Connection, live: str, fresh: str) -> None:
    """Give ``fresh`` the live table's own triggers (they move with it at the swap)."""
    for r in await conn.fetch(SQL["table_triggers"], live):
        m = _CREATE_TRIGGER.match(r["definition"])
        if m is None:
            raise RuntimeError(f"cannot rebuild trigger definition: {r['definition']}")
        # the definition is the catalogue's own text for the live trigger, not input
        await conn.execute(
            render(SQL["rebuild_trigger_create"], fresh=fresh)
            .replace("{create}", m["create"])
            .replace("{definition}", m["rest"])
        )


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
