"""A workload of open and closed deliveries, and ways to look at where every event is."""

from __future__ import annotations

import asyncio
from datetime import datetime
from pathlib import Path
from typing import Any

import asyncpg

from hookproof.engine.archive.segment import iter_segment
from hookproof.engine.runtime.daemon import Engine

from ..delivery.conftest import Subscriber, active_subscription, dispatch_all, publish

FAST_DEAD = {"retryPolicy": {"initialDelayS": 0.05, "maxDelayS": 0.05, "maxAttempts": 1}}
SLOW_RETRY = {"retryPolicy": {"initialDelayS": 3600, "maxDelayS": 3600, "maxAttempts": 5}}


async def now(pool: asyncpg.Pool) -> datetime:
    value = await pool.fetchval("SELECT clock_timestamp()")
    assert isinstance(value, datetime)
    return value


async def mixed_workload(
    engine: Engine, tenant: str, subscriber: Subscriber, *, n: int = 6
) -> dict[str, Any]:
    """n accepted, n//2 dead-lettered, n//2 still retrying (open)."""
    await active_subscription(engine, tenant, subscriber.url("ok-a"), topics=["order.a"])
    await active_subscription(
        engine, tenant, subscriber.url("fail500-b"), topics=["order.b"], **FAST_DEAD
    )
    await active_subscription(
        engine, tenant, subscriber.url("fail500-c"), topics=["order.c"], **SLOW_RETRY
    )
    for i in range(n):
        await publish(engine, tenant, f"evt-a{i}", topic="order.a")
    for i in range(n // 2):
        await publish(engine, tenant, f"evt-b{i}", topic="order.b")
        await publish(engine, tenant, f"evt-c{i}", topic="order.c")
    await dispatch_all(engine)
    await asyncio.sleep(0.1)
    await dispatch_all(engine)
    return {}


Row = tuple[str, int, bytes]


async def hot_rows(pool: asyncpg.Pool) -> set[Row]:
    rows = await pool.fetch(
        "SELECT stream_id, stream_version, hash FROM events WHERE stream_id <> 'archive-segments'"
    )
    return {(r["stream_id"], r["stream_version"], bytes(r["hash"])) for r in rows}


def archived_rows(folder: Path, files: list[str]) -> list[Row]:
    out: list[Row] = []
    for name in files:
        for e in iter_segment(folder / name):
            out.append((e.stream_id, e.stream_version, e.hash))
    return out
