"""The delivery log's reads (:mod:`.log`): the one place the log reaches the database."""

from __future__ import annotations

from datetime import datetime
from typing import Any, cast

from ..db.queries import ENGINE_QUERIES
from ..db.repository import PoolRepository, Record
from .log import SQL, LogQuery, item_of, log_args, matches_nothing, query_name

_KEYS = ENGINE_QUERIES.named("delivery_log_drift", "delivery_log_settle")

__all__ = ["DeliveryLog", "DeliveryLogKeys"]


class DeliveryLog(PoolRepository):
    """Pages of the delivery log, read with one indexed query each."""

    async def rows(self, q: LogQuery) -> list[Record]:
        """Up to ``q.limit + 1`` rows (one more tells whether a next page exists), planned
        for these values (``deliveries_log_custom_plan.sql``); none, without a read, for a
        combination the ledger rules out (:func:`.log.matches_nothing`)."""
        if matches_nothing(q):
            return []
        async with self.pool.acquire() as conn, conn.transaction():
            await conn.execute(SQL["deliveries_log_custom_plan"])
            rows = await conn.fetch(SQL[query_name(q)], *log_args(q))
        return cast(list[Record], rows)

    async def page(self, q: LogQuery) -> tuple[list[dict[str, Any]], tuple[datetime, str] | None]:
        """The page's items, and the key to continue before when there are more."""
        rows = await self.rows(q)
        more = len(rows) > q.limit
        rows = rows[: q.limit]
        nxt = (rows[-1]["created_at"], rows[-1]["delivery_id"]) if more and rows else None
        return [item_of(r) for r in rows], nxt


class DeliveryLogKeys(PoolRepository):
    """The log's keys (``delivery_log``) against the ledger: for ``projections rebuild``."""

    async def drift(self, limit: int = 100) -> list[str]:
        """Up to ``limit`` lines saying where the keys and the ledger disagree (none: equal)."""
        return [r["line"] for r in await self.pool.fetch(_KEYS["delivery_log_drift"], limit)]

    async def settle(self) -> int:
        """Remove the keys the (rebuilt) ledger does not hold; how many went."""
        status = await self.pool.execute(_KEYS["delivery_log_settle"])
        return int(status.split()[-1])
