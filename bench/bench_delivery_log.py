"""The delivery log's first page (``GET /v1/deliveries``) at 1,000,000 deliveries in one
tenant, for each filter combination the console and the portal offer (issue 39).

The ledger rows are written straight into ``deliveries`` (no events: the log reads none):
N rows of one tenant over 30 days, 20 subscriptions, 10 topics, states 90% ENDPOINT_ACCEPTED /
5% RETRYABLE / 4% DEAD_LETTER / 1% PLANNED, 10% application-confirmed; and another tenant's
N/5 rows beside them. Each combination runs through ``DeliveryLog.rows`` (the named query the
API picks, a prepared statement as in the daemon) 20 times: median and worst wall time on one
connection; then ``EXPLAIN (ANALYZE, BUFFERS)`` of the same statement with the same values
(its execution time is the server time, its plan names the index). A second page (cursor)
is measured too. Also the console's and portal's page weight (each file, plain and gzip).
Not a test: nothing asserts.

    flock /tmp/bench.lock .venv/bin/python bench/bench_delivery_log.py [--rows 1000000]

Results: ``bench/results/s10_delivery_log.json`` (session 9's run, before migration 0981:
``s9_portal_delivery_log.json``); session 15's run with the ``idPrefix`` cells (200,000 rows,
10 runs): ``s15_delivery_log_id_prefix.json``.
"""

from __future__ import annotations

import argparse
import asyncio
import gzip
import json
import os
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_ingest import fresh_database, postgres_server

RESULTS = Path(__file__).resolve().parent / "results" / "s10_delivery_log.json"
STATIC = Path(__file__).resolve().parents[1] / "engine" / "console" / "static"
TENANT = "ten_00000000000000aa"
OTHER = "ten_00000000000000bb"
FILL = """
INSERT INTO deliveries (delivery_id, event_id, subscription_id, tenant_id, generation, endpoint,
    endpoint_digest, payload_digest, topic, owner, receipts, max_attempts, state, attempt,
    application, accepted_at, stream_version, created_at, updated_at)
SELECT 'dlv_' || lpad(to_hex($3::int + g), 28, '0'), 'evt-' || ($3::int + g),
    'sub_' || lpad(to_hex(g % 20), 24, '0'), $1, 1, 'https://example.test/', 'd', 'sha-256=:x:',
    'topic.' || (g % 10), 'bench', true, 8,
    CASE WHEN g % 100 < 90 THEN 'ENDPOINT_ACCEPTED' WHEN g % 100 < 95 THEN 'RETRYABLE'
         WHEN g % 100 < 99 THEN 'DEAD_LETTER' ELSE 'PLANNED' END,
    1, CASE WHEN g % 10 = 3 THEN 'CONFIRMED' ELSE 'PENDING' END,
    CASE WHEN g % 100 < 90 THEN now() END, 3,
    now() - make_interval(secs => ($2::int - g) * 2592000.0 / $2::int),
    now()
FROM generate_series(1, $2::int) AS g
"""


def combos(now: datetime) -> list[tuple[str, dict[str, Any]]]:
    sub = "sub_" + format(16, "x").rjust(24, "0")  # has dead letters and unaccepted rows
    day = now - timedelta(days=1)
    return [
        ("none", {}),
        ("subscription", {"subscription_id": sub}),
        ("event_type", {"topic": "topic.4"}),
        ("state=DEAD_LETTER", {"state": "DEAD_LETTER"}),
        ("state=RETRYABLE", {"state": "RETRYABLE"}),
        ("evidence=ENDPOINT_ACCEPTED", {"evidence": "ENDPOINT_ACCEPTED"}),
        ("evidence=APPLICATION_CONFIRMED", {"evidence": "APPLICATION_CONFIRMED"}),
        ("evidence=NONE", {"evidence": "NONE"}),
        ("since=1 day ago", {"since": day}),
        ("since+until (a past hour)", {"since": day - timedelta(hours=1), "until": day}),
        ("eventId", {"event_id": "evt-123457"}),
        ("deliveryId", {"delivery_id": "dlv_" + format(123457, "x").rjust(28, "0")}),
        # session 15: the console's search by the start of an id (idPrefix)
        ("idPrefix event id (11 rows)", {"event_id_prefix": "evt-12345"}),
        ("idPrefix event id (1 row in 9)", {"event_id_prefix": "evt-1"}),
        ("idPrefix delivery id (256 ids)", {"delivery_id_prefix": "dlv_" + "0" * 22 + "01e2"}),
        ("idPrefix delivery id (dlv_0: every id)", {"delivery_id_prefix": "dlv_0"}),
        ("idPrefix delivery id (dlv_: every id)", {"delivery_id_prefix": "dlv_"}),
        ("subscription+state", {"subscription_id": sub, "state": "DEAD_LETTER"}),
        ("subscription+event_type", {"subscription_id": sub, "topic": "topic.6"}),
        ("state+event_type", {"state": "DEAD_LETTER", "topic": "topic.7"}),
        ("state+since", {"state": "DEAD_LETTER", "since": day}),
        ("subscription+evidence=NONE", {"subscription_id": sub, "evidence": "NONE"}),
        (
            "everything",
            {
                "subscription_id": sub,
                "topic": "topic.6",
                "state": "DEAD_LETTER",
                "evidence": "NONE",
                "since": now - timedelta(days=29),
            },
        ),
        (
            "state=DEAD_LETTER+evidence=ENDPOINT_ACCEPTED (matches nothing)",
            {"state": "DEAD_LETTER", "evidence": "ENDPOINT_ACCEPTED"},
        ),
        # session 11: the common states (no index of their own since migration 1000)
        ("state=ENDPOINT_ACCEPTED", {"state": "ENDPOINT_ACCEPTED"}),
        ("state=PLANNED (1% of rows)", {"state": "PLANNED"}),
        ("state=DISPATCHING (no row)", {"state": "DISPATCHING"}),
        ("state=APPLICATION_CONFIRMED (no row)", {"state": "APPLICATION_CONFIRMED"}),
        (
            "state=ENDPOINT_ACCEPTED+evidence=NONE (matches nothing)",
            {"state": "ENDPOINT_ACCEPTED", "evidence": "NONE"},
        ),
    ]


def page_weight() -> dict[str, Any]:
    files = {}
    for f in sorted(STATIC.iterdir()):
        raw = f.read_bytes()
        files[f.name] = {"bytes": len(raw), "gzip_bytes": len(gzip.compress(raw, 9))}
    return {
        "files": files,
        "total_bytes": sum(v["bytes"] for v in files.values()),
        "total_gzip_bytes": sum(v["gzip_bytes"] for v in files.values()),
        "note": "served uncompressed by the daemon (Cache-Control: no-store): total_bytes is "
        "what a first view transfers besides the API's JSON",
    }


async def measure(conn: Any, log: Any, q: Any, runs: int) -> dict[str, Any]:
    from hookproof.engine.delivery.log import SQL, log_args, query_name

    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        rows = await log.rows(q)
        times.append(time.perf_counter() - t0)
    times.sort()
    args = log_args(q)
    plan = await conn.fetchval(
        "EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) " + SQL[query_name(q)], *args
    )
    doc = json.loads(plan)[0]
    text = await conn.fetch("EXPLAIN " + SQL[query_name(q)], *args)
    return {
        "query": query_name(q),
        "rows": len(rows),
        "wall_ms_median": round(times[len(times) // 2] * 1000, 3),
        "wall_ms_max": round(times[-1] * 1000, 3),
        "server_ms": round(doc["Execution Time"], 3),
        "plan": [r[0] for r in text],
    }


async def run(args: argparse.Namespace) -> dict[str, Any]:
    import asyncpg

    from hookproof.engine.db.migrate import migrate
    from hookproof.engine.delivery.log import LogQuery
    from hookproof.engine.delivery.log_repository import DeliveryLog

    out: dict[str, Any] = {
        "benchmark": "delivery_log",
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
        await conn.execute("VACUUM ANALYZE deliveries")
        keys = await conn.fetchval("SELECT to_regclass('delivery_log') IS NOT NULL")
        if keys:  # the log's keys table (migration 1000), filled by the ledger's inserts
            await conn.execute("VACUUM ANALYZE delivery_log")
        out["fill_s"] = round(time.perf_counter() - t0, 1)
        out["table_and_indexes_mb"] = round(
            await conn.fetchval("SELECT pg_total_relation_size('deliveries')") / 2**20, 1
        )
        out["delivery_log_table_and_indexes_mb"] = (
            round(await conn.fetchval("SELECT pg_total_relation_size('delivery_log')") / 2**20, 1)
            if keys
            else None
        )
        out["indexes_mb"] = {
            r["name"]: round(r["size"] / 2**20, 1)
            for r in await conn.fetch(
                "SELECT c.relname AS name, pg_relation_size(c.oid) AS size FROM pg_index AS i"
                " JOIN pg_class AS c ON c.oid = i.indexrelid"
                " WHERE i.indrelid IN ('deliveries'::regclass, to_regclass('delivery_log'))"
                " ORDER BY 1"
            )
        }
        pool = await asyncpg.create_pool(db_url, min_size=1, max_size=1)
        log = DeliveryLog(pool)
        now = datetime.now(UTC)
        for name, filters in combos(now):
            q = LogQuery(tenant_id=TENANT, limit=25, **filters)
            cell = {"filters": name, "first_page": await measure(conn, log, q, args.runs)}
            rows = await log.rows(q)
            if len(rows) > 25:
                nxt = LogQuery(
                    tenant_id=TENANT,
                    limit=25,
                    before=(rows[24]["created_at"], rows[24]["delivery_id"]),
                    **filters,
                )
                cell["second_page"] = await measure(conn, log, nxt, args.runs)
            print(
                json.dumps(
                    {
                        k: (v if k == "filters" else {x: y for x, y in v.items() if x != "plan"})
                        for k, v in cell.items()
                    }
                ),
                flush=True,
            )
            out["cells"].append(cell)
        await pool.close()
        await conn.close()
    out["page_weight"] = page_weight()
    out["load_after"] = list(os.getloadavg())
    out["recorded_at"] = datetime.now(UTC).isoformat(timespec="seconds")
    out["args"] = vars(args)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--output", default=str(RESULTS))
    args = ap.parse_args()
    result = asyncio.run(run(args))
    Path(args.output).write_text(json.dumps(result, indent=2) + "\n")
    print(f"wrote {args.output}")


if __name__ == "__main__":
    main()
