"""Search (``POST /v1/deliveries/search``, ``/v1/events/search``) at N deliveries in one
tenant (issue 54): the first page's latency per kind of search, its plan, and the WAL the
search index adds per event.

Rows are written straight into ``deliveries`` and ``event_bodies`` (no events: search reads
none): one event per delivery (the index's worst case: a body per delivery), N rows of one
tenant over 30 days, 20 subscriptions, 10 topics, 90% ENDPOINT_ACCEPTED (status 200) / 5%
RETRYABLE / 4% DEAD_LETTER (status 500) / 1% PLANNED; payloads ``{"customer": "c-<g % 10000>",
"total": g % 1000, "region": "eu"|"us", "items": [{"sku": "s-<g % 500>"}]}``, aggregateId
``order-<g % 50000>``; another tenant's N/5 rows beside them. Each search runs through
``Search.deliveries`` / ``Search.events`` (the daemon's code: the pushdown, the budget, the
filters evaluated per candidate) ``--runs`` times: median and worst wall time; then
``EXPLAIN (ANALYZE, BUFFERS)`` of its statement with the same values. WAL: bytes of WAL to
insert ``--wal-rows`` bodies with the search index and without it (the difference is the
index's cost per event). Not a test: nothing asserts.

    flock /tmp/bench.lock .venv/bin/python bench/bench_search.py [--rows 1000000]

Results: ``bench/results/search.json``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_ingest import fresh_database, postgres_server

RESULTS = Path(__file__).resolve().parent / "results" / "search.json"
TENANT = "ten_00000000000000aa"
OTHER = "ten_00000000000000bb"
FILL = """
INSERT INTO deliveries (delivery_id, event_id, subscription_id, tenant_id, generation, endpoint,
    endpoint_digest, payload_digest, topic, owner, receipts, max_attempts, state, attempt,
    application, accepted_at, last_status, last_code, stream_version, created_at, updated_at)
SELECT 'dlv_' || lpad(to_hex($3::int + g), 28, '0'), 'evt-' || ($3::int + g),
    'sub_' || lpad(to_hex(g % 20), 24, '0'), $1, 1, 'https://example.test/', 'd', 'sha-256=:x:',
    'topic.' || (g % 10), 'bench', false, 8,
    CASE WHEN g % 100 < 90 THEN 'ENDPOINT_ACCEPTED' WHEN g % 100 < 95 THEN 'RETRYABLE'
         WHEN g % 100 < 99 THEN 'DEAD_LETTER' ELSE 'PLANNED' END,
    1, 'UNOBSERVABLE',
    CASE WHEN g % 100 < 90 THEN now() END,
    CASE WHEN g % 100 < 90 THEN 200 WHEN g % 100 < 99 THEN 500 END,
    CASE WHEN g % 100 >= 90 AND g % 100 < 99 THEN 'http_5xx' END,
    3,
    now() - make_interval(secs => ($2::int - g) * 2592000.0 / $2::int),
    now()
FROM generate_series(1, $2::int) AS g
"""
BODIES = """
INSERT INTO event_bodies (tenant_id, event_id, stream_id, payload_digest, body, topic, created_at)
SELECT $1, 'evt-' || ($3::int + g), 'event-' || $1 || '/evt-' || ($3::int + g), 'sha-256=:x:',
    convert_to(jsonb_build_object(
        'type', 'topic.' || (g % 10), 'eventId', 'evt-' || ($3::int + g), 'version', '1.0',
        'aggregateId', 'order-' || (g % 50000), 'aggregateVersion', 1,
        'occurredAt', '2026-12-01T00:00:00Z',
        'payload', jsonb_build_object(
            'customer', 'c-' || (g % 10000), 'total', g % 1000,
            'region', CASE WHEN g % 2 = 0 THEN 'eu' ELSE 'us' END,
            'items', jsonb_build_array(jsonb_build_object('sku', 's-' || (g % 500))))
    )::text, 'UTF8'),
    'topic.' || (g % 10),
    now() - make_interval(secs => ($2::int - g) * 2592000.0 / $2::int)
FROM generate_series(1, $2::int) AS g
"""
SEARCH_INDEX = "event_bodies_search"


def cases(now: datetime) -> list[tuple[str, bool, dict[str, Any]]]:
    """(name, events?, search fields); filters as the API takes them."""
    c42 = [{"match": {"data": {"customer": "c-42"}}}]
    return [
        ("payload field (100 events in 1,000,000)", False, {"filters": c42}),
        (
            "payload field in an array of objects (sku, 1 in 500)",
            False,
            {"filters": [{"match": {"data": {"items": {"sku": "s-7"}}}}]},
        ),
        (
            "payload field, common (region eu: half)",
            False,
            {"filters": [{"match": {"data": {"region": "eu"}}}]},
        ),
        (
            "attribute exact subject (20 events)",
            False,
            {"filters": [{"exact": {"subject": "order-4242"}}]},
        ),
        (
            "combined: payload field + statusCode 500 + since 30 days + type",
            False,
            {
                "filters": [*c42, {"exact": {"type": "topic.2"}}],
                "status_code": 500,
                "since": now - timedelta(days=30),
            },
        ),
        (
            "combined: payload field + state DEAD_LETTER + subscription",
            False,
            {
                "filters": c42,
                "state": "DEAD_LETTER",
                "subscription_id": "sub_" + format(2, "x").rjust(24, "0"),
            },
        ),
        ("statusCode 500 alone (9%, no index of its own)", False, {"status_code": 500}),
        (
            "reasonCode http_5xx + since 1 day",
            False,
            {"reason_code": "http_5xx", "since": now - timedelta(days=1)},
        ),
        (
            "CESQL only, rare (no index: search_too_broad expected)",
            False,
            {"filters": [{"sql": "subject = 'order-4242'"}]},
        ),
        (
            "CESQL only, common (aggregateversion = 1: every row)",
            False,
            {"filters": [{"sql": "aggregateversion = 1"}]},
        ),
        ("events: payload field", True, {"filters": c42}),
        ("events: payload field + statusCode 500", True, {"filters": c42, "status_code": 500}),
    ]


async def measure(conn: Any, search: Any, q: Any, events: bool, runs: int) -> dict[str, Any]:
    from hookproof.engine.search import SearchTooBroad
    from hookproof.engine.search.query import sql_args
    from hookproof.engine.search.search import SQL

    times = []
    answer: Any = None
    for _ in range(runs):
        t0 = time.perf_counter()
        try:
            items, nxt = await (search.events(q) if events else search.deliveries(q))
            answer = {"items": len(items), "more": nxt is not None}
        except SearchTooBroad as exc:
            answer = {"problem": exc.to_problem()["code"], "detail": exc.detail}
        times.append(time.perf_counter() - t0)
    times.sort()
    name = "search_events" if events else "search_deliveries"
    await conn.execute("SET plan_cache_mode = force_custom_plan")
    index = await search.index_narrows(conn, q)
    args = sql_args(q, max(q.limit + 1, 50), events=events, index=index)  # the first chunk
    await conn.execute(f"SET statement_timeout = {search.budget_ms * 5}")
    try:
        plan = await conn.fetchval(
            "EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) " + SQL[name] + "", *args
        )
        server_ms = round(json.loads(plan)[0]["Execution Time"], 3)
    except Exception as exc:  # a too-broad search past even five budgets
        server_ms = f"cancelled: {type(exc).__name__}"
    text = await conn.fetch("EXPLAIN " + SQL[name], *args)
    return {
        "answer": answer,
        "jsonpath": q.pushed.jsonpath,
        "index_used": index,
        "wall_ms_median": round(times[len(times) // 2] * 1000, 3),
        "wall_ms_max": round(times[-1] * 1000, 3),
        "server_ms_first_chunk": server_ms,
        "plan": [r[0] for r in text],
    }


async def wal_per_event(conn: Any, rows: int) -> dict[str, Any]:
    """WAL bytes per inserted body with the search index, and without it."""

    async def insert(tenant: str, start: int) -> int:
        before = await conn.fetchval("SELECT pg_current_wal_insert_lsn()")
        await conn.execute(BODIES, tenant, rows, start)
        after = await conn.fetchval("SELECT pg_current_wal_insert_lsn()")
        return int(await conn.fetchval("SELECT pg_wal_lsn_diff($1, $2)", after, before))

    with_index = await insert("ten_wal_with", 50_000_000)
    # the pending list flushed into the tree too (as autovacuum or a full list would)
    before = await conn.fetchval("SELECT pg_current_wal_insert_lsn()")
    await conn.execute(f"SELECT gin_clean_pending_list('{SEARCH_INDEX}'::regclass)")
    after = await conn.fetchval("SELECT pg_current_wal_insert_lsn()")
    flush = int(await conn.fetchval("SELECT pg_wal_lsn_diff($1, $2)", after, before))
    await conn.execute(f"DROP INDEX {SEARCH_INDEX}")
    without = await insert("ten_wal_without", 60_000_000)
    return {
        "rows": rows,
        "bytes_per_event_with_index": round((with_index + flush) / rows, 1),
        "bytes_per_event_without_index": round(without / rows, 1),
        "index_bytes_per_event": round((with_index + flush - without) / rows, 1),
        "pending_list_flush_bytes": flush,
        "note": "per event (its body); each event's deliveries share it, so per delivery it "
        "is this divided by the event's fan-out",
    }


async def run(args: argparse.Namespace) -> dict[str, Any]:
    import asyncpg

    from hookproof.engine.db.migrate import migrate
    from hookproof.engine.filters import compile_filters
    from hookproof.engine.search import Search, SearchQuery

    out: dict[str, Any] = {
        "benchmark": "search",
        "load_before": list(os.getloadavg()),
        "rows": args.rows,
        "cells": [],
    }
    with postgres_server(os.environ.get("HOOKPROOF_BENCH_DATABASE_URL")) as (admin, _):
        db_url = await fresh_database(admin)
        conn = await asyncpg.connect(db_url)
        await migrate(conn)
        t0 = time.perf_counter()
        await conn.execute(FILL, TENANT, args.rows, 0)
        await conn.execute(FILL, OTHER, args.rows // 5, args.rows)
        await conn.execute(f"DROP INDEX {SEARCH_INDEX}")  # built once, after the fill
        await conn.execute(BODIES, TENANT, args.rows, 0)
        await conn.execute(BODIES, OTHER, args.rows // 5, args.rows)
        await conn.execute(
            f"CREATE INDEX {SEARCH_INDEX} ON event_bodies"
            " USING gin (hookproof_body_search(body) jsonb_path_ops)"
        )
        for table in ("deliveries", "delivery_log", "event_bodies"):
            await conn.execute(f"VACUUM ANALYZE {table}")
        out["fill_s"] = round(time.perf_counter() - t0, 1)
        out["indexes_mb"] = {
            r["name"]: round(r["size"] / 2**20, 1)
            for r in await conn.fetch(
                "SELECT c.relname AS name, pg_relation_size(c.oid) AS size FROM pg_index AS i"
                " JOIN pg_class AS c ON c.oid = i.indexrelid"
                " WHERE i.indrelid = 'event_bodies'::regclass ORDER BY 1"
            )
        }
        pool = await asyncpg.create_pool(db_url, min_size=1, max_size=2)
        search = Search(pool)
        out["scan_rows"], out["budget_ms"] = search.scan_rows, search.budget_ms
        now = datetime.now(UTC)
        for name, events, fields in cases(now):
            filters = compile_filters(fields.pop("filters", []))
            q = SearchQuery(tenant_id=TENANT, filters=filters, limit=25, **fields)
            cell = {"search": name, "first_page": await measure(conn, search, q, events, args.runs)}
            print(
                json.dumps(
                    {"search": name, **{k: v for k, v in cell["first_page"].items() if k != "plan"}}
                ),
                flush=True,
            )
            out["cells"].append(cell)
        await pool.close()
        if args.wal_rows:
            out["wal"] = await wal_per_event(conn, args.wal_rows)
            print(json.dumps(out["wal"]), flush=True)
        await conn.close()
    out["load_after"] = list(os.getloadavg())
    out["recorded_at"] = datetime.now(UTC).isoformat(timespec="seconds")
    out["args"] = vars(args)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--wal-rows", type=int, default=20_000)
    ap.add_argument("--output", default=str(RESULTS))
    args = ap.parse_args()
    result = asyncio.run(run(args))
    Path(args.output).write_text(json.dumps(result, indent=2) + "\n")
    print(f"wrote {args.output}")


if __name__ == "__main__":
    main()
