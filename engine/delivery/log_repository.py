"""The delivery log's reads (:mod:`.log`): the one place the log reaches the database."""

from __future__ import annotations

from datetime import datetime
from typing import Any, cast

from ..db.repository import PoolRepository, Record
from .log import SQL, LogQuery, item_of, query_name

__all__ = ["DeliveryLog"]


class DeliveryLog(PoolRepository):
    """Pages of the delivery log, read with one indexed query each."""

    async def rows(self, q: LogQuery) -> list[Record]:
        """Up to ``q.limit + 1`` rows (one more tells whether a next page exists), planned
        for these values (``deliveries_log_custom_plan.sql``)."""
        at, last = q.before if q.before is not None else (None, None)
        async with self.pool.acquire() as conn, conn.transaction():
            await conn.execute(SQL["deliveries_log_custom_plan"])
            rows = await conn.fetch(
                SQL[query_name(q)],
                q.tenant_id,
                q.subscription_id,
                q.topic,
                q.state,
                q.evidence,
                q.since,
                q.until,
                q.event_id,
                q.delivery_id,
                q.consumer_id,
                at,
                last,
                q.limit + 1,
            )
        return cast(list[Record], rows)

    async def page(self, q: LogQuery) -> tuple[list[dict[str, Any]], tuple[datetime, str] | None]:
        """The page's items, and the key to continue before when there are more."""
        rows = await self.rows(q)
        more = len(rows) > q.limit
        rows = rows[: q.limit]
        nxt = (rows[-1]["created_at"], rows[-1]["delivery_id"]) if more and rows else None
        return [item_of(r) for r in rows], nxt
