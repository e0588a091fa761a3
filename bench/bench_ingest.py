"""Ingest benchmark: ``POST /v1/events`` at concurrency 32 and ``POST /v1/events/batch``.

Everything local, durable commits:

- an embedded PostgreSQL (``pgserver``, server defaults: ``synchronous_commit=on``,
  ``fsync=on``) in a temporary folder, deleted at the end (or ``--database-url``);
- one tenant with 10 ACTIVE ed25519 subscriptions on the benchmark topic (each really
  challenged over HTTPS by a local trustme subscriber in this process, through the engine's
  services), plus 40 subscriptions of other topics that must not match;
- ``hookproof serve`` as a real process (``HOOKPROOF_WORKERS`` processes, default the number
  of cores) with ``HOOKPROOF_ROLES=api,projector``: ingest and the log's tailers (in the
  first worker) run, no dispatcher, so what is measured is ingest
  (validate, canonicalise, digest, plan 10 deliveries, append 11 streams with their hash
  chains, the inline ledger projection, commit), not the delivery side;
- this process as the load generator (aiohttp, keep-alive, bodies encoded beforehand).

Every answer is checked (202 with 10 deliveries; the batch: 200 with one 202 result per
event) and the log is counted afterwards: events/s is what was durably planned.
Optionally (``--profile``) a cProfile of the ingest path in-process over the same workload.
Writes ``bench/results/ingest.json``. Not a test: nothing asserts a timing.

    .venv/bin/python bench/bench_ingest.py                # ~1 minute
    .venv/bin/python bench/bench_ingest.py --seconds 5 --profile
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import contextlib
import cProfile
import io
import json
import logging
import os
import platform
import pstats
import secrets
import shutil
import signal
import socket
import ssl
import subprocess
import sys
import tempfile
import time
import urllib.request
import warnings
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent
RESULTS = ROOT / "results" / "ingest.json"
TOPIC = "bench.ingest"
SUBSCRIPTIONS = 10
_OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.contextmanager
def postgres_server(explicit: str | None) -> Any:
    """(admin URL, data folder or None when the server is not ours)."""
    if explicit:
        yield explicit, None
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import pgserver

        folder = tempfile.mkdtemp(prefix="hp-ingest-pg-")
        server = pgserver.get_server(folder, cleanup_mode="delete")
    try:
        yield server.get_uri(), folder
    finally:
        with contextlib.suppress(Exception):
            server.cleanup()
        shutil.rmtree(folder, ignore_errors=True)


async def fresh_database(admin_url: str) -> str:
    import asyncpg

    name = f"hp_bench_ingest_{secrets.token_hex(4)}"
    conn = await asyncpg.connect(admin_url)
    try:
        await conn.execute(f'CREATE DATABASE "{name}"')
    finally:
        await conn.close()
    base, _, _ = admin_url.partition("?")
    head, _, _ = base.rpartition("/")
    query = admin_url[len(base) :]
    return f"{head}/{name}{query}"


def start_daemon(
    env: dict[str, str], log_path: Path, profile_to: Path | None = None
) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    full = {**os.environ, **env, "HOOKPROOF_LISTEN": f"127.0.0.1:{port}"}
    prof = ["-m", "cProfile", "-o", str(profile_to)] if profile_to else []
    with log_path.open("wb") as out:
        proc = subprocess.Popen(
            [sys.executable, *prof, "-m", "hookproof.engine.cli", "serve"],
            env=full,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"daemon exited early:\n{log_path.read_text()[-3000:]}")
        try:
            with _OPENER.open(base + "/readyz", timeout=1) as r:
                if r.status == 200:
                    time.sleep(1.0)  # every worker process up, not only the first
                    return proc, base
        except OSError:
            time.sleep(0.1)
    proc.kill()
    raise RuntimeError(f"daemon not ready:\n{log_path.read_text()[-3000:]}")


def stop_process(proc: subprocess.Popen[bytes], timeout: float = 20) -> None:
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)


# -- CPU accounting -------------------------------------------------------------------------


def tree_pids(pid: int) -> list[int]:
    import psutil

    try:
        return [pid, *(c.pid for c in psutil.Process(pid).children(recursive=True))]
    except psutil.Error:
        return []


def postgres_pids(pgdata: str | None) -> list[int]:
    if pgdata is None:
        return []
    try:
        return tree_pids(int(Path(pgdata, "postmaster.pid").read_text().split()[0]))
    except (OSError, ValueError):
        return []


class CpuMeter:
    """CPU seconds of process groups (and of the whole machine) over the measured window.

    The machine is shared: what other users run shows as ``machine_other``. CPU seconds per
    event of our own processes is the figure that does not depend on them."""

    def __init__(self, groups: dict[str, Any]) -> None:
        self.groups = groups

    @staticmethod
    def _cpu(pid: int) -> float:
        import psutil

        try:
            t = psutil.Process(pid).cpu_times()
            return float(t.user + t.system + t.children_user + t.children_system)
        except psutil.Error:
            return 0.0

    def _snap(self) -> dict[str, dict[int, float]]:
        return {name: {p: self._cpu(p) for p in pids()} for name, pids in self.groups.items()}

    @staticmethod
    def _busy() -> float:
        import psutil

        t = psutil.cpu_times()
        return float(t.user + t.nice + t.system + t.irq + t.softirq + getattr(t, "steal", 0.0))

    def start(self) -> None:
        self._t0, self._s0, self._b0 = time.monotonic(), self._snap(), self._busy()

    def stop(self, events: int) -> dict[str, Any]:
        wall = time.monotonic() - self._t0
        now = self._snap()
        used = {
            name: sum(v - self._s0.get(name, {}).get(p, 0.0) for p, v in pids.items())
            for name, pids in now.items()
        }
        ours = sum(used.values())
        busy = self._busy() - self._b0
        out: dict[str, Any] = {f"{k}_cores": round(v / wall, 2) for k, v in used.items()}
        out["machine_busy_cores"] = round(busy / wall, 2)
        out["machine_other_cores"] = round((busy - ours) / wall, 2)
        out["load_avg_1m"] = round(os.getloadavg()[0], 2)
        if events:
            out.update(
                {f"{k}_cpu_ms_per_event": round(1000 * v / events, 3) for k, v in used.items()}
            )
            out["all_ours_cpu_ms_per_event"] = round(1000 * ours / events, 3)
            # if the two cores were ours alone (the machine's other users gone): a projection
            out["projected_events_per_s_on_2_idle_cores"] = round(2 * events / ours, 0)
        return out


# -- set-up: a tenant and 10 ACTIVE subscriptions -------------------------------------------


async def setup(db_url: str, env: dict[str, str], folder: Path) -> dict[str, Any]:
    """A tenant, its token and ACTIVE subscriptions, through the engine's own services."""
    import msgspec
    import structlog
    import trustme
    from aiohttp import web

    from hookproof.config import Settings
    from hookproof.engine.db.database import connect_pool
    from hookproof.engine.runtime.daemon import build_engine
    from hookproof.schemas.api import SubscriptionCreate
    from hookproof_subscriber import build_challenge_response

    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.ERROR))
    ca = trustme.CA()
    ca_file = folder / "ca.pem"
    ca.cert_pem.write_to_path(str(ca_file))
    ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ca.issue_cert("127.0.0.1").configure_cert(ctx)

    async def handle(request: web.Request) -> web.Response:
        body = await request.read()
        if b"hookproof.challenge.v1" in body:
            return web.Response(
                body=build_challenge_response(body), content_type="application/json"
            )
        return web.Response(status=204)

    app = web.Application()
    app.router.add_route("*", "/{tail:.*}", handle)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    port = free_port()
    await web.TCPSite(runner, "127.0.0.1", port, ssl_context=ctx).start()
    settings = Settings.from_env(
        {
            **env,
            "HOOKPROOF_LISTEN": "127.0.0.1:1",
            "HOOKPROOF_EGRESS_ALLOW": f"127.0.0.1:{port}",
            "HOOKPROOF_EGRESS_CA_FILE": str(ca_file),
        }
    )
    pool = await connect_pool(db_url, min_size=1, max_size=8)
    engine = await build_engine(settings, pool)
    try:
        issued = await engine.tenants.create("bench")
        topics = [TOPIC] * SUBSCRIPTIONS + [f"other.t{i}" for i in range(40)]
        ids = []
        for i, topic in enumerate(topics):
            body = msgspec.convert(
                {
                    "endpoint": f"https://127.0.0.1:{port}/s/{i}",
                    "topics": [topic],
                    "eventVersions": [1],
                    "region": "eu",
                    "signatureAlgorithm": "ed25519",
                    "owner": "bench",
                },
                SubscriptionCreate,
            )
            state, _ = await engine.subscriptions.register(
                issued.tenant_id, body, actor="bench:setup"
            )
            outcome = await engine.services.challenger.run(
                state.subscription_id, actor="bench:setup"
            )
            if not outcome["passed"]:
                raise RuntimeError(f"challenge failed: {outcome}")
            ids.append(state.subscription_id)
    finally:
        await engine.close()
        await pool.close()
        await runner.cleanup()
    return {"tenant": issued.tenant_id, "token": issued.token, "subscriptions": ids}


# -- load --------------------------------------------------------------------------------------


def event_doc(event_id: str, i: int) -> dict[str, Any]:
    return {
        "eventId": event_id,
        "topic": TOPIC,
        "version": "1.0",
        "aggregateId": f"order-{i % 997}",
        "aggregateVersion": i,
        "occurredAt": "2026-11-30T10:00:00Z",
        "payload": {"orderId": i, "amount": 4200 + i, "currency": "EUR", "lines": [1, 2, 3]},
    }


async def single_posts(
    base: str, token: str, run: str, seconds: float, concurrency: int, meter: CpuMeter
) -> dict[str, Any]:
    import aiohttp

    headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
    counter = iter(range(10**9))
    ok = 0
    bad: dict[str, int] = {}
    latencies: list[float] = []
    deadline = 0.0

    async def worker(http: aiohttp.ClientSession) -> None:
        nonlocal ok
        while time.monotonic() < deadline:
            i = next(counter)
            data = json.dumps(event_doc(f"{run}-s{i}", i)).encode()
            t = time.monotonic()
            async with http.post(base + "/v1/events", data=data, headers=headers) as r:
                body = await r.read()
                if r.status == 202 and len(json.loads(body)["deliveries"]) == SUBSCRIPTIONS:
                    ok += 1
                    latencies.append(time.monotonic() - t)
                else:
                    key = f"{r.status}:{body[:120]!r}"
                    bad[key] = bad.get(key, 0) + 1

    conn = aiohttp.TCPConnector(limit=concurrency, force_close=False)
    async with aiohttp.ClientSession(connector=conn) as http:
        deadline = time.monotonic() + 1.0  # warm-up
        await asyncio.gather(*(worker(http) for _ in range(concurrency)))
        ok, latencies = 0, []
        t0 = time.monotonic()
        deadline = t0 + seconds
        meter.start()
        await asyncio.gather(*(worker(http) for _ in range(concurrency)))
        wall = time.monotonic() - t0
        cpu = meter.stop(ok)
    latencies.sort()
    return {
        "concurrency": concurrency,
        "seconds": round(wall, 2),
        "events": ok,
        "events_per_s": round(ok / wall, 1),
        "p50_ms": round(1000 * latencies[len(latencies) // 2], 1) if latencies else None,
        "p99_ms": round(1000 * latencies[int(len(latencies) * 0.99)], 1) if latencies else None,
        "failures": bad,
        "cpu": cpu,
    }


async def batch_posts(
    base: str,
    token: str,
    run: str,
    seconds: float,
    size: int,
    concurrency: int,
    meter: CpuMeter,
) -> dict[str, Any]:
    import aiohttp

    headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
    counter = iter(range(10**9))
    ok = 0
    bad: dict[str, int] = {}
    latencies: list[float] = []
    deadline = 0.0

    async def worker(http: aiohttp.ClientSession) -> None:
        nonlocal ok
        while time.monotonic() < deadline:
            b = next(counter)
            docs = [event_doc(f"{run}-b{b}-{j}", b * size + j) for j in range(size)]
            data = json.dumps({"events": docs}).encode()
            t = time.monotonic()
            async with http.post(base + "/v1/events/batch", data=data, headers=headers) as r:
                body = await r.read()
                if r.status != 200:
                    key = f"{r.status}:{body[:120]!r}"
                    bad[key] = bad.get(key, 0) + 1
                    continue
                for res in json.loads(body)["results"]:
                    if res["status"] == 202 and len(res["deliveries"]) == SUBSCRIPTIONS:
                        ok += 1
                    else:
                        key = f"result {res['status']}"
                        bad[key] = bad.get(key, 0) + 1
                latencies.append(time.monotonic() - t)

    conn = aiohttp.TCPConnector(limit=concurrency, force_close=False)
    timeout = aiohttp.ClientTimeout(total=120)
    async with aiohttp.ClientSession(connector=conn, timeout=timeout) as http:
        deadline = time.monotonic() + 1.0
        await asyncio.gather(*(worker(http) for _ in range(concurrency)))
        ok, latencies = 0, []
        t0 = time.monotonic()
        deadline = t0 + seconds
        meter.start()
        await asyncio.gather(*(worker(http) for _ in range(concurrency)))
        wall = time.monotonic() - t0
        cpu = meter.stop(ok)
    latencies.sort()
    return {
        "batch_size": size,
        "concurrency": concurrency,
        "seconds": round(wall, 2),
        "events": ok,
        "events_per_s": round(ok / wall, 1),
        "p50_batch_ms": round(1000 * latencies[len(latencies) // 2], 1) if latencies else None,
        "failures": bad,
        "cpu": cpu,
    }


async def count_log(db_url: str, run: str) -> dict[str, int]:
    import asyncpg

    conn = await asyncpg.connect(db_url)
    try:
        events = await conn.fetchval(
            "SELECT count(*) FROM event_bodies WHERE event_id LIKE $1", run + "-%"
        )
        deliveries = await conn.fetchval(
            "SELECT count(*) FROM deliveries WHERE event_id LIKE $1", run + "-%"
        )
    finally:
        await conn.close()
    return {"events": int(events), "deliveries": int(deliveries)}


# -- indexes and plans (--explain) ------------------------------------------------------------

#: the tables ingest writes and the named queries over them that should probe an index
EXPLAIN_TABLES = ("events", "deliveries", "event_bodies", "proj_stream_catalogue", "api_tokens")


async def explain(db_url: str, tenant: str, run: str) -> dict[str, Any]:
    """After the load: each index's scans and size (pg_stat_user_indexes: an index the ingest
    path and its tailers never probed shows 0, which alone does not make it unused: the
    dispatcher, archiver, gates and API are not running here) and the plans of the named
    queries of ingest and its tailers over the populated tables."""
    import asyncpg

    from hookproof.engine.db.queries import ENGINE_QUERIES
    from hookproof.events.queries import EVENT_QUERIES
    from hookproof.events.sqlfiles import render
    from hookproof.projections.queries import PROJECTION_QUERIES

    conn = await asyncpg.connect(db_url)
    try:
        await conn.execute("ANALYZE")
        indexes = [
            dict(r)
            for r in await conn.fetch(
                "SELECT relname AS table, indexrelname AS index, idx_scan AS scans,"
                " pg_relation_size(indexrelid) AS bytes FROM pg_stat_user_indexes"
                " WHERE relname = ANY($1::text[]) ORDER BY relname, indexrelname",
                list(EXPLAIN_TABLES),
            )
        ]
        streams = [
            r["stream_id"]
            for r in await conn.fetch(
                "SELECT stream_id FROM events ORDER BY global_position DESC LIMIT 1000"
            )
        ]
        ids = [
            r["event_id"]
            for r in await conn.fetch(
                "SELECT event_id FROM event_bodies WHERE event_id LIKE $1 LIMIT 500", run + "-%"
            )
        ]
        head = await conn.fetchrow(
            "SELECT tx_id::text AS tx, global_position AS pos FROM events"
            " ORDER BY global_position DESC OFFSET 20000 LIMIT 1"
        )
        subscription = await conn.fetchval("SELECT subscription_id FROM deliveries LIMIT 1")
        last = await conn.fetchval("SELECT max(global_position) FROM events")
        since = await conn.fetchval("SELECT now() - interval '1 minute'")
        eq, pq, vq = ENGINE_QUERIES, PROJECTION_QUERIES, EVENT_QUERIES
        tenants = [tenant] * len(ids)
        cases: list[tuple[str, str, tuple[Any, ...]]] = [
            (
                "stream_catalogue.load (1,000 ids)",
                render(
                    pq.named("stream_catalogue.load")["stream_catalogue.load"],
                    table="proj_stream_catalogue",
                ),
                (streams,),
            ),
            (
                "ingest_bodies_get (500)",
                eq.named("ingest_bodies_get")["ingest_bodies_get"],
                (tenants, ids),
            ),
            (
                "deliveries_of_events (500)",
                eq.named("deliveries_of_events")["deliveries_of_events"],
                (tenants, ids),
            ),
            (
                "ingest_candidates",
                eq.named("ingest_candidates")["ingest_candidates"],
                ([tenant], [TOPIC, "*"]),
            ),
            ("token_lookup", eq.named("token_lookup")["token_lookup"], ("0123456789abcdef",)),
            ("stream_heads (1,000)", vq.named("stream_heads")["stream_heads"], (streams,)),
            ("tail (2,000)", vq.named("tail")["tail"], (head["tx"], head["pos"], 2000)),
            ("key_ring_head", eq.named("key_ring_head")["key_ring_head"], ()),
            (
                "archive_candidate_events (category 'event')",
                eq.named("archive_candidate_events")["archive_candidate_events"],
                (0, last, 500),
            ),
            (
                "rollout_figures (category 'delivery', last minute)",
                eq.named("rollout_figures")["rollout_figures"],
                ("ro_none", since),
            ),
            (
                "recover_candidates (one subscription)",
                eq.named("recover_candidates")["recover_candidates"],
                (tenant, subscription, ["PLANNED"], since, None, 100),
            ),
        ]
        plans: dict[str, list[str]] = {}
        for name, sql, args in cases:
            rows = await conn.fetch("EXPLAIN (ANALYZE, BUFFERS OFF, COSTS OFF) " + sql, *args)
            plans[name] = [r[0] for r in rows]
    finally:
        await conn.close()
    return {"indexes": indexes, "plans": plans}


# -- profile (in-process, the same ingest path without HTTP) -------------------------------


async def profile_ingest(db_url: str, env: dict[str, str], tenant: str, n: int) -> dict[str, Any]:
    import msgspec

    from hookproof.config import Settings
    from hookproof.engine.db.database import connect_pool
    from hookproof.engine.runtime.daemon import build_engine
    from hookproof.schemas.api import EventIn

    settings = Settings.from_env({**env, "HOOKPROOF_LISTEN": "127.0.0.1:1"})
    pool = await connect_pool(db_url, min_size=4, max_size=34)
    engine = await build_engine(settings, pool)
    ingest = engine.services.ingest
    run = "prof" + secrets.token_hex(3)
    docs = [msgspec.convert(event_doc(f"{run}-{i}", i), EventIn) for i in range(n)]
    sem = asyncio.Semaphore(32)

    async def one(e: Any) -> None:
        async with sem:
            await ingest.ingest(tenant, e, actor=f"tenant:{tenant}")

    prof = cProfile.Profile()
    t0 = time.monotonic()
    prof.enable()
    try:
        await asyncio.gather(*(one(e) for e in docs))
    finally:
        prof.disable()
        wall = time.monotonic() - t0
        await engine.close()
        await pool.close()
    out = io.StringIO()
    pstats.Stats(prof, stream=out).sort_stats("tottime").print_stats(25)
    top = [
        line.strip()
        for line in out.getvalue().splitlines()
        if line.strip() and line.strip()[0].isdigit()
    ][:25]
    return {"events": n, "events_per_s_in_process": round(n / wall, 1), "top_tottime": top}


# -- main ----------------------------------------------------------------------------------


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--database-url", help="an admin URL of a Postgres server to use")
    ap.add_argument("--seconds", type=float, default=10.0)
    ap.add_argument("--concurrency", type=int, default=32)
    ap.add_argument("--batch-size", type=int, default=1000)
    ap.add_argument("--batch-concurrency", type=int, default=4)
    ap.add_argument("--workers", help="HOOKPROOF_WORKERS for the daemon (default: cores)")
    ap.add_argument("--profile", action="store_true", help="cProfile the ingest path in-process")
    ap.add_argument("--no-batch", action="store_true")
    ap.add_argument(
        "--explain",
        action="store_true",
        help="after the load: index scans and sizes, and plans of the ingest/tailer queries",
    )
    ap.add_argument("--no-single", action="store_true")
    ap.add_argument(
        "--profile-daemon", metavar="FILE", help="run the daemon (1 worker) under cProfile"
    )
    ap.add_argument("--output", default=str(RESULTS))
    args = ap.parse_args()

    folder = Path(tempfile.mkdtemp(prefix="hp-ingest-"))
    result: dict[str, Any] = {
        "benchmark": "ingest",
        "when": datetime.now(UTC).isoformat(timespec="seconds"),
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version()},
        "subscriptions_matching": SUBSCRIPTIONS,
        "subscriptions_total": SUBSCRIPTIONS + 40,
        "targets": {"single_events_per_s": 2000, "batch_events_per_s": 10000},
    }
    try:
        with postgres_server(args.database_url) as (admin_url, pgdata):
            db_url = asyncio.run(fresh_database(admin_url))
            master = base64.urlsafe_b64encode(secrets.token_bytes(32)).rstrip(b"=").decode()
            env = {
                "HOOKPROOF_DATABASE_URL": db_url,
                "HOOKPROOF_MASTER_KEY": master,
                "HOOKPROOF_DATA_DIR": str(folder),
                "HOOKPROOF_DNS_SERVERS": "127.0.0.1:9",
                "HOOKPROOF_ROLES": "api,projector",  # the log's tailers run, as in serve
            }
            if args.workers:
                env["HOOKPROOF_WORKERS"] = args.workers
            who = asyncio.run(setup(db_url, env, folder))
            daemon_prof = Path(args.profile_daemon) if args.profile_daemon else None
            if daemon_prof:
                env["HOOKPROOF_WORKERS"] = "1"  # cProfile sees one process
            proc, base = start_daemon(env, folder / "daemon.log", daemon_prof)
            result["daemon"] = {
                "roles": "api,projector",
                "workers": args.workers or f"default ({os.cpu_count()} cores)",
            }
            meter = CpuMeter(
                {
                    "daemon": lambda: tree_pids(proc.pid),
                    "postgres": lambda: postgres_pids(pgdata),
                    "client": lambda: [os.getpid()],
                }
            )
            try:
                run = "r" + secrets.token_hex(3)
                if not args.no_single:
                    single = asyncio.run(
                        single_posts(base, who["token"], run, args.seconds, args.concurrency, meter)
                    )
                    result["single"] = single
                    print(f"single POST /v1/events c={args.concurrency}: {single}", flush=True)
                if not args.no_batch:
                    batch = asyncio.run(
                        batch_posts(
                            base,
                            who["token"],
                            run,
                            args.seconds,
                            args.batch_size,
                            args.batch_concurrency,
                            meter,
                        )
                    )
                    result["batch"] = batch
                    print(f"POST /v1/events/batch: {batch}", flush=True)
            finally:
                stop_process(proc)
            result["log"] = asyncio.run(count_log(db_url, run))
            if args.explain:
                result["explain"] = asyncio.run(explain(db_url, who["tenant"], run))
                for name, plan in result["explain"]["plans"].items():
                    print(f"-- {name}\n" + "\n".join(plan))
                for ix in result["explain"]["indexes"]:
                    print(f"{ix['table']}.{ix['index']}: {ix['scans']} scans, {ix['bytes']} B")
            if args.profile:
                result["profile"] = asyncio.run(profile_ingest(db_url, env, who["tenant"], 3000))
                print("\n".join(result["profile"]["top_tottime"]))
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    Path(args.output).parent.mkdir(parents=True, exist_ok=True)
    Path(args.output).write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps({k: result.get(k) for k in ("single", "batch", "log")}, indent=2))


if __name__ == "__main__":
    main()
