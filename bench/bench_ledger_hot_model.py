"""A model of the ledger row's WAL: as it is, and with the dispatch queue in a table of its own
so that both ledger updates can be HOT (the split session 6 proposed; bench/HISTORY.md
"Session 7").

Builds a table shaped as ``deliveries`` (every column and the fillfactor the migrations leave;
``--from`` a row of a real run is not needed: the values are a real run's sizes), then plans,
claims and accepts N rows in transactions of 100, as the engine's three writes do, and reports
WAL bytes per delivery (``pg_current_wal_insert_lsn``) and the HOT updates:

- ``A``: the ledger as migrated (the due, lease and dead-letter partial indexes on it);
- ``B``: those indexes moved to a narrow ``queue`` table keyed by the delivery id (text),
  inserted at planning, updated at the claim, deleted at the outcome;
- ``C``: as B, the queue keyed by a bigint.

Runs against ``HOOKPROOF_BENCH_DATABASE_URL`` (default: the local server's ``postgres``
database) in tables of its own, dropped at the end. Not a test: nothing asserts.

    .venv/bin/python bench/bench_ledger_hot_model.py [--rows 10000]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import uuid
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import asyncpg

RESULTS = Path(__file__).resolve().parent / "results" / "ledger_hot_model.json"
BATCH = 100
COLS = """delivery_id text PRIMARY KEY, event_id text NOT NULL, subscription_id text NOT NULL,
 tenant_id text NOT NULL, generation integer NOT NULL, endpoint text NOT NULL,
 endpoint_digest text NOT NULL, payload_digest text NOT NULL, topic text NOT NULL,
 owner text NOT NULL, receipts boolean NOT NULL, max_attempts integer NOT NULL,
 state text NOT NULL, attempt integer NOT NULL, next_attempt_at timestamptz, lease_owner text,
 lease_until timestamptz, last_code text, last_status integer, location text,
 dead_letter_reason text, application text NOT NULL, unknown_since timestamptz,
 accepted_at timestamptz, confirmed_at timestamptz, stream_version bigint NOT NULL,
 created_at timestamptz NOT NULL, updated_at timestamptz NOT NULL, aggregate_id text,
 aggregate_version bigint, ordering_gap_timeout_s double precision,
 gap_skipped boolean NOT NULL DEFAULT false, queue_id bigint"""
FULL = [
    "CREATE INDEX ON hp_model_d (tenant_id, event_id)",
    "CREATE INDEX ON hp_model_d (subscription_id)",
    "CREATE INDEX ON hp_model_d (subscription_id, aggregate_id, aggregate_version)"
    " WHERE ordering_gap_timeout_s IS NOT NULL",
]
PARTIAL = [
    "CREATE INDEX ON hp_model_d (next_attempt_at)"
    " WHERE state IN ('PLANNED', 'RETRYABLE', 'UNKNOWN_TRANSPORT')",
    "CREATE INDEX ON hp_model_d (lease_until) WHERE state = 'DISPATCHING'",
    "CREATE INDEX ON hp_model_d (tenant_id) WHERE state = 'DEAD_LETTER'",
    "CREATE INDEX ON hp_model_d (tenant_id, updated_at DESC, delivery_id DESC)"
    " WHERE state = 'DEAD_LETTER'",
]
DIGEST = "1dd5e5b24324c8497436d059c1ea53b56bcb3709638280553fb844a00fefdf7e"


async def model(c: asyncpg.Connection, mode: str, rows: int) -> dict[str, Any]:
    await c.execute("DROP TABLE IF EXISTS hp_model_d; DROP TABLE IF EXISTS hp_model_q")
    await c.execute(f"CREATE TABLE hp_model_d ({COLS}) WITH (fillfactor = 50)")
    for s in FULL + (PARTIAL if mode == "A" else []):
        await c.execute(s)
    if mode != "A":
        key = "delivery_id text" if mode == "B" else "queue_id bigint"
        await c.execute(
            f"CREATE TABLE hp_model_q ({key} PRIMARY KEY, due_at timestamptz NOT NULL,"
            " leased boolean NOT NULL) WITH (fillfactor = 50)"
        )
        await c.execute("CREATE INDEX ON hp_model_q (due_at) WHERE NOT leased")
        await c.execute("CREATE INDEX ON hp_model_q (due_at) WHERE leased")
    col = "delivery_id" if mode == "B" else "queue_id"
    now = datetime.now(UTC)
    ids = [f"dlv_{uuid.uuid4().hex[:28]}" for _ in range(rows)]

    def qkey(i: int, d: str) -> Any:
        return d if mode == "B" else i

    await c.execute("CHECKPOINT")
    start = await c.fetchval("SELECT pg_current_wal_insert_lsn()")
    for k in range(0, rows, BATCH):
        chunk = list(enumerate(ids[k : k + BATCH], start=k))
        async with c.transaction():
            await c.executemany(
                "INSERT INTO hp_model_d (delivery_id, event_id, subscription_id, tenant_id,"
                " generation, endpoint, endpoint_digest, payload_digest, topic, owner, receipts,"
                " max_attempts, state, attempt, next_attempt_at, application, stream_version,"
                " created_at, updated_at, queue_id) VALUES ($1, $2, $3,"
                " 'ten_5aeddb23254590ca', 1, 'https://127.0.0.1:46261/ok-0', $4,"
                " 'sha-256=:tVg+u1tNvl0iKQlPJf2D957jsPlNAJUrLXZNNCzMXr8=:', 'order.created',"
                " 'team-orders', false, 8, 'PLANNED', 0, $5, 'UNOBSERVABLE', 1, $5, $5, $6)",
                [
                    (d, f"evt-{i // 10}", f"sub_a07ca1c18b165944af85c8{i % 10:02d}", DIGEST, now, i)
                    for i, d in chunk
                ],
            )
            if mode != "A":
                await c.executemany(
                    f"INSERT INTO hp_model_q VALUES ($1::{'text' if mode == 'B' else 'bigint'},"
                    " $2, false)",
                    [(qkey(i, d), now) for i, d in chunk],
                )
    for step in ("claim", "outcome"):
        for k in range(0, rows, BATCH):
            chunk = list(enumerate(ids[k : k + BATCH], start=k))
            async with c.transaction():
                await c.execute(
                    "SELECT 1 FROM hp_model_d WHERE delivery_id = ANY($1) FOR UPDATE",
                    [d for _, d in chunk],
                )
                if step == "claim":
                    await c.executemany(
                        "UPDATE hp_model_d SET state = 'DISPATCHING', attempt = 1,"
                        " next_attempt_at = NULL, lease_owner = 'vm:1234:abcdef',"
                        " lease_until = $2, stream_version = 2, updated_at = $2"
                        " WHERE delivery_id = $1",
                        [(d, now) for _, d in chunk],
                    )
                    if mode != "A":
                        await c.executemany(
                            f"UPDATE hp_model_q SET due_at = $2, leased = true WHERE {col} = $1",
                            [(qkey(i, d), now) for i, d in chunk],
                        )
                else:
                    await c.executemany(
                        "UPDATE hp_model_d SET state = 'ENDPOINT_ACCEPTED', lease_owner = NULL,"
                        " lease_until = NULL, last_status = 204, accepted_at = $2,"
                        " stream_version = 3, updated_at = $2 WHERE delivery_id = $1",
                        [(d, now) for _, d in chunk],
                    )
                    if mode != "A":
                        await c.executemany(
                            f"DELETE FROM hp_model_q WHERE {col} = $1",
                            [(qkey(i, d),) for i, d in chunk],
                        )
    end = await c.fetchval("SELECT pg_current_wal_insert_lsn()")
    wal = await c.fetchval("SELECT pg_wal_lsn_diff($1, $2)", end, start)
    await c.execute("SELECT pg_stat_force_next_flush()")
    await asyncio.sleep(1.5)
    hot = await c.fetchval(
        "SELECT n_tup_hot_upd FROM pg_stat_user_tables WHERE relname = 'hp_model_d'"
    )
    await c.execute("DROP TABLE IF EXISTS hp_model_d; DROP TABLE IF EXISTS hp_model_q")
    return {"wal_bytes_per_delivery": round(float(wal) / rows, 1), "hot_updates": hot}


async def run(args: argparse.Namespace) -> dict[str, Any]:
    url = os.environ.get(
        "HOOKPROOF_BENCH_DATABASE_URL", "postgresql://postgres@127.0.0.1:5432/postgres"
    )
    c = await asyncpg.connect(url)
    try:
        await c.execute("SET synchronous_commit = off")  # WAL bytes do not depend on it
        out = {m: await model(c, m, args.rows) for m in ("A", "B", "C")}
        version = await c.fetchval("SHOW server_version")
    finally:
        await c.close()
    for m, r in out.items():
        print(m, r)
    return {
        "benchmark": "ledger_hot_model",
        "rows": args.rows,
        "updates": 2 * args.rows,
        "server_version": version,
        "modes": out,
        "recorded_at": datetime.now(UTC).isoformat(timespec="seconds"),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=10_000)
    ap.add_argument("--output", default=str(RESULTS))
    args = ap.parse_args()
    Path(args.output).write_text(json.dumps(asyncio.run(run(args)), indent=2) + "\n")
    print(f"wrote {args.output}")


if __name__ == "__main__":
    main()
