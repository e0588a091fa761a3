"""What the attempt-stats tests compare: the old per-request query over the log (the oracle),
the projection's rows, and the cost of a statement read from its plan."""

from __future__ import annotations

import asyncio
import random
from bisect import bisect_right
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import asyncpg

from hookproof.engine.delivery.stats_view import latency_view
from hookproof.engine.recording.registry import async_projections
from hookproof.engine.runtime.daemon import Engine
from hookproof.events import EventStore
from hookproof.projections import Projector
from hookproof.projections.attempt_stats import LATENCY_BOUNDS_MS, LATENCY_BUCKETS

from ..support import log_settled
from .conftest import dispatch_all

#: the query ``attempt-stats`` ran before the projection (main at 77a2c3b)
BEFORE_SQL = (Path(__file__).parent / "attempt_stats_before.sql").read_text()
#: every attempt's duration, from the log (the latency histogram's oracle)
DURATIONS_SQL = (Path(__file__).parent / "attempt_durations.sql").read_text()


def window(now: datetime, hours: int = 24) -> datetime:
    """The first hour of the route's window (as ``DeliveryReader.attempt_stats`` sets it)."""
    return now.replace(minute=0, second=0, microsecond=0) - timedelta(hours=hours - 1)


def buckets(
    rows: list[Any], durations: list[Any], start: datetime, hours: int = 24
) -> list[dict[str, Any]]:
    """Rows ``(hour, outcome, attempts)`` and ``(hour, ms)`` as the route's buckets."""
    counts: dict[datetime, dict[str, int]] = {start + timedelta(hours=i): {} for i in range(hours)}
    hists = {h: [0] * LATENCY_BUCKETS for h in counts}
    for r in rows:
        hour = r["hour"].astimezone(UTC)
        if hour in counts:
            counts[hour][r["outcome"]] = int(r["attempts"])
    for r in durations:
        hour = r["hour"].astimezone(UTC)
        if hour in hists:
            hists[hour][bisect_right(LATENCY_BOUNDS_MS, r["ms"])] += 1
    return [
        {"hour": h.isoformat(), "counts": c, "latency": latency_view(hists[h])}
        for h, c in counts.items()
    ]


async def before(pool: asyncpg.Pool, tenant: str, sid: str, now: datetime) -> dict[str, Any]:
    """What the old query answers for one subscription, in the route's shape, with the
    latency of the attempts' durations read from the log."""
    start = window(now)
    rows = await pool.fetch(BEFORE_SQL, tenant, sid, start)
    durations = await pool.fetch(DURATIONS_SQL, tenant, sid, start)
    whole = [0] * LATENCY_BUCKETS
    for r in durations:
        whole[bisect_right(LATENCY_BOUNDS_MS, r["ms"])] += 1
    return {
        "subscriptionId": sid,
        "since": start.isoformat(),
        "interval": "hour",
        "latency": latency_view(whole),
        "buckets": buckets(rows, durations, start),
    }


def totals(view: dict[str, Any]) -> dict[str, int]:
    out: dict[str, int] = {}
    for b in view["buckets"]:
        for outcome, n in b["counts"].items():
            out[outcome] = out.get(outcome, 0) + n
    return out


async def fold_stats(store: EventStore, *, batch: int = 20_000) -> int:
    """Bring the asynchronous projections (the attempt statistics among them) up to the log,
    as the daemon's projector does, in pages of ``batch`` events."""
    await log_settled(store.pool)
    return await Projector(store, async_projections(), batch=batch).run_once()


SCANS = {"Seq Scan", "Index Scan", "Index Only Scan", "Bitmap Heap Scan"}


def rows_read(plan: dict[str, Any]) -> int:
    """Table rows a plan's scans returned or filtered out, over all their loops."""
    loops = int(plan.get("Actual Loops", 1))
    own = 0
    if plan["Node Type"] in SCANS:
        own = loops * (
            int(plan.get("Actual Rows", 0))
            + int(plan.get("Rows Removed by Filter", 0))
            + int(plan.get("Rows Removed by Index Recheck", 0))
        )
    return own + sum(rows_read(p) for p in plan.get("Plans", []))


async def cost(conn: asyncpg.Connection, sql: str, *args: Any) -> dict[str, int]:
    """What one run of ``sql`` read: table rows (its scans) and buffers (shared, hit or read)."""
    doc = await conn.fetchval("EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) " + sql, *args)
    import json

    plan = (json.loads(doc) if isinstance(doc, str) else doc)[0]["Plan"]
    return {
        "rows_read": rows_read(plan),
        "buffers": int(plan.get("Shared Hit Blocks", 0)) + int(plan.get("Shared Read Blocks", 0)),
    }


async def settle(engine: Engine, done: Any, rounds: int = 300) -> None:
    """Dispatch what is due until ``done()`` says the workload has settled."""
    for _ in range(rounds):
        await dispatch_all(engine)
        if await done():
            return
        await asyncio.sleep(0.02)
    raise AssertionError("the workload did not settle")


async def accepted(engine: Engine, n: int, sid: str) -> bool:
    got = await engine.pool.fetchval(
        "SELECT count(*) FROM deliveries WHERE subscription_id = $1"
        " AND state = 'ENDPOINT_ACCEPTED'",
        sid,
    )
    return int(got) == n


class LateRetries(random.Random):
    """A dispatcher's jitter at its top (``Dispatcher.rng``): a slow policy's retry waits
    about its whole delay, so no retry runs while a test looks."""

    def random(self) -> float:
        return 0.99
