"""Does ordered delivery cost the unordered claim anything? The claim query before the feature
(from git, ``--before REV``) and now, on the same queue: N due unordered deliveries, then the
same with a backlog of ordered deliveries held behind dead letters.

Each measurement runs the claim (LIMIT 100, FOR UPDATE SKIP LOCKED) in a transaction that is
rolled back, so the queue is the same every time. Rows are bulk-inserted into the projection
tables (this measures the query, not ingest).

Server: ``HOOKPROOF_BENCH_DATABASE_URL`` (an admin URL) or an embedded ``pgserver``.

    .venv/bin/python bench/bench_ordering.py [--due 20000] [--held 5000] [--runs 200]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import shutil
import statistics
import subprocess
import tempfile
import time
import urllib.parse
import uuid
from pathlib import Path
from typing import Any

import asyncpg

from hookproof.engine.db.migrate import migrate
from hookproof.events.sqlfiles import query

ROOT = Path(__file__).resolve().parents[1]

SUBS = """
INSERT INTO subscriptions (subscription_id, tenant_id, generation, state, endpoint,
    endpoint_digest, topics, event_versions, config, stream_version, pinned_addresses,
    created_at, updated_at)
SELECT 'sub_' || i, 'ten_1', 1, 'ACTIVE', 'https://h' || i || '.example/in', 'dig' || i,
    ARRAY['t'], ARRAY[1], '{"signature_algorithm": "ed25519"}', 1, ARRAY[]::text[], now(), now()
FROM generate_series(0, $1 - 1) AS i
"""

DELIVERIES = """
INSERT INTO deliveries (delivery_id, event_id, subscription_id, tenant_id, generation,
    endpoint, endpoint_digest, payload_digest, topic, owner, receipts, max_attempts, state,
    attempt, next_attempt_at, application, stream_version, created_at, updated_at,
    aggregate_id, aggregate_version, ordering_gap_timeout_s)
SELECT $1 || i, 'e' || $1 || i, 'sub_' || (i % $3), 'ten_1', 1,
    'https://h' || (i % $3) || '.example/in', 'dig' || (i % $3), 'sha-256=:x:', 't', 'ops',
    false, 8, CASE WHEN $4 AND i % 50 = 0 THEN 'DEAD_LETTER' ELSE 'PLANNED' END, 0,
    now() - interval '1 minute', 'UNOBSERVABLE', 1, now(), now(),
    CASE WHEN $4 THEN 'agg' || (i / 50) END, CASE WHEN $4 THEN i % 50 + 1 END,
    CASE WHEN $4 THEN 60.0 END
FROM generate_series(0, $2 - 1) AS i
"""


def _with_database(url: str, name: str) -> str:
    return urllib.parse.urlunsplit(urllib.parse.urlsplit(url)._replace(path="/" + name))


async def _claim_once(conn: asyncpg.Connection, sql: str) -> float:
    tx = conn.transaction()
    await tx.start()
    t0 = time.perf_counter()
    shares = (1, 0, True, 0.0) if "$3" in sql else ()  # endpoint shares: every row
    rows = await conn.fetch(sql, 100, [], *shares)
    elapsed = time.perf_counter() - t0
    await tx.rollback()
    assert len(rows) == 100
    return elapsed


def _summary(samples: list[float]) -> dict[str, float]:
    samples = sorted(samples)
    return {
        "p50_ms": round(statistics.median(samples) * 1000, 3),
        "p90_ms": round(samples[int(len(samples) * 0.9)] * 1000, 3),
        "claims_per_s": round(1 / statistics.median(samples), 1),
    }


async def _compare(conn: asyncpg.Connection, before: str, now: str, runs: int) -> dict[str, Any]:
    """Both queries, interleaved (the machine is shared: drift hits both alike)."""
    a: list[float] = []
    b: list[float] = []
    for _ in range(10):  # warm both plans
        await _claim_once(conn, before)
        await _claim_once(conn, now)
    for i in range(runs):
        first, second = (before, now) if i % 2 else (now, before)
        t1 = await _claim_once(conn, first)
        t2 = await _claim_once(conn, second)
        (a if first is before else b).append(t1)
        (b if first is before else a).append(t2)
    out = {"before": _summary(a), "now": _summary(b)}
    out["now_over_before_p50"] = round(out["now"]["p50_ms"] / out["before"]["p50_ms"], 3)
    return out


def _old_claim(rev: str) -> str:
    return subprocess.run(
        ["git", "show", f"{rev}:engine/sql/queries/dispatch_claim.sql"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout


async def run(url: str, before: str, args: argparse.Namespace) -> dict[str, Any]:
    now_sql = query("dispatch_claim", "hookproof.engine")
    name = f"hp_bench_ordering_{uuid.uuid4().hex[:8]}"
    admin = await asyncpg.connect(url)
    await admin.execute(f'CREATE DATABASE "{name}"')
    try:
        conn = await asyncpg.connect(_with_database(url, name))
        try:
            await migrate(conn)
            await conn.execute(SUBS, args.subs)
            await conn.execute(DELIVERIES, "dlv_u", args.due, args.subs, False)
            await conn.execute("ANALYZE")
            out: dict[str, Any] = {
                "unordered_queue": await _compare(conn, before, now_sql, args.runs)
            }
            await conn.execute(DELIVERIES, "dlv_o", args.held, args.subs, True)
            await conn.execute("ANALYZE")
            # (the old query ignores ordering: it would claim held rows too)
            out["with_held_ordered_backlog"] = await _compare(conn, before, now_sql, args.runs)
        finally:
            await conn.close()
    finally:
        await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        await admin.close()
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--due", type=int, default=20000, help="due unordered deliveries")
    ap.add_argument("--held", type=int, default=5000, help="ordered deliveries, mostly held")
    ap.add_argument("--subs", type=int, default=100)
    ap.add_argument("--runs", type=int, default=200)
    ap.add_argument("--before", default="7797c9e^", help="git revision of the old claim query")
    ap.add_argument("--out", default=str(ROOT / "bench" / "results" / "ordering.json"))
    args = ap.parse_args()
    url = os.environ.get("HOOKPROOF_BENCH_DATABASE_URL")
    folder = None
    server = None
    if not url:
        import pgserver

        folder = tempfile.mkdtemp(prefix="hp-bench-")
        server = pgserver.get_server(folder, cleanup_mode="delete")
        url = server.get_uri()
    try:
        results = asyncio.run(run(url, _old_claim(args.before), args))
    finally:
        if server is not None:
            server.cleanup()
        if folder:
            shutil.rmtree(folder, ignore_errors=True)
    doc = {
        "benchmark": "ordering_claim",
        "machine": {"python": platform.python_version(), "cpus": os.cpu_count()},
        "params": {k: v for k, v in vars(args).items() if k != "out"},
        "results": results,
    }
    print(json.dumps(doc, indent=2))
    Path(args.out).write_text(json.dumps(doc, indent=2) + "\n")


if __name__ == "__main__":
    main()
