"""The audit's reads outside the timeline's log reads (stored bodies, archive tombstones and
segments, the event count, the release gates' snapshot): the one place the audit views reach
the database."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import datetime
from typing import Any, cast

from hookproof.engine.db.queries import ENGINE_QUERIES
from hookproof.engine.db.repository import PoolRepository, Record

from .gates import GateResult, gate_report

__all__ = ["AuditRepository"]

SQL = ENGINE_QUERIES.named(
    "event_streams_of_id",
    "archived_event_streams_of_id",
    "audit_event_count",
    "archive_segments_list",
)


class AuditRepository(PoolRepository):
    async def event_streams(self, event_id: str, tenant_id: str | None) -> list[Record]:
        """``tenant_id`` and ``stream_id`` of each business event with this id (one tenant's if
        named), from the stored bodies and, for archived events, their tombstones."""
        rows: list[Record] = await self.pool.fetch(SQL["event_streams_of_id"], event_id, tenant_id)
        rows += await self.pool.fetch(SQL["archived_event_streams_of_id"], event_id, tenant_id)
        return rows

    async def event_count(self, conn: Any = None) -> int:
        """How many events the hot log holds (on ``conn`` if given)."""
        count: int = await (conn or self.pool).fetchval(SQL["audit_event_count"])
        return count

    async def archive_segments(self) -> list[Record]:
        """Every archive segment's anchor row, oldest first."""
        return cast(list[Record], await self.pool.fetch(SQL["archive_segments_list"]))

    async def gate_report(self, since: datetime | None) -> list[GateResult]:
        """Every release gate over the hot log, from one snapshot (:func:`.gates.gate_report`)."""
        async with self.pool.acquire() as conn:
            return await gate_report(conn, since)

    @asynccontextmanager
    async def reading(self) -> AsyncIterator[Any]:
        """One pooled connection for the checks that read the log through it
        (:func:`.verify.verify_log`, the archive's verification)."""
        async with self.pool.acquire() as conn:
            yield conn
