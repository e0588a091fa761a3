"""What ``ANALYZE events`` and ``ANALYZE deliveries`` cost, and whether per-column statistics
targets make it cheaper without changing a plan (issue 40: autovacuum's ANALYZE of both
tables every minute while they are young took 1-2 s of a core each).

Runs on a database a soak left behind (``bench_soak.py --keep-pgdata DIR``, an embedded
PostgreSQL 16; or ``--database-url``). For each variant of statistics targets (applied with
``ALTER TABLE ... ALTER COLUMN ... SET STATISTICS``, then reset), ``--repeat`` times each
table's ANALYZE: wall time, the CPU of the server process that ran it (``/proc/<pid>/stat``
of ``pg_backend_pid()``: the same figure on a busy or a quiet machine) and the rows and pages
it sampled (its VERBOSE notices). Then every named query of the three layers that reads
``events`` or ``deliveries`` is planned as a generic plan (the plan a prepared statement
settles on: ``plan_cache_mode = force_generic_plan``, ``PREPARE``, ``EXPLAIN EXECUTE``) under
each variant, and the plans are compared with the default's: node types and index names,
costs left out.

    .venv/bin/python bench/bench_analyze.py --pgdata /tmp/soak_pg --output bench/results/s10_analyze.json

Not a test: nothing asserts a timing.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import re
import statistics
import sys
import time
import warnings
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT))

import bench_e2e as e2e  # noqa: E402

#: events columns no query filters, joins or sorts on (their bytes are the evidence)
EVENTS_UNFILTERED = ["data", "metadata", "hash", "prev_hash", "schema_version"]
TICK = os.sysconf("SC_CLK_TCK")


def variants(low: int) -> dict[str, dict[str, dict[str, int]]]:
    """name -> table -> column -> statistics target (-1: the default)."""
    return {
        "default": {},
        "events_unfiltered_0": {"events": dict.fromkeys(EVENTS_UNFILTERED, 0)},
        f"events_unfiltered_0_rest_{low}": {
            "events": {
                **dict.fromkeys(EVENTS_UNFILTERED, 0),
                **dict.fromkeys(
                    [
                        "global_position",
                        "tx_id",
                        "stream_id",
                        "category",
                        "stream_version",
                        "event_id",
                        "type",
                        "recorded_at",
                    ],
                    low,
                ),
            }
        },
    }


def backend_cpu_ms(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) * 1000 / TICK


def plan_shape(lines: list[str]) -> list[str]:
    """A plan without costs, widths or literal values: node names and the indexes used."""
    out = []
    for line in lines:
        text = line.strip()
        if text.startswith(("->", "Index", "Seq", "Bitmap", "Nested", "Hash", "Merge")) or (
            not line.startswith(" ") and text
        ):
            text = re.sub(r"\s+\(.*\)$", "", text.removeprefix("-> ").strip())
            out.append(text)
    return out


def queries_on(tables: tuple[str, ...]) -> dict[str, str]:
    from hookproof.engine.db.queries import ENGINE_QUERIES
    from hookproof.events.queries import EVENT_QUERIES
    from hookproof.projections.queries import PROJECTION_QUERIES

    found: dict[str, str] = {}
    pattern = re.compile(r"\b(FROM|JOIN|UPDATE|INTO)\s+(" + "|".join(tables) + r")\b", re.I)
    for registry in (EVENT_QUERIES, PROJECTION_QUERIES, ENGINE_QUERIES):
        for name in registry.available():
            text = registry.named(name)[name]
            if "{" in text or not pattern.search(text):
                continue
            found[f"{registry.package.rsplit('.', 1)[-1]}:{name}"] = text
    return found


async def run(args: argparse.Namespace, url: str) -> dict[str, Any]:
    import asyncpg

    conn = await asyncpg.connect(url)
    notices: list[str] = []
    conn.add_log_listener(lambda _c, msg: notices.append(str(msg)))
    pid = await conn.fetchval("SELECT pg_backend_pid()")
    result: dict[str, Any] = {
        "benchmark": "analyze",
        "machine": e2e.machine_info(),
        "args": vars(args).copy(),
        "server_version": await conn.fetchval("SHOW server_version"),
        "tables": {
            r["relname"]: {
                "rows": int(r["n"]),
                "heap_bytes": int(r["heap"]),
            }
            for r in await conn.fetch(
                "SELECT relname, n_live_tup AS n, pg_relation_size(relid) AS heap"
                " FROM pg_stat_user_tables WHERE relname IN ('events', 'deliveries')"
            )
        },
    }
    queries = queries_on(("events", "deliveries"))
    out: dict[str, Any] = {}
    plans: dict[str, dict[str, Any]] = {}
    for name, spec in variants(args.low).items():
        for table, cols in spec.items():
            for col, target in cols.items():
                await conn.execute(
                    f"ALTER TABLE {table} ALTER COLUMN {col} SET STATISTICS {target}"
                )
        runs: dict[str, list[dict[str, Any]]] = {}
        for table in ("events", "deliveries"):
            for _ in range(args.repeat):
                notices.clear()
                cpu0, t0 = backend_cpu_ms(pid), time.perf_counter()
                await conn.execute(f"ANALYZE VERBOSE {table}")
                wall, cpu = (time.perf_counter() - t0) * 1000, backend_cpu_ms(pid) - cpu0
                sampled = next((n for n in notices if "rows in sample" in n), "")
                runs.setdefault(table, []).append(
                    {"wall_ms": round(wall, 1), "cpu_ms": round(cpu, 1), "sample": sampled}
                )
        plans[name] = {}
        await conn.execute("SET plan_cache_mode = force_generic_plan")
        for qname, text in queries.items():
            try:
                n = len((await conn.prepare(text)).get_parameters())
                await conn.execute(f"PREPARE hp_plan AS {text}")
                try:
                    nulls = ", ".join(["NULL"] * n)
                    rows = await conn.fetch(
                        f"EXPLAIN (COSTS OFF) EXECUTE hp_plan{f'({nulls})' if n else ''}"
                    )
                finally:
                    await conn.execute("DEALLOCATE hp_plan")
                plans[name][qname] = [r[0] for r in rows]
            except (asyncpg.PostgresError, asyncpg.InterfaceError) as exc:
                plans[name][qname] = f"error: {type(exc).__name__}"
        await conn.execute("RESET plan_cache_mode")
        out[name] = {
            "settings": spec,
            "analyze": {
                table: {
                    "cpu_ms_median": round(statistics.median(r["cpu_ms"] for r in rs), 1),
                    "wall_ms_median": round(statistics.median(r["wall_ms"] for r in rs), 1),
                    "runs": rs,
                }
                for table, rs in runs.items()
            },
        }
        print(name, {t: v["cpu_ms_median"] for t, v in out[name]["analyze"].items()}, flush=True)
        for table, cols in spec.items():  # back to the default for the next variant
            for col in cols:
                await conn.execute(f"ALTER TABLE {table} ALTER COLUMN {col} SET STATISTICS -1")
    await conn.execute("ANALYZE events, deliveries")
    await conn.close()
    base = plans["default"]
    result["variants"] = out
    result["queries_planned"] = sum(1 for p in base.values() if not isinstance(p, str))
    result["queries_not_plannable"] = sorted(q for q, p in base.items() if isinstance(p, str))
    result["plan_changes"] = {
        name: {
            q: {"default": base[q], name: p}
            for q, p in ps.items()
            if not isinstance(p, str) and plan_shape(p) != plan_shape(base[q])
        }
        for name, ps in plans.items()
        if name != "default"
    }
    result["default_plans"] = base
    result["loadavg_end"] = list(os.getloadavg())
    return result


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--pgdata", help="an embedded server's folder (bench_soak.py --keep-pgdata)")
    ap.add_argument("--database-url")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--low", type=int, default=10, help="the lowered target (10)")
    ap.add_argument("--output", default=None)
    args = ap.parse_args()
    out = Path(
        args.output
        or ROOT / "results" / f"s10_analyze_{datetime.now(UTC).strftime('%Y%m%dT%H%M%S')}.json"
    )
    if args.pgdata:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            import pgserver

            server = pgserver.get_server(args.pgdata, cleanup_mode="stop")
        try:
            result = asyncio.run(run(args, server.get_uri()))
        finally:
            with contextlib.suppress(Exception):
                server.cleanup()
    else:
        result = asyncio.run(run(args, args.database_url))
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=1, default=str) + "\n")
    print(json.dumps({k: result[k] for k in ("tables", "queries_planned")}, indent=1))
    print({n: len(c) for n, c in result["plan_changes"].items()})
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
