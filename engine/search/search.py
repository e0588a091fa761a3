"""Search over a tenant's deliveries and events with the filter languages (issue 54).

Each page is one read in the page's order (newest first, keyset), narrowed in SQL by
everything an index can answer (the log's columns, the delivery conditions, the filters'
equalities as a jsonpath predicate: :mod:`.pushdown`), and the compiled filters evaluated here
on each candidate, so a search finds exactly what a subscription with those filters would
have been offered. Bounded: at most ``scan_rows`` candidates and ``budget_ms`` of database
time per page; a search that cannot fill its page within them is refused with
``search_too_broad`` (422) rather than run slow for everyone.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import replace
from datetime import datetime
from typing import Any, Final

import asyncpg
import msgspec

from hookproof.engine.filters import FilterEvent, from_hookproof_event
from hookproof.errors import HookproofError

from ..db.queries import ENGINE_QUERIES
from ..db.repository import PoolRepository, Record
from ..delivery.views import evidence_of
from .query import SearchQuery, sql_args

__all__ = ["SCAN_BUDGET_MS", "SCAN_ROWS", "Search", "SearchTooBroad", "filter_event"]

SQL = ENGINE_QUERIES.named(
    "search_deliveries", "search_events", "search_plan", "search_index_count"
)
#: the most candidate rows one page reads (and evaluates the filters on)
SCAN_ROWS: Final = 5000
#: the most database time one page takes, in milliseconds
SCAN_BUDGET_MS: Final = 2000
#: an equality the index finds more events for than this is checked on the page's time order
#: instead (a page of a common value fills after a few rows; the index would read them all)
INDEX_CAP: Final = 5000
#: rows read by the first query of a page (at least the page), doubling up to _MAX_CHUNK
_CHUNK = 50
_MAX_CHUNK = 1000


class SearchTooBroad(HookproofError):
    """The search could not fill its page within its budget: narrow it (a time range, a
    subscription, an equality on a payload field or an attribute)."""

    code = "search_too_broad"
    status = 422
    title = "Search too broad"


def filter_event(body: bytes, tenant_id: str, consumer_id: str | None = None) -> FilterEvent:
    """The filters' view of an event from its canonical body (``ingest.canonical_body``)."""
    doc = msgspec.json.decode(body)
    wire: dict[str, Any] = {
        "eventId": doc["eventId"],
        "topic": doc["type"],
        "version": doc["version"],
        "aggregateId": doc["aggregateId"],
        "aggregateVersion": doc["aggregateVersion"],
        "occurredAt": doc["occurredAt"],
        "payload": doc.get("payload"),
    }
    if doc.get("source") is not None:
        wire["source"] = doc["source"]
    if consumer_id is not None:
        wire["consumerId"] = consumer_id
    return from_hookproof_event(wire, tenant_id=tenant_id)


def _iso(v: Any) -> Any:
    return v.isoformat() if isinstance(v, datetime) else v


def delivery_item(r: Record) -> dict[str, Any]:
    """A delivery row as a search item (``DeliverySearchItem``)."""
    return {
        "deliveryId": r["delivery_id"],
        "eventId": r["event_id"],
        "subscriptionId": r["subscription_id"],
        "generation": r["generation"],
        "topic": r["topic"],
        "state": r["state"],
        "attempt": r["attempt"],
        "evidence": evidence_of(dict(r)),
        "statusCode": r["last_status"],
        "reasonCode": r["last_code"] or r["dead_letter_reason"],
        "createdAt": _iso(r["created_at"]),
        "updatedAt": _iso(r["updated_at"]),
    }


def event_item(r: Record) -> dict[str, Any]:
    """An event row as a search item (``EventSearchItem``)."""
    doc = msgspec.json.decode(r["body"])
    return {
        "eventId": r["event_id"],
        "topic": r["topic"],
        "payloadDigest": r["payload_digest"],
        "aggregateId": doc["aggregateId"],
        "occurredAt": doc["occurredAt"],
        "payload": doc.get("payload"),
        "createdAt": _iso(r["created_at"]),
    }


class Search(PoolRepository):
    """Pages of a tenant's deliveries and events that match a search."""

    def __init__(
        self, pool: asyncpg.Pool, *, scan_rows: int = SCAN_ROWS, budget_ms: int = SCAN_BUDGET_MS
    ) -> None:
        super().__init__(pool)
        self.scan_rows = scan_rows
        self.budget_ms = budget_ms

    async def _matches(self, q: SearchQuery, *, events: bool, want: int) -> AsyncIterator[Record]:
        """The candidates that match ``q`` in the page's order, at most ``want``; raises
        :class:`SearchTooBroad` when the budget ran out first."""
        if q.pushed.impossible:
            return
        name = "search_events" if events else "search_deliveries"
        key = "event_id" if events else "delivery_id"
        found = 0
        read = 0
        try:
            async with self.pool.acquire() as conn, conn.transaction():
                await conn.execute(SQL["search_plan"], str(self.budget_ms))
                index = await self.index_narrows(conn, q)
                before = q.before
                # keyset chunks, each planned for its own small LIMIT (an index walk in the
                # page's order, not a plan for the whole budget), growing while few match
                chunk = max(want, _CHUNK)
                while True:
                    n = min(chunk, self.scan_rows - read)
                    part = replace(q, before=before)
                    rows = await conn.fetch(
                        SQL[name], *sql_args(part, n, events=events, index=index)
                    )
                    read += len(rows)
                    for r in rows:
                        consumer = None if events else r["consumer_id"]
                        if q.filters.matches(filter_event(r["body"], q.tenant_id, consumer)):
                            found += 1
                            yield r
                            if found >= want:
                                return
                    if len(rows) < n:
                        return  # the end: every candidate read
                    if read >= self.scan_rows:
                        break
                    before = (rows[-1]["created_at"], rows[-1][key])
                    chunk = min(chunk * 2, _MAX_CHUNK)
        except asyncpg.QueryCanceledError:
            raise SearchTooBroad(
                f"the search read for longer than its budget ({self.budget_ms} ms) "
                "without filling its page: narrow it",
                budgetMs=self.budget_ms,
            ) from None
        raise SearchTooBroad(
            f"the search read its budget ({self.scan_rows} candidates) without filling "
            "its page: narrow it (a time range, a subscription, an equality on a payload "
            "field or attribute)",
            scanRows=self.scan_rows,
        )

    async def index_narrows(self, conn: asyncpg.Connection, q: SearchQuery) -> bool:
        """Whether the search index narrows ``q`` to a few events (then its plan reads them);
        a common value is checked on the page's time order instead."""
        jsonpath = q.pushed.jsonpath
        if jsonpath is None:
            return False
        found = await conn.fetchval(SQL["search_index_count"], q.tenant_id, jsonpath, INDEX_CAP + 1)
        return int(found) <= INDEX_CAP

    async def _page(
        self, q: SearchQuery, *, events: bool
    ) -> tuple[list[Record], tuple[datetime, str] | None]:
        rows = [r async for r in self._matches(q, events=events, want=q.limit + 1)]
        more = len(rows) > q.limit
        rows = rows[: q.limit]
        key = "event_id" if events else "delivery_id"
        nxt = (rows[-1]["created_at"], rows[-1][key]) if more and rows else None
        return rows, nxt

    async def deliveries(
        self, q: SearchQuery
    ) -> tuple[list[dict[str, Any]], tuple[datetime, str] | None]:
        """One page of matching deliveries, and the key to continue before."""
        rows, nxt = await self._page(q, events=False)
        return [delivery_item(r) for r in rows], nxt

    async def events(
        self, q: SearchQuery
    ) -> tuple[list[dict[str, Any]], tuple[datetime, str] | None]:
        """One page of matching events, and the key to continue before."""
        rows, nxt = await self._page(q, events=True)
        return [event_item(r) for r in rows], nxt

    async def all_delivery_ids(self, q: SearchQuery, most: int) -> list[str]:
        """Every matching delivery id (newest first), at most ``most`` (a replay's selection:
        walked page by page, each within the budget)."""
        out: list[str] = []
        before = q.before
        while len(out) < most:
            page = replace(q, before=before, limit=1000)
            rows, nxt = await self._page(page, events=False)
            out.extend(r["delivery_id"] for r in rows)
            if nxt is None:
                break
            before = nxt
        return out[:most]
