"""The do-it-yourself peer of issue 27: a tuned webhook sender on the procrastinate job queue.

What a team would build instead of hookproof, done well: each event received becomes one
procrastinate job per subscription (one ``batch_defer_async`` per event, one transaction),
a procrastinate worker (``concurrency`` coroutines, LISTEN/NOTIFY) runs them over a
``psycopg_pool`` pool, and each job signs its body the Standard Webhooks way (``webhook-id``,
``webhook-timestamp``, ``webhook-signature: v1,<HMAC-SHA256>``) and POSTs it through one
keep-alive ``aiohttp.ClientSession``. Retries are procrastinate's (5 attempts); no evidence:
no event log, no hash chain, no per-attempt record beyond the job row procrastinate keeps.

Run by ``bench_e2e.py --peer procrastinate`` against the same local HTTPS sites, on its own
database of the same Postgres server (a child process, so its CPU is its own); or alone:

    .venv/bin/python bench/peer_procrastinate.py --config peer.json --output out.json

``config``: ``db_url`` (the peer's own, empty database), ``urls`` (one per subscription),
``bodies`` (event bodies, text), ``ca_file`` (the sites' CA), ``events``, ``concurrency``
(the worker's, 16-128), ``ingest_concurrency`` (events deferred at once), ``pool_max`` (per process);
optionally ``secrets`` (url -> ``whsec_`` secret; made here otherwise), ``processes`` (worker
processes, default 1: more start as children of this one, with ``tmp_dir`` for their files).
Measured from the first deferred job to the last 2xx answer: deliveries/s, latency (deferred
-> answered), the server's WAL between the two (``pg_current_wal_lsn()``, the whole server),
heap rows written per table (``pg_stat_user_tables`` of the peer's database, read after its
pool is closed, so every backend has flushed), and this process's CPU.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import contextlib
import hashlib
import hmac
import json
import os
import signal
import socket
import ssl
import sys
import time
from pathlib import Path
from typing import Any

__all__ = ["make_secret", "run_peer", "sign_standard_webhooks"]

MAX_ATTEMPTS = 5


def make_secret() -> str:
    """A Standard Webhooks secret: ``whsec_`` and 24 random bytes in base64."""
    return "whsec_" + base64.b64encode(os.urandom(24)).decode()


def sign_standard_webhooks(secret: str, msg_id: str, timestamp: int, body: bytes) -> dict[str, str]:
    """The three Standard Webhooks headers for ``body`` (signature scheme ``v1``:
    base64 HMAC-SHA256 over ``id.timestamp.body`` with the secret's decoded key)."""
    key = base64.b64decode(secret.removeprefix("whsec_"))
    content = f"{msg_id}.{timestamp}.".encode() + body
    digest = base64.b64encode(hmac.new(key, content, hashlib.sha256).digest()).decode()
    return {
        "webhook-id": msg_id,
        "webhook-timestamp": str(timestamp),
        "webhook-signature": f"v1,{digest}",
    }


def _static_resolver() -> Any:
    """Every site name is 127.0.0.1 (as bench_e2e's bare client: no DNS traffic)."""
    from aiohttp.abc import AbstractResolver

    class Static(AbstractResolver):
        async def resolve(self, host: str, port: int = 0, family: int = 0) -> list[Any]:
            return [
                {
                    "hostname": host,
                    "host": "127.0.0.1",
                    "port": port,
                    "family": socket.AF_INET,
                    "proto": 0,
                    "flags": socket.AI_NUMERICHOST,
                }
            ]

        async def close(self) -> None:
            return None

    return Static()


def _pct(values: list[float], q: float) -> float | None:
    s = sorted(values)
    if not s:
        return None
    return round(s[min(len(s) - 1, max(0, round(q * (len(s) - 1))))], 1)


async def _server_position(conn: Any) -> dict[str, Any]:
    cur = await conn.execute(
        "SELECT pg_current_wal_lsn()::text, wal_records::float8, wal_fpi::float8 FROM pg_stat_wal"
    )
    lsn, records, fpi = await cur.fetchone()
    return {"lsn": lsn, "wal_records": records, "wal_fpi": fpi}


async def _table_counters(conn: Any) -> dict[str, dict[str, float]]:
    await conn.execute("SELECT pg_stat_clear_snapshot()")
    cur = await conn.execute(
        "SELECT relname, n_tup_ins::float8, n_tup_upd::float8, n_tup_hot_upd::float8,"
        " n_tup_del::float8 FROM pg_stat_user_tables"
    )
    return {
        r[0]: {"ins": r[1], "upd": r[2], "hot": r[3], "del": r[4]} for r in await cur.fetchall()
    }


class _Peer:
    """The peer's procrastinate app, its one task and its HTTP session (opened by ``open``)."""

    def __init__(self, cfg: dict[str, Any], secrets_by_url: dict[str, str], want: int) -> None:
        import procrastinate

        concurrency = int(cfg["concurrency"])
        self.app = procrastinate.App(
            connector=procrastinate.PsycopgConnector(
                conninfo=cfg["db_url"],
                min_size=min(4, int(cfg.get("pool_max", 16))),
                max_size=int(cfg.get("pool_max", 16)),
            )
        )
        self.ctx = ssl.create_default_context(cafile=cfg["ca_file"])
        self.concurrency = concurrency
        self.done_at: dict[str, float] = {}
        self.failures = 0
        self.all_done = asyncio.Event()
        self.session: Any = None
        peer = self

        @self.app.task(name="deliver", retry=MAX_ATTEMPTS - 1)
        async def deliver(url: str, body: str, msg_id: str) -> None:
            raw = body.encode()
            headers = {
                "Content-Type": "application/json",
                **sign_standard_webhooks(secrets_by_url[url], msg_id, int(time.time()), raw),
            }
            async with peer.session.post(url, data=raw, headers=headers) as r:
                await r.read()
                if not 200 <= r.status < 300:
                    peer.failures += 1
                    raise RuntimeError(f"{url} answered {r.status}")
            peer.done_at[msg_id] = time.monotonic()  # CLOCK_MONOTONIC: one clock for all processes
            if len(peer.done_at) >= want:
                peer.all_done.set()

        self.deliver = deliver

    def http(self) -> Any:
        import aiohttp

        connector = aiohttp.TCPConnector(
            ssl=self.ctx, limit=self.concurrency, use_dns_cache=False, resolver=_static_resolver()
        )
        return aiohttp.ClientSession(connector=connector)


async def run_worker_only(cfg: dict[str, Any]) -> dict[str, Any]:
    """An extra worker process of the same peer (``processes`` > 1): runs jobs until SIGTERM,
    then says when each of its deliveries was answered."""
    peer = _Peer(cfg, cfg["secrets"], 1 << 62)
    async with peer.app.open_async(), peer.http() as http:
        peer.session = http
        await peer.app.run_worker_async(concurrency=peer.concurrency, wait=True)
    return {"done_at": peer.done_at, "failures": peer.failures}


async def _all_succeeded(conn: Any, want: int) -> None:
    """With several worker processes: wait until the queue holds ``want`` succeeded jobs."""
    while True:
        cur = await conn.execute(
            "SELECT count(*) FROM procrastinate_jobs WHERE status = 'succeeded'"
        )
        if (await cur.fetchone())[0] >= want:
            return
        await asyncio.sleep(0.1)


async def run_peer(cfg: dict[str, Any]) -> dict[str, Any]:
    """One measured run of the peer (see the module docstring)."""
    import procrastinate
    import psycopg

    urls: list[str] = cfg["urls"]
    bodies = [b.encode() for b in cfg["bodies"]]
    n_events = int(cfg["events"])
    concurrency = int(cfg["concurrency"])
    want = n_events * len(urls)
    # the peer's subscription table: one secret per subscription (given, or made here)
    secrets_by_url = {u: cfg.get("secrets", {}).get(u) or make_secret() for u in urls}

    peer = _Peer(cfg, secrets_by_url, want)
    app, deliver, done_at = peer.app, peer.deliver, peer.done_at
    deferred_at: dict[int, float] = {}
    processes = int(cfg.get("processes", 1))
    children: list[asyncio.subprocess.Process] = []

    admin = await psycopg.AsyncConnection.connect(cfg["db_url"], autocommit=True)
    async with app.open_async(), peer.http() as http:
        peer.session = http
        await app.schema_manager.apply_schema_async()
        worker = asyncio.create_task(
            app.run_worker_async(concurrency=concurrency, install_signal_handlers=False, wait=True)
        )
        if processes > 1:
            extra = Path(cfg.get("tmp_dir", "."))
            (extra / "peer-worker.json").write_text(json.dumps({**cfg, "secrets": secrets_by_url}))
            for k in range(1, processes):
                children.append(
                    await asyncio.create_subprocess_exec(
                        sys.executable,
                        __file__,
                        "--worker-only",
                        "--config",
                        str(extra / "peer-worker.json"),
                        "--output",
                        str(extra / f"peer-worker-{k}.json"),
                    )
                )
            await asyncio.sleep(2.0)  # the extra workers started, registered and listening
        await asyncio.sleep(0.5)  # the worker registered and listening
        tables0 = await _table_counters(admin)
        w0 = await _server_position(admin)
        cpu0 = os.times()
        sem = asyncio.Semaphore(int(cfg.get("ingest_concurrency", 32)))

        async def ingest(i: int) -> None:
            body = bodies[i % len(bodies)].decode()
            async with sem:
                deferred_at[i] = time.monotonic()
                await deliver.batch_defer_async(
                    *(
                        {"url": u, "body": body, "msg_id": f"msg_{i}_{k}"}
                        for k, u in enumerate(urls)
                    )
                )

        t0 = time.monotonic()
        await asyncio.gather(*(ingest(i) for i in range(n_events)))
        ingest_wall = time.monotonic() - t0
        timed_out = False
        try:
            await asyncio.wait_for(
                _all_succeeded(admin, want) if processes > 1 else peer.all_done.wait(),
                float(cfg.get("timeout_s", 300)),
            )
        except TimeoutError:
            timed_out = True
        w1 = await _server_position(admin)
        cpu1 = os.times()
        worker.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await worker
        by_process = [len(done_at)]
        for k, child in enumerate(children, start=1):
            child.send_signal(signal.SIGTERM)
            await child.wait()
            theirs = json.loads((extra / f"peer-worker-{k}.json").read_text())
            done_at.update(theirs["done_at"])
            by_process.append(len(theirs["done_at"]))
            peer.failures += theirs["failures"]
        cpu2 = os.times()  # the extra workers were waited for: their whole CPU is in children_*
        cur = await admin.execute(
            "SELECT status::text, count(*) FROM procrastinate_jobs GROUP BY 1 ORDER BY 1"
        )
        statuses = {s: int(c) for s, c in await cur.fetchall()}
    # the pool is closed: every backend that wrote has exited and flushed its counters
    await asyncio.sleep(1.0)
    tables1 = await _table_counters(admin)
    cur = await admin.execute(
        "SELECT pg_wal_lsn_diff(%s::pg_lsn, %s::pg_lsn)::float8", (w1["lsn"], w0["lsn"])
    )
    wal = (await cur.fetchone())[0]
    await admin.close()

    # this process over the measured span, plus the extra workers' whole lives
    peer_cpu = (cpu1.user - cpu0.user) + (cpu1.system - cpu0.system)
    peer_cpu += (cpu2.children_user - cpu0.children_user) + (
        cpu2.children_system - cpu0.children_system
    )
    n = max(1, len(done_at))
    acc = sorted(done_at.values())
    lo, hi = int(n * 0.1), int(n * 0.9)
    latencies = [(t - deferred_at[int(mid.split("_")[1])]) * 1000 for mid, t in done_at.items()]
    per_table = {}
    for name, now in sorted(tables1.items()):
        was = tables0.get(name, {})
        d = {k: v - was.get(k, 0.0) for k, v in now.items()}
        if any(d.values()):
            per_table[name] = {
                **{k: int(v) for k, v in d.items()},
                "heap_rows_written_per_delivery": round((d["ins"] + d["upd"]) / n, 3),
            }
    wall = (acc[-1] - t0) if acc else float("nan")
    return {
        "peer": "procrastinate",
        "versions": {
            "procrastinate": procrastinate.__version__,
            "psycopg": psycopg.__version__,
        },
        "recipe": "one job per delivery (batch_defer_async per event, one transaction), "
        f"{processes} worker process(es) of concurrency {concurrency} each, psycopg_pool max {cfg.get('pool_max', 16)}, "
        "LISTEN/NOTIFY, Standard Webhooks HMAC-SHA256 (v1), one keep-alive aiohttp session, "
        f"retry up to {MAX_ATTEMPTS} attempts, completed jobs kept (procrastinate's default)",
        "events": n_events,
        "subscriptions": len(urls),
        "deliveries_wanted": want,
        "accepted": len(done_at),
        "failed_attempts": peer.failures,
        "processes": processes,
        "deliveries_by_process": by_process,
        "timed_out": timed_out,
        "job_statuses": statuses,
        "concurrency": concurrency,
        "ingest_concurrency": int(cfg.get("ingest_concurrency", 32)),
        "ingest_wall_s": round(ingest_wall, 2),
        "ingest_events_per_s": round(n_events / ingest_wall, 1),
        "first_defer_to_last_accept_s": round(wall, 3),
        "deliveries_per_s": round(len(done_at) / wall, 1) if acc else None,
        "steady_deliveries_per_s": round((hi - lo) / (acc[hi - 1] - acc[lo]), 1)
        if n > 10 and acc[hi - 1] > acc[lo]
        else None,
        "latency_ms": {q: _pct(latencies, v) for q, v in (("p50", 0.5), ("p99", 0.99))},
        "wal_start_lsn": w0["lsn"],
        "wal_end_lsn": w1["lsn"],
        "wal_bytes": wal,
        "wal_kib_per_delivery": round(wal / n / 1024, 3),
        "wal_records_per_delivery": round((w1["wal_records"] - w0["wal_records"]) / n, 2),
        "wal_fpi_per_delivery": round((w1["wal_fpi"] - w0["wal_fpi"]) / n, 3),
        "tables": per_table,
        "heap_rows_per_delivery": round(
            sum(t["ins"] + t["upd"] for t in per_table.values()) / n, 3
        ),
        "peer_cpu_s": round(peer_cpu, 2),
        "peer_cpu_ms_per_delivery": round(peer_cpu * 1000 / n, 3),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--config", required=True, help="a JSON file (see the module docstring)")
    ap.add_argument("--output", required=True)
    ap.add_argument("--worker-only", action="store_true", help="an extra worker (internal)")
    args = ap.parse_args()
    cfg = json.loads(Path(args.config).read_text())
    if args.worker_only:
        Path(args.output).write_text(json.dumps(asyncio.run(run_worker_only(cfg))))
        return
    result = asyncio.run(run_peer(cfg))
    Path(args.output).write_text(json.dumps(result, indent=2) + "\n")


if __name__ == "__main__":
    main()
