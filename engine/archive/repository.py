"""The archive run's reads and writes: the one place an archival run reaches the database.

Every statement is a named ``.sql`` file of the engine registry; the deletion itself stays in
``hookproof_archive_remove`` (called by ``archive_remove``), the anchor in
``hookproof_archive_anchor``.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import datetime
from typing import Any
from uuid import UUID

import asyncpg

from hookproof.engine.db.queries import ENGINE_QUERIES
from hookproof.engine.db.repository import PoolRepository
from hookproof.events import Position
from hookproof.events.delivery_events import delivery_id_of
from hookproof.projections import read_checkpoint
from hookproof.projections.attempt_stats import AttemptStats

__all__ = ["AnchorLockBusy", "AnchorRequest", "ArchiveRepository", "IncompleteSegment"]

SQL = ENGINE_QUERIES.named(
    "advisory_try_lock",
    "advisory_unlock",
    "archive_anchor",
    "archive_candidate_events",
    "archive_complete",
    "archive_delivery_facts",
    "archive_delivery_owners_record",
    "archive_incomplete",
    "archive_known_files",
    "archive_lock_timeout",
    "archive_min_checkpoint",
    "archive_remove",
    "archive_segment_streams",
    "archive_tombstones_among",
    "archive_upper_position",
    "events_of_streams",
    "metrics_queue",
)

_STATS = AttemptStats()

#: "hpar": one archival run at a time, across daemons (a session advisory lock)
RUN_LOCK = 0x68706172


class AnchorLockBusy(Exception):
    """The anchor's lock on the log was not granted in time: nothing was written; retry."""


@dataclass(frozen=True)
class IncompleteSegment:
    """An anchored segment whose rows have not all left the hot tables."""

    segment_id: str
    file_name: str
    file_sha256: str


@dataclass(frozen=True)
class AnchorRequest:
    """Everything ``hookproof_archive_anchor`` records in its one statement."""

    segment_id: str
    file_name: str
    file_sha256: str
    file_size: int
    manifest_digest: str
    key_id: str
    first_recorded_at: datetime
    last_recorded_at: datetime
    cutoff: datetime
    event_id: UUID
    data: bytes
    metadata: bytes
    streams: list[str]
    categories: list[str]
    final_versions: list[int]
    final_hashes: list[bytes]
    counts: list[int]
    member_offsets: list[int]
    member_lengths: list[int]
    last_recorded: list[datetime]


class ArchiveRepository(PoolRepository):
    @asynccontextmanager
    async def run_lock(self) -> AsyncIterator[bool]:
        """Held for the block when it yields True: no other archival run meanwhile."""
        async with self.pool.acquire() as conn:
            if not await conn.fetchval(SQL["advisory_try_lock"], RUN_LOCK):
                yield False
                return
            try:
                yield True
            finally:
                await conn.execute(SQL["advisory_unlock"], RUN_LOCK)

    async def min_checkpoint(self, projections: Sequence[str]) -> Position | None:
        """How far every named asynchronous projection has read (the slowest of them)."""
        row = await self.pool.fetchrow(SQL["archive_min_checkpoint"], list(projections))
        if row is None:
            return None
        return Position(int(row["tx_id"]), row["global_position"])

    async def upper_position(self, cutoff: datetime) -> int | None:
        """The position of the newest event recorded before ``cutoff``."""
        value = await self.pool.fetchval(SQL["archive_upper_position"], cutoff)
        return None if value is None else int(value)

    async def candidate_events(self, after: int, upper: int, limit: int) -> list[asyncpg.Record]:
        """Business-event streams not archived yet, oldest first, in ``(after, upper]``."""
        return list(await self.pool.fetch(SQL["archive_candidate_events"], after, upper, limit))

    async def events_of_streams(self, streams: Sequence[str]) -> list[asyncpg.Record]:
        """Every hot event of ``streams``, stream by stream in version order."""
        return list(await self.pool.fetch(SQL["events_of_streams"], list(streams)))

    async def delivery_facts(self, delivery_ids: Sequence[str]) -> list[asyncpg.Record]:
        """State, receipts and last change of each delivery in the ledger."""
        return list(await self.pool.fetch(SQL["archive_delivery_facts"], list(delivery_ids)))

    async def tombstoned(self, streams: Sequence[str]) -> set[str]:
        """Those of ``streams`` archived already."""
        rows = await self.pool.fetch(SQL["archive_tombstones_among"], list(streams))
        return {r["stream_id"] for r in rows}

    async def anchor(self, a: AnchorRequest, *, lock_wait_ms: int) -> int | None:
        """Anchor event, segment record and tombstones in one statement; None when a stream
        moved since it was read (nothing written). Raises :class:`AnchorLockBusy` when the
        table lock was not granted within ``lock_wait_ms`` (nothing written either)."""
        async with self.pool.acquire() as conn, conn.transaction():
            await conn.execute(SQL["archive_lock_timeout"], f"{int(lock_wait_ms)}ms")
            try:
                position = await self._anchor(conn, a)
            except asyncpg.exceptions.LockNotAvailableError as exc:
                raise AnchorLockBusy(a.segment_id) from exc
            if position is not None:  # whose each archived delivery is, before any read needs it
                deliveries = [d for s in a.streams if (d := delivery_id_of(s)) is not None]
                await conn.execute(SQL["archive_delivery_owners_record"], deliveries)
        return None if position is None else int(position)

    @staticmethod
    async def _anchor(conn: Any, a: AnchorRequest) -> Any:
        return await conn.fetchval(
            SQL["archive_anchor"],
            a.segment_id,
            a.file_name,
            a.file_sha256,
            a.file_size,
            a.manifest_digest,
            a.key_id,
            a.first_recorded_at,
            a.last_recorded_at,
            a.cutoff,
            a.event_id,
            a.data,
            a.metadata,
            a.streams,
            a.categories,
            a.final_versions,
            a.final_hashes,
            a.counts,
            a.member_offsets,
            a.member_lengths,
            a.last_recorded,
        )

    async def remove(self, segment_id: str, streams: list[str], deliveries: list[str]) -> int:
        """One removal transaction (through ``hookproof_archive_remove``): events removed.
        The attempt statistics first give back what they folded of these streams, under their
        checkpoint's lock (a projector pass folding them meanwhile waits, or went first), so
        they stay the fold of the hot log."""
        async with self.pool.acquire() as conn, conn.transaction():
            if deliveries:
                await read_checkpoint(conn, _STATS.name, lock=True)
                await _STATS.unfold(conn, streams)
            row: Any = await conn.fetchrow(SQL["archive_remove"], segment_id, streams, deliveries)
        return int(row["events"])

    async def delivery_lag(self) -> float | None:
        """Seconds the oldest due delivery has waited (None: nothing due): the throttle's
        signal that delivery is falling behind. Read from the due index (``metrics_queue``)."""
        row = await self.pool.fetchrow(SQL["metrics_queue"], 1)
        lag = None if row is None else row["oldest_due_s"]
        return None if lag is None else float(lag)

    async def complete(self, segment_id: str) -> None:
        await self.pool.execute(SQL["archive_complete"], segment_id)

    async def incomplete(self) -> list[IncompleteSegment]:
        return [
            IncompleteSegment(r["segment_id"], r["file_name"], r["file_sha256"])
            for r in await self.pool.fetch(SQL["archive_incomplete"])
        ]

    async def segment_streams(self, segment_id: str) -> list[str]:
        return [
            r["stream_id"]
            for r in await self.pool.fetch(SQL["archive_segment_streams"], segment_id)
        ]

    async def known_files(self) -> set[str]:
        """File names of every anchored segment."""
        return {r["file_name"] for r in await self.pool.fetch(SQL["archive_known_files"])}
