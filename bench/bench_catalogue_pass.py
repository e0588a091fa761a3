"""One pass of the stream catalogue's projector over a minute of soak traffic: how long it
holds the event loop it runs on (in ``serve --workers N``, the first worker's, which also
answers the API), and what it costs.

A fresh database (embedded ``pgserver``, or ``--database-url``: a scratch database on that
server) is migrated, then filled with the log's row headers of ``--rate`` events/s, each
delivered to five subscriptions (per event: ``event.ingested`` and five
``delivery.planned``, then each delivery's ``attempt_admitted`` and ``endpoint_accepted``
a little later: 16 rows, in time order, one transaction per second of traffic), for
``--minutes-before`` minutes (projected unmeasured, so the catalogue has the size it has
that far into a soak) and then one more minute per measured pass. Each pass is the engine's
own catch-up (``engine.projections_runner.catch_up``: the daemon's projector with its page
size) while a ticker task in the same event loop sleeps 1 ms at a time and records how late it
wakes: the longest stall is how long an API request arriving then would have waited.

    .venv/bin/python bench/bench_catalogue_pass.py                   # this checkout's engine
    /tmp/main/.venv/bin/python bench/bench_catalogue_pass.py --output ...   # another's

The rows are written with SQL (headers only matter here: the hash chain is not real), so the
database must be a scratch one. Writes ``bench/results/s8_catalogue_pass.json``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import resource
import secrets
import statistics
import sys
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT))

import bench_e2e as e2e  # noqa: E402

RESULTS = ROOT / "results" / "s8_catalogue_pass.json"

FILL_SQL = """
WITH ev AS (
    SELECT i, $2::timestamptz + (i - $1) * interval '1 second' / $3 AS t
    FROM generate_series($1::bigint, $1 + $4 - 1) AS i
), rows AS (
    SELECT 'event-ten_soak/e' || i AS stream_id, 'event' AS category, 1 AS v,
           'event.ingested' AS type, t AS at, 0 AS ord, i
    FROM ev
    UNION ALL
    SELECT 'delivery-d' || i || '-' || s, 'delivery', x.v, x.type,
           t + x.delay * interval '1 millisecond', x.v, i
    FROM ev, generate_series(1, 5) AS s,
         (VALUES (1, 'delivery.planned', 0), (2, 'delivery.attempt_admitted', 15),
                 (3, 'delivery.endpoint_accepted', 45)) AS x(v, type, delay)
)
INSERT INTO events (stream_id, category, stream_version, event_id, type, schema_version,
                    data, metadata, recorded_at, prev_hash, hash)
SELECT stream_id, category, v, gen_random_uuid(), type, 1, '\\x7b7d'::bytea,
       '\\x7b7d'::bytea, at, NULL, sha256(stream_id::bytea || v::text::bytea)
FROM rows ORDER BY at, ord
"""


async def fill(pool: Any, first: int, start: float, rate: float, seconds: int) -> int:
    """``seconds`` of traffic from event number ``first``, one transaction per second."""
    from datetime import UTC, datetime

    per_s = int(rate)
    for k in range(seconds):
        at = datetime.fromtimestamp(start + k, UTC)
        await pool.execute(FILL_SQL, first + k * per_s, at, float(per_s), per_s)
    return first + seconds * per_s


async def idle_stalls(seconds: float) -> float:
    """The ticker's longest stall with nothing else to do (the machine's own noise)."""
    stalls: list[float] = []
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        t = time.perf_counter()
        await asyncio.sleep(0.001)
        stalls.append((time.perf_counter() - t - 0.001) * 1000)
    return round(max(stalls, default=0.0), 1)


async def measured_pass(store: Any, projections: list[Any]) -> dict[str, Any]:
    from hookproof.engine.recording.projections_runner import catch_up

    idle = await idle_stalls(1.0)
    stalls: list[float] = []
    stop = asyncio.Event()

    async def ticker() -> None:
        while not stop.is_set():
            t = time.perf_counter()
            await asyncio.sleep(0.001)
            stalls.append((time.perf_counter() - t - 0.001) * 1000)

    tick = asyncio.create_task(ticker())
    await asyncio.sleep(0.05)
    stalls.clear()
    cpu0 = time.process_time()
    t0 = time.perf_counter()
    applied = await catch_up(store, projections)
    wall = time.perf_counter() - t0
    cpu = time.process_time() - cpu0
    stop.set()
    await tick
    return {
        "events": applied,
        "wall_ms": round(wall * 1000, 1),
        "process_cpu_ms": round(cpu * 1000, 1),
        "loop_longest_stall_ms": round(max(stalls, default=0.0), 1),
        "loop_stalls_over_5ms": sum(1 for s in stalls if s > 5),
        "loop_stalls_over_20ms": sum(1 for s in stalls if s > 20),
        "loop_stalled_ms_total": round(sum(s for s in stalls if s > 1), 1),
        "idle_loop_longest_stall_ms": idle,
    }


async def run(args: argparse.Namespace, db_url: str) -> dict[str, Any]:
    from hookproof.engine.db.database import connect_pool
    from hookproof.engine.db.migrate import migrate
    from hookproof.engine.recording import projections_runner
    from hookproof.engine.recording.registry import async_projections
    from hookproof.events import EventStore

    pool = await connect_pool(db_url, min_size=2, max_size=4)
    try:
        async with pool.acquire() as conn:
            await migrate(conn)
        store = EventStore(pool)
        projections = async_projections()
        start = time.time() - 3600
        nxt = 0
        if args.minutes_before:
            nxt = await fill(pool, nxt, start, args.rate, int(args.minutes_before * 60))
            await projections_runner.catch_up(store, projections)
        passes = []
        for k in range(args.passes):
            t = start + (args.minutes_before + k) * 60
            nxt = await fill(pool, nxt, t, args.rate, 60)
            with contextlib.suppress(Exception):
                await pool.execute("VACUUM ANALYZE")  # the same start for every pass
            passes.append(await measured_pass(store, projections))
            print(json.dumps(passes[-1]), flush=True)
        catalogue_rows = await pool.fetchval("SELECT count(*) FROM proj_stream_catalogue")
        expected = await pool.fetchval("SELECT count(DISTINCT stream_id) FROM events")
    finally:
        await pool.close()

    def med(key: str) -> float:
        return round(statistics.median(p[key] for p in passes), 1)

    return {
        "benchmark": "catalogue_pass",
        "machine": e2e.machine_info(),
        "engine_source": os.path.dirname(projections_runner.__file__),
        "catalogue_page": getattr(projections_runner, "CATALOGUE_PAGE", None),
        "catalogue_interval_s": getattr(projections_runner, "CATALOGUE_INTERVAL_S", None),
        "load": {
            "events_per_s": args.rate,
            "deliveries_per_event": 5,
            "log_rows_per_minute": int(args.rate) * 60 * 16,
            "minutes_before": args.minutes_before,
        },
        "passes": passes,
        "median": {
            k: med(k)
            for k in (
                "wall_ms",
                "process_cpu_ms",
                "loop_longest_stall_ms",
                "loop_stalled_ms_total",
                "idle_loop_longest_stall_ms",
            )
        },
        "catalogue_rows": catalogue_rows,
        "catalogue_complete": catalogue_rows == expected,
        "self_rusage_maxrss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
        "loadavg_end": list(os.getloadavg()),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rate", type=float, default=40.0, help="business events/s (x16 log rows)")
    ap.add_argument("--minutes-before", type=float, default=9.0)
    ap.add_argument("--passes", type=int, default=3)
    ap.add_argument("--database-url", default=None, help="an admin URL (default: embedded)")
    ap.add_argument("--output", default=str(RESULTS))
    args = ap.parse_args()

    async def admin(sql: str) -> None:
        import asyncpg

        conn = await asyncpg.connect(args.database_url)
        try:
            await conn.execute(sql)
        finally:
            await conn.close()

    if args.database_url:
        name = f"hp_catpass_{secrets.token_hex(4)}"
        asyncio.run(admin(f'CREATE DATABASE "{name}"'))
        try:
            url = urlunsplit(urlsplit(args.database_url)._replace(path=f"/{name}"))
            result = asyncio.run(run(args, url))
        finally:
            asyncio.run(admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    else:
        with e2e.postgres_server(None) as (url, _folder):
            result = asyncio.run(run(args, url))
    result["args"] = vars(args)
    out = Path(args.output)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=1, default=str) + "\n")
    print(json.dumps(result["median"]), "page", result["catalogue_page"], "->", out)


if __name__ == "__main__":
    main()
