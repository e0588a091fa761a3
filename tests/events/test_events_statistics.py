"""ANALYZE of the log stays small (migration 0990, issue 40): autovacuum analyses a young log
every minute, so its sample is 3,000 rows whatever the log holds, and the columns no query
filters on (the evidence's bytes, hashes, schema version) get no statistics at all."""

from __future__ import annotations

import re

import asyncpg

from hookproof.events import NO_STREAM, EventStore, StreamAppend

from .sample_events import ThingHappened

UNFILTERED = ("data", "metadata", "hash", "prev_hash", "schema_version")


async def test_analyze_samples_3000_rows_and_skips_the_evidence_columns(
    pool: asyncpg.Pool,
) -> None:
    store = EventStore(pool)
    for batch in range(8):  # 4,000 events: more than the sample, fewer than the old one
        await store.append(
            [
                StreamAppend(
                    f"thing-{batch}-{s}", [ThingHappened(n=i) for i in range(50)], NO_STREAM
                )
                for s in range(10)
            ]
        )
    notices: list[str] = []

    def heard(_conn: object, message: object) -> None:
        notices.append(str(message))

    async with pool.acquire() as conn:
        conn.add_log_listener(heard)
        try:
            await conn.execute("ANALYZE VERBOSE events")
        finally:
            conn.remove_log_listener(heard)
    sampled = [m for m in (re.search(r"(\d+) rows in sample", n) for n in notices) if m]
    assert sampled, notices
    assert int(sampled[0].group(1)) == 3000
    with_stats = {
        r["attname"]
        for r in await pool.fetch(
            "SELECT attname FROM pg_stats WHERE schemaname = current_schema()"
            " AND tablename = 'events'"
        )
    }
    assert not with_stats & set(UNFILTERED)
    assert {"stream_id", "type", "category", "global_position"} <= with_stats
