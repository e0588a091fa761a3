"""A claim beside a full endpoint's backlog: the claim by due order against the claim per
endpoint (issue 27).

One endpoint (A) is full (blocked: no room) and has a backlog of N waiting rows, all due before
the other endpoints' rows; nine other endpoints have 10 due rows each. A claim of 100 rows must
take the others' 90 and none of A's. Measured for each backlog size, on one connection, each
claim in a transaction rolled back (so every claim sees the same rows): the mean time of
``DeliveryRepository.claim`` and the ledger rows it read (``pg_stat_xact_user_tables``), with
``heads_max=-1`` (the claim by due order, ``dispatch_claim.sql``: what every claim was before)
and with the default (``dispatch_due_heads.sql`` + ``dispatch_claim_endpoints.sql``). The ledger
rows are written straight into the table (no events: the claim reads none but the head hash,
NULL here); the subscriptions are real, registered and challenged through the engine's
services (``bench_ingest.setup``). Not a test: nothing asserts.

    .venv/bin/python bench/bench_claim_backlog.py [--backlogs 0,1000,10000,100000] [--claims 30]

Results: ``bench/results/claim_backlog.json``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_ingest import fresh_database, postgres_server, setup

RESULTS = Path(__file__).resolve().parent / "results" / "claim_backlog.json"
ROWS_READ = (
    "SELECT coalesce(sum(idx_tup_fetch + seq_tup_read), 0) FROM pg_stat_xact_user_tables"
    " WHERE relname = 'deliveries'"
)
# bench input: N rows of one subscription's endpoint, due an hour ago onwards (one ms apart)
FILL = """
INSERT INTO deliveries (delivery_id, event_id, subscription_id, tenant_id, generation, endpoint,
    endpoint_digest, payload_digest, topic, owner, receipts, max_attempts, state, attempt,
    next_attempt_at, application, stream_version, created_at, updated_at)
SELECT $1 || '-' || g, 'evt-' || $1 || '-' || g, s.subscription_id, s.tenant_id, s.generation,
    'https://127.0.0.1:1/' || $1, $2, 'sha-256=:x:', 'bench.ingest', 'bench', false, 8,
    'PLANNED', 0, now() - make_interval(secs => $4::float8) + g * interval '1 millisecond', 'UNOBSERVABLE', 1,
    now(), now()
FROM generate_series(1, $3::int) AS g, subscriptions AS s
WHERE s.subscription_id = $5
"""


async def measure(
    repo: Any, conn: Any, blocked: str, claims: int, heads_max: int
) -> dict[str, Any]:
    times, reads, taken = [], [], []
    for _ in range(claims):
        tx = conn.transaction()
        await tx.start()
        before = await conn.fetchval(ROWS_READ)
        t0 = time.perf_counter()
        rows = await repo.claim(conn, 100, [blocked], heads_max=heads_max)
        times.append(time.perf_counter() - t0)
        reads.append(int(await conn.fetchval(ROWS_READ) - before))
        taken.append(sum(1 for r in rows if r["endpoint_digest"] == blocked))
        await tx.rollback()
    times.sort()
    return {
        "claim_ms_median": round(times[len(times) // 2] * 1000, 3),
        "claim_ms_mean": round(sum(times) / len(times) * 1000, 3),
        "ledger_rows_read": max(reads),
        "rows_claimed": len(rows),
        "rows_of_the_full_endpoint": max(taken),
    }


async def run(args: argparse.Namespace) -> dict[str, Any]:
    import asyncpg

    from hookproof.engine.delivery.repository import DeliveryRepository
    from hookproof.events import EventStore

    out: dict[str, Any] = {"benchmark": "claim_backlog", "cells": []}
    with postgres_server(os.environ.get("HOOKPROOF_BENCH_DATABASE_URL")) as (admin, _):
        db_url = await fresh_database(admin)
        env = {"HOOKPROOF_DATABASE_URL": db_url, "HOOKPROOF_DATA_DIR": tempfile.mkdtemp()}
        conn = await asyncpg.connect(db_url)
        from hookproof.engine.db.migrate import migrate

        await migrate(conn)
        await conn.close()
        ids = (await setup(db_url, env, Path(env["HOOKPROOF_DATA_DIR"])))["subscriptions"]
        pool = await asyncpg.create_pool(db_url, min_size=1, max_size=2)
        repo = DeliveryRepository.of(EventStore(pool))
        async with pool.acquire() as conn:
            for i, sub in enumerate(ids[1:10]):  # nine endpoints with 10 due rows each
                await conn.execute(FILL, f"other{i}", f"digest-other-{i}", 10, 1.0, sub)
            loaded = 0
            for backlog in sorted(int(b) for b in args.backlogs.split(",")):
                if backlog > loaded:
                    await conn.execute(
                        FILL, f"full{loaded}", "digest-full", backlog - loaded, 7200.0, ids[0]
                    )
                    loaded = backlog
                await conn.execute("VACUUM ANALYZE deliveries")
                cell: dict[str, Any] = {"backlog": backlog}
                for name, heads_max in (("by_due_order", -1), ("per_endpoint", 64)):
                    cell[name] = await measure(repo, conn, "digest-full", args.claims, heads_max)
                print(json.dumps(cell), flush=True)
                out["cells"].append(cell)
        await pool.close()
    out["recorded_at"] = datetime.now(UTC).isoformat(timespec="seconds")
    out["args"] = vars(args)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--backlogs", default="0,1000,10000,100000")
    ap.add_argument("--claims", type=int, default=30)
    ap.add_argument("--output", default=str(RESULTS))
    args = ap.parse_args()
    result = asyncio.run(run(args))
    Path(args.output).write_text(json.dumps(result, indent=2) + "\n")
    print(f"wrote {args.output}")


if __name__ == "__main__":
    main()
