"""The indexes ingest writes still serve the queries that read them (migration 0720, and the
plan-stable forms of the ingest and catalogue reads): each named query, planned with
sequential scans priced out, reaches its rows through the index named here. A predicate the
partial category index cannot prove, or a shape that flattens into a hash join, fails."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import asyncpg
import pytest

from hookproof.engine.db.queries import ENGINE_QUERIES
from hookproof.events.sqlfiles import render
from hookproof.projections.queries import PROJECTION_QUERIES

SQL = ENGINE_QUERIES.named(
    "key_ring_head",
    "archive_candidate_events",
    "recover_candidates",
    "ingest_bodies_get",
    "ingest_bodies_occurred_at",
)
LOAD = PROJECTION_QUERIES.named("stream_catalogue.load")["stream_catalogue.load"]

CASES: list[tuple[str, str, tuple[Any, ...]]] = [
    ("events_category_position", SQL["key_ring_head"], ()),
    ("events_category_position", SQL["archive_candidate_events"], (0, 10**9, 100)),
    (
        # the log's keys by subscription (migration 1000), each joined to its ledger row
        "delivery_log_subscription",
        SQL["recover_candidates"],
        (None, "sub_x", ["ENDPOINT_ACCEPTED"], datetime(2026, 1, 1, tzinfo=UTC), None, 100),
    ),
    # the primary key, or the (event_id) index with the tenant as filter: a probe either way
    ("event_bodies_", SQL["ingest_bodies_get"], (["ten_a", "ten_b"], ["e-1", "e-2"])),
    ("event_bodies_", SQL["ingest_bodies_occurred_at"], (["ten_a", "ten_b"], ["e-1", "e-2"])),
    (
        "proj_stream_catalogue_pkey",
        render(LOAD, table="proj_stream_catalogue"),
        ([f"delivery-dlv_{i}" for i in range(1000)],),
    ),
]


@pytest.mark.parametrize(("index", "sql", "args"), CASES, ids=[c[0] for c in CASES])
async def test_the_query_reaches_its_rows_through_the_index(
    pool: asyncpg.Pool, index: str, sql: str, args: tuple[Any, ...]
) -> None:
    async with pool.acquire() as conn, conn.transaction():
        await conn.execute("SET LOCAL enable_seqscan = off")
        await conn.execute("SET LOCAL enable_hashjoin = off")
        plan = "\n".join(r[0] for r in await conn.fetch("EXPLAIN " + sql, *args))
    assert index in plan, plan


async def test_delivery_rows_leave_the_category_index(pool: asyncpg.Pool) -> None:
    definition = await pool.fetchval(
        "SELECT indexdef FROM pg_indexes WHERE indexname = 'events_category_position'"
    )
    assert definition.endswith("WHERE (category <> 'delivery'::text)")
    columns = await pool.fetchval(
        "SELECT indexdef FROM pg_indexes WHERE indexname = 'delivery_log_subscription'"
    )
    assert columns.endswith("(subscription_id, created_at, delivery_id)")
    # no ledger index by subscription: every version of a ledger row would write into it
    assert not await pool.fetchval(
        "SELECT count(*) FROM pg_indexes WHERE tablename = 'deliveries'"
        " AND indexname IN ('deliveries_subscription', 'deliveries_log_subscription')"
    )
