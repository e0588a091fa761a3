"""``attempt-stats`` before and after the attempt statistics projection (issue 32, item 7).

One subscription with 100,000 deliveries recorded over the last 24 hours (and a second one as
busy beside it): 90% accepted at once, 7% accepted after a failure, 2% dead-lettered after two
failures, 1% accepted after an unknown transport outcome; about 3.4 events per delivery. The
rows are written straight into ``events`` and ``deliveries`` with their recording times spread
over the 24 hours (the append path stamps ``clock_timestamp()``, which cannot spread them);
each is shaped as the engine writes it (types, versions, the fields the counts read). The
tenant and its subscriptions are real, registered and challenged through the engine's
services (``bench_ingest.setup``). Not a test: nothing asserts.

Measured, on an embedded PostgreSQL of the bench's own (so the WAL counts are exact) unless
``HOOKPROOF_BENCH_DATABASE_URL`` names a server:

- before: the old statement (``tests/delivery/attempt_stats_before.sql``, main at 77a2c3b):
  server execution time (EXPLAIN ANALYZE), wall time per call, rows and buffers read;
- the projector's catch-up over those deliveries (what a first pass after the upgrade does):
  wall, the Postgres backend's CPU (psutil) and WAL per delivery;
- after: the route's statement (the same figures), ``DeliveryReader.attempt_stats`` (what the
  handler runs) and ``GET /v1/subscriptions/{id}/attempt-stats`` over HTTP on loopback, wall
  per call; ``GET /v1/attempt-stats`` for 50 subscriptions in one call;
- the projector's passes while delivering (the rollup never writes on the delivery path):
  ``--passes`` chunks of ``--per-pass`` deliveries (5 s at 1,600 deliveries/s: 8,000), each
  inserted, then one pass: WAL bytes, backend CPU and wall per delivery of the pass alone,
  with the deliveries spread over 10 subscriptions (the e2e bench's 10-site peak) and over one
  subscription each (the worst case: every delivery its own bucket row; the first pass of an
  hour inserts the rows, later ones update them: "steady" leaves the first pass out); and,
  for scale, the WAL of the design not built, one upsert of the bucket per recorded outcome.

    .venv/bin/python bench/bench_attempt_stats.py [--deliveries 100000] [--runs 30]

Results: ``bench/results/s8_attempt_stats.json``; with the latency histogram (session 10: every
accepted or failed attempt has a ``duration_ms``, spread over 20-220 ms, so a pass fills many
buckets): ``--output bench/results/s10_attempt_stats.json`` (not run yet).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_ingest import fresh_database, postgres_server, setup

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results" / "s8_attempt_stats.json"
BEFORE_SQL = (ROOT / "tests" / "delivery" / "attempt_stats_before.sql").read_text()

# bench input: $3 deliveries of subscription $2 (tenant $1), ids '<$4>-<n>', recorded evenly
# from $5 to $6; the attempt templates below give each delivery its events
FILL_DELIVERIES = """
INSERT INTO deliveries (delivery_id, event_id, subscription_id, tenant_id, generation, endpoint,
    endpoint_digest, payload_digest, topic, owner, receipts, max_attempts, state, attempt,
    next_attempt_at, application, stream_version, created_at, updated_at)
SELECT $4::text || '-' || g, 'evt-' || $4::text || '-' || g,
    CASE WHEN $7::bool THEN $2::text || '-' || g ELSE $2::text END, $1::text, 1,
    'https://127.0.0.1:1/bench', 'sha-256=:bench:', 'sha-256=:x:', 'bench.stats', 'bench', false,
    8, CASE WHEN g % 100 IN (97, 98) THEN 'DEAD_LETTER' ELSE 'ENDPOINT_ACCEPTED' END,
    CASE WHEN g % 100 < 90 THEN 1 ELSE 2 END, NULL, 'UNOBSERVABLE',
    CASE WHEN g % 100 < 90 THEN 3 WHEN g % 100 IN (97, 98) THEN 6 ELSE 5 END,
    $5::timestamptz + ($6::timestamptz - $5::timestamptz) * (g::float8 / $3::int),
    $5::timestamptz + ($6::timestamptz - $5::timestamptz) * (g::float8 / $3::int)
        + interval '2 seconds'
FROM generate_series(1, $3::int) AS g
"""
# (kind, version, type, outcome, ms after planning); kind: 0 accepted, 1 failed then
# accepted, 2 two failures then dead-lettered, 3 unknown transport then accepted
FILL_EVENTS = """
WITH t(kind, version, type, outcome, ms) AS (VALUES
    (0, 1, 'delivery.planned', NULL, 0), (0, 2, 'delivery.attempt_admitted', NULL, 5),
    (0, 3, 'delivery.endpoint_accepted', NULL, 40),
    (1, 1, 'delivery.planned', NULL, 0), (1, 2, 'delivery.attempt_admitted', NULL, 5),
    (1, 3, 'delivery.attempt_failed', 'RETRYABLE', 40),
    (1, 4, 'delivery.attempt_admitted', NULL, 900),
    (1, 5, 'delivery.endpoint_accepted', NULL, 950),
    (2, 1, 'delivery.planned', NULL, 0), (2, 2, 'delivery.attempt_admitted', NULL, 5),
    (2, 3, 'delivery.attempt_failed', 'RETRYABLE', 40),
    (2, 4, 'delivery.attempt_admitted', NULL, 900),
    (2, 5, 'delivery.attempt_failed', 'RETRYABLE', 950),
    (2, 6, 'delivery.dead_lettered', NULL, 950),
    (3, 1, 'delivery.planned', NULL, 0), (3, 2, 'delivery.attempt_admitted', NULL, 5),
    (3, 3, 'delivery.attempt_failed', 'UNKNOWN_TRANSPORT', 40),
    (3, 4, 'delivery.attempt_admitted', NULL, 900),
    (3, 5, 'delivery.endpoint_accepted', NULL, 950)
), d AS (
    SELECT d.delivery_id, d.subscription_id, d.tenant_id, d.created_at,
           CASE WHEN g % 100 < 90 THEN 0 WHEN g % 100 < 97 THEN 1
                WHEN g % 100 < 99 THEN 2 ELSE 3 END AS kind
    FROM deliveries AS d, LATERAL (SELECT split_part(d.delivery_id, '-', 2)::int AS g) AS n
    WHERE d.delivery_id LIKE $1::text || '-%'
)
INSERT INTO events (stream_id, category, stream_version, event_id, type, schema_version, data,
                    metadata, recorded_at, prev_hash, hash)
SELECT 'delivery-' || d.delivery_id, 'delivery', t.version, gen_random_uuid(), t.type, 1,
    convert_to(json_build_object(
        'type', t.type, 'delivery_id', d.delivery_id, 'subscription_id', d.subscription_id,
        'tenant_id', d.tenant_id, 'attempt', (t.version / 2), 'outcome', t.outcome,
        'code', CASE WHEN t.outcome IS NOT NULL THEN 'http_500' END,
        'duration_ms', CASE WHEN t.type IN ('delivery.endpoint_accepted', 'delivery.attempt_failed')
            THEN round((20 + abs(hashtext(d.delivery_id || t.version)) % 20000 / 100.0)::numeric, 3)
            END,
        'at', d.created_at + t.ms * interval '1 millisecond')::text, 'UTF8'),
    convert_to('{"actor":"bench"}', 'UTF8'),
    d.created_at + t.ms * interval '1 millisecond', NULL,
    sha256(convert_to(d.delivery_id || '/' || t.version, 'UTF8'))
FROM d JOIN t USING (kind)
ORDER BY d.created_at, d.delivery_id, t.version
"""
WAL_LSN = "SELECT pg_current_wal_lsn()"
WAL_BYTES = "SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), $1::pg_lsn)"
# the design not built: one upsert of its bucket per recorded outcome, each its own commit
PER_OUTCOME = """
INSERT INTO bench_per_outcome AS t (subscription_id, hour, outcome, tenant_id, attempts)
VALUES ($1, $2, $3, $4, 1)
ON CONFLICT (subscription_id, hour, outcome) DO UPDATE SET attempts = t.attempts + 1
"""
PER_OUTCOME_TABLE = """
CREATE TABLE IF NOT EXISTS bench_per_outcome (LIKE proj_attempt_stats INCLUDING ALL);
-- the what-if counts only (no latency histogram): the column may stay empty
ALTER TABLE bench_per_outcome ALTER COLUMN latency DROP NOT NULL;
"""
OUTCOMES_OF = """
SELECT d.subscription_id, date_trunc('hour', e.recorded_at, 'UTC') AS hour,
       CASE e.type WHEN 'delivery.endpoint_accepted' THEN 'ENDPOINT_ACCEPTED'
            ELSE convert_from(e.data, 'UTF8')::jsonb ->> 'outcome' END AS outcome, d.tenant_id
FROM events AS e JOIN deliveries AS d ON d.delivery_id = substr(e.stream_id, 10)
WHERE d.delivery_id LIKE $1::text || '-%'
  AND e.type IN ('delivery.endpoint_accepted', 'delivery.attempt_failed')
ORDER BY e.global_position
"""


def _median_ms(values: list[float]) -> float:
    return round(statistics.median(values) * 1000, 3)


async def _explain(conn: Any, sql: str, *args: Any) -> dict[str, Any]:
    doc = await conn.fetchval("EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) " + sql, *args)
    top = (json.loads(doc) if isinstance(doc, str) else doc)[0]
    plan = top["Plan"]

    def rows(p: dict[str, Any]) -> int:
        own = 0
        if p["Node Type"] in ("Seq Scan", "Index Scan", "Index Only Scan", "Bitmap Heap Scan"):
            own = int(p.get("Actual Loops", 1)) * (
                int(p.get("Actual Rows", 0)) + int(p.get("Rows Removed by Filter", 0))
            )
        return own + sum(rows(c) for c in p.get("Plans", []))

    return {
        "execution_ms": round(float(top["Execution Time"]), 3),
        "rows_read": rows(plan),
        "buffers": int(plan.get("Shared Hit Blocks", 0)) + int(plan.get("Shared Read Blocks", 0)),
    }


async def _statement(conn: Any, sql: str, args: tuple[Any, ...], runs: int) -> dict[str, Any]:
    await conn.fetch(sql, *args)  # warm
    walls = []
    for _ in range(runs):
        t0 = time.perf_counter()
        rows = await conn.fetch(sql, *args)
        walls.append(time.perf_counter() - t0)
    plans = [await _explain(conn, sql, *args) for _ in range(max(3, runs // 5))]
    return {
        "wall_ms_median": _median_ms(walls),
        "wall_ms_max": round(max(walls) * 1000, 3),
        "server_execution_ms_median": round(statistics.median(p["execution_ms"] for p in plans), 3),
        "rows_read": plans[-1]["rows_read"],
        "buffers": plans[-1]["buffers"],
        "result_rows": len(rows),
    }


class Postgres:
    """CPU seconds of the whole (embedded, the bench's own) server: the postmaster and every
    process under it, from /proc (psutil)."""

    def __init__(self, backend_pid: int) -> None:
        import psutil

        self.postmaster = psutil.Process(backend_pid).parent()

    def cpu(self) -> float:
        t = self.postmaster.cpu_times()
        total = t.user + t.system + t.children_user + t.children_system
        for child in self.postmaster.children(recursive=True):
            try:
                c = child.cpu_times()
            except Exception:  # exited meanwhile: counted in children_* once reaped
                continue
            total += c.user + c.system
        return float(total)


async def _pass(conn: Any, store: Any, stats: Any, backend: Postgres | None) -> dict[str, Any]:
    """One projector pass over the attempt statistics (the daemon's), measured."""
    from hookproof.projections.projector import consume_in_database

    lsn = await conn.fetchval(WAL_LSN)
    cpu0 = backend.cpu() if backend else 0.0
    t0 = time.perf_counter()
    events = await consume_in_database(store, stats, batch=20_000)
    wall = time.perf_counter() - t0
    cpu = (backend.cpu() - cpu0) if backend else None
    wal = float(await conn.fetchval(WAL_BYTES, lsn))
    return {"events": events, "wall_s": wall, "postgres_cpu_s": cpu, "wal_bytes": wal}


async def run(args: argparse.Namespace) -> dict[str, Any]:
    import aiohttp
    import asyncpg
    import psutil
    from aiohttp import web

    from hookproof.config import Settings
    from hookproof.engine.db.database import connect_pool
    from hookproof.engine.db.migrate import migrate
    from hookproof.engine.db.queries import ENGINE_QUERIES
    from hookproof.engine.runtime.daemon import build_engine
    from hookproof.events import EventStore
    from hookproof.projections.attempt_stats import AttemptStats

    route_sql = ENGINE_QUERIES.named("subscription_attempt_stats")["subscription_attempt_stats"]
    out: dict[str, Any] = {"benchmark": "s8_attempt_stats", "args": vars(args)}
    out["load_before"] = os.getloadavg()
    psutil.cpu_percent(None)
    with postgres_server(os.environ.get("HOOKPROOF_BENCH_DATABASE_URL")) as (admin, folder):
        out["postgres"] = "embedded (pgserver), the bench's own" if folder else "given server"
        db_url = await fresh_database(admin)
        env = {"HOOKPROOF_DATABASE_URL": db_url, "HOOKPROOF_DATA_DIR": tempfile.mkdtemp()}
        conn = await asyncpg.connect(db_url)
        await migrate(conn)
        out["server_version"] = await conn.fetchval("SHOW server_version")
        await conn.close()
        made = await setup(db_url, env, Path(env["HOOKPROOF_DATA_DIR"]))
        tenant, token, subs = made["tenant"], made["token"], made["subscriptions"]
        target, busy = subs[0], subs[1]
        pool = await connect_pool(db_url, min_size=2, max_size=4)
        store = EventStore(pool)
        stats = AttemptStats()
        now = datetime.now(UTC)
        start = now.replace(minute=0, second=0, microsecond=0) - timedelta(hours=23)
        first, last = now - timedelta(hours=24), now - timedelta(seconds=5)
        async with pool.acquire() as conn:
            backend = Postgres(await conn.fetchval("SELECT pg_backend_pid()")) if folder else None
            t0 = time.perf_counter()
            for sub, prefix in ((target, "t"), (busy, "b")):
                await conn.execute(
                    FILL_DELIVERIES, tenant, sub, args.deliveries, prefix, first, last, False
                )
                await conn.execute(FILL_EVENTS, prefix)
            await conn.execute("VACUUM ANALYZE")
            out["fill"] = {
                "deliveries": 2 * args.deliveries,
                "events": await conn.fetchval("SELECT count(*) FROM events"),
                "seconds": round(time.perf_counter() - t0, 1),
            }
            print(json.dumps(out["fill"]), flush=True)

            out["before"] = await _statement(
                conn, BEFORE_SQL, (tenant, target, start), max(5, args.runs // 3)
            )
            print(json.dumps({"before": out["before"]}), flush=True)

            caught = await _pass(conn, store, stats, backend)
            n = 2 * args.deliveries
            out["catch_up"] = {
                "events": caught["events"],
                "wall_s": round(caught["wall_s"], 3),
                "postgres_cpu_us_per_delivery": (
                    round(caught["postgres_cpu_s"] / n * 1e6, 2) if backend else None
                ),
                "wal_bytes_per_delivery": round(caught["wal_bytes"] / n, 2),
                "rows": await conn.fetchval("SELECT count(*) FROM proj_attempt_stats"),
            }
            print(json.dumps({"catch_up": out["catch_up"]}), flush=True)
            await conn.execute("VACUUM ANALYZE proj_attempt_stats")
            out["after"] = {
                "statement": await _statement(conn, route_sql, (tenant, target, start), args.runs)
            }
            old_rows = await conn.fetch(BEFORE_SQL, tenant, target, start)
            new_rows = await conn.fetch(route_sql, tenant, target, start)
            out["same_counts"] = [tuple(r) for r in old_rows] == [tuple(r) for r in new_rows]
            print(json.dumps({"same_counts": out["same_counts"]}), flush=True)

        settings = Settings.from_env({**os.environ, **env})
        engine = await build_engine(settings, pool)
        runner = web.AppRunner(engine.app(), access_log=None)
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
        try:
            reader = engine.services.reader

            async def timed(call: Any) -> dict[str, Any]:
                """Wall and this process's CPU per call (medians): the CPU is the handler's
                and, over HTTP, the loopback client's too (one process), whatever the load."""
                await call()
                walls, cpus = [], []
                for _ in range(args.runs):
                    c0, t0 = time.process_time(), time.perf_counter()
                    await call()
                    walls.append(time.perf_counter() - t0)
                    cpus.append(time.process_time() - c0)
                return {"wall_ms_median": _median_ms(walls), "cpu_ms_median": _median_ms(cpus)}

            view = await reader.attempt_stats(tenant, target, datetime.now(UTC))
            out["after"]["attempts_counted"] = sum(
                sum(b["counts"].values()) for b in view["buckets"]
            )
            out["after"]["reader"] = await timed(
                lambda: reader.attempt_stats(tenant, target, datetime.now(UTC))
            )
            out["after"]["reader_50_subscriptions"] = await timed(
                lambda: reader.attempt_stats_of(tenant, subs[:50], datetime.now(UTC))
            )
            headers = {"Authorization": f"Bearer {token}"}
            base = f"http://127.0.0.1:{port}"
            async with aiohttp.ClientSession() as http:

                async def get(path: str) -> None:
                    async with http.get(base + path, headers=headers) as resp:
                        assert resp.status == 200, await resp.text()
                        await resp.read()

                one = f"/v1/subscriptions/{target}/attempt-stats"
                out["after"]["http_one"] = await timed(lambda: get(one))
                many = "/v1/attempt-stats?" + "&".join(f"subscriptionId={s}" for s in subs[:50])
                out["after"]["http_50_subscriptions"] = await timed(lambda: get(many))
        finally:
            await runner.cleanup()
            await engine.close()
        print(json.dumps({"after": out["after"]}), flush=True)

        # the projector's passes while delivering: what the rollup adds, per delivery. Two
        # shapes: 10 subscriptions (the e2e bench's 10-site peak: a pass changes a few rows),
        # and every delivery of a pass to a subscription of its own (the same --per-pass
        # subscriptions in every pass: the first pass of an hour inserts their rows, the
        # next ones update them), the most rows a pass can change.
        out["passes"] = {}
        async with pool.acquire() as conn:
            backend = Postgres(await conn.fetchval("SELECT pg_backend_pid()")) if folder else None
            await conn.execute(PER_OUTCOME_TABLE)
            for shape, spread in (("10_subscriptions", False), ("one_subscription_each", True)):
                cells = []
                for k in range(args.passes):
                    prefix = f"p{shape[0]}{k}"
                    sub = subs[2 + k % 10] if not spread else "sub_bench"
                    at = datetime.now(UTC)
                    await conn.execute(
                        FILL_DELIVERIES,
                        tenant,
                        sub,
                        args.per_pass,
                        prefix,
                        at - timedelta(seconds=5),
                        at,
                        spread,
                    )
                    await conn.execute(FILL_EVENTS, prefix)
                    cells.append(await _pass(conn, store, stats, backend))
                    if k == 0:  # the design not built, on the same outcomes
                        outcomes = await conn.fetch(OUTCOMES_OF, prefix)
                        lsn = await conn.fetchval(WAL_LSN)
                        for r in outcomes:
                            await conn.execute(PER_OUTCOME, *r)
                        per_outcome = float(await conn.fetchval(WAL_BYTES, lsn)) / args.per_pass
                steady = cells[1:] or cells
                n = args.per_pass * len(steady)
                out["passes"][shape] = {
                    "deliveries_per_pass": args.per_pass,
                    "passes": len(cells),
                    "events_per_pass": round(sum(c["events"] for c in cells) / len(cells)),
                    "first_pass_wal_bytes_per_delivery": round(
                        cells[0]["wal_bytes"] / args.per_pass, 2
                    ),
                    "wal_bytes_per_delivery": round(sum(c["wal_bytes"] for c in steady) / n, 2),
                    "postgres_cpu_us_per_delivery": (
                        round(sum(c["postgres_cpu_s"] for c in steady) / n * 1e6, 2)
                        if backend
                        else None
                    ),
                    "wall_ms_per_pass_median": _median_ms([c["wall_s"] for c in steady]),
                    "what_if_per_outcome_upsert_wal_bytes_per_delivery": round(per_outcome, 1),
                }
                print(json.dumps({shape: out["passes"][shape]}), flush=True)
        await pool.close()
    out["load_after"] = os.getloadavg()
    out["cpu_percent_during"] = psutil.cpu_percent(None)
    out["recorded_at"] = datetime.now(UTC).isoformat(timespec="seconds")
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deliveries", type=int, default=100_000)
    ap.add_argument("--runs", type=int, default=30)
    ap.add_argument("--passes", type=int, default=5)
    ap.add_argument("--per-pass", type=int, default=8_000)
    ap.add_argument("--output", default=str(RESULTS))
    args = ap.parse_args()
    result = asyncio.run(run(args))
    Path(args.output).write_text(json.dumps(result, indent=2) + "\n")
    print(f"wrote {args.output}")


if __name__ == "__main__":
    main()
