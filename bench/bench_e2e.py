"""End-to-end delivery benchmark: API ingest -> plan -> ed25519 sign -> HTTPS -> outcome recorded.

Everything local, durable commits:

- an embedded PostgreSQL (``pgserver``) in a fresh temporary folder, deleted at the end
  (server defaults: ``synchronous_commit=on``, ``fsync=on``);
- one ``hookproof serve`` process (all roles: api, dispatcher, projector, scheduler);
- two local HTTPS subscriber processes (aiohttp, trustme CA) that answer the registration
  challenge (``hookproof_subscriber.build_challenge_response``) and 204 to every delivery
  (they do not verify signatures: the subscriber side is not what is measured);
- a load generator (this process) posting events to ``POST /v1/events`` with bounded
  concurrency; results are read back from the event log (``recorded_at``) afterwards.

Phases, in one run: a short calibration; the peak (open loop: events as fast as the API takes
them, 10 subscriptions, until every delivery is ENDPOINT_ACCEPTED); latency at about half the
peak (events paced on a fixed schedule); the bare-client baseline (same bodies, same subscriber
servers, no ledger: keep-alive, a new connection per request, and a new connection plus an
ed25519 signature per request); 10,000 subscriptions (fan-out, 1 event -> 10,000 deliveries);
optionally a py-spy profile of the daemon under the peak load. Prints a table and writes
``bench/results/e2e.json``. Not a test: nothing asserts a timing.

    .venv/bin/python bench/bench_e2e.py                    # full run, ~5 minutes
    .venv/bin/python bench/bench_e2e.py --large-subs 1000 --no-profile   # quicker look
    .venv/bin/python bench/bench_e2e.py --pg-stat-statements ...   # + Postgres statement profile
    .venv/bin/python bench/bench_e2e.py --large-subs 0 --peer procrastinate   # + the DIY peer

``--harness outside`` puts the subscriber sites in this process too, beside the load generator,
the DNS server and the bare client (an outside tester's harness: one process beside the
engine); ``--harness both`` makes a whole run of each layout, one after the other, and prints
and saves both with a summary per layout (``summary``: hookproof's, the peer's and the bare
keep-alive client's rates, the two ratios, CPU per delivery by process group as the kernel
counts it, WAL per delivery).

``--gc-probe`` times the workers' garbage collections per phase (``bench/gc_probe``).

``--peer procrastinate`` runs ``bench/peer_procrastinate.py`` after the bare client, on its own
database of the same server and against the same sites (deliveries/s, WAL and rows per
delivery, CPU), one phase per ``--peer-concurrency`` value.

``--pg-stat-statements`` runs a scratch PostgreSQL 15 cluster (``--pg-bin``, default the system's
``/usr/lib/postgresql/15/bin``; pgserver ships no pg_stat_statements) with the module preloaded
and the same defaults (durable commits), resets the statistics at the start of every measured
phase and saves the top statements of the phase (calls, total/mean ms, rows, per delivery)
under ``pg_statements`` in the phase. Compare such runs only with each other (another server).

The 10,000 subscriptions are registered by a helper step in this process through the
engine's own Python services (``SubscriptionService.register`` + ``Challenger.run``, bounded
concurrency): each one is really challenged over HTTPS and becomes ACTIVE through the log,
exactly as the API's background challenge would do, only without 10,000 HTTP round trips to the
API and without 10,000 simultaneous background challenges in the daemon.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import contextlib
import itertools
import json
import logging
import os
import platform
import re
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
from collections import Counter
from datetime import UTC, datetime
from importlib import metadata as importlib_metadata
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent
REPO = ROOT.parent
RESULTS = ROOT / "results" / "e2e.json"
SMALL_TOPIC = "bench.small"
LARGE_TOPIC = "bench.fanout"
GATE_LIMIT = 8  # engine/delivery/gates.py: per-endpoint in-flight limit
_OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))


# -- the subscriber process ---------------------------------------------------------------


async def start_subscriber(port: int, cert_file: str, counts: dict[str, int]) -> Any:
    """An HTTPS subscriber site on ``port`` in the running loop: answers challenges, 204 to
    deliveries, counting both in ``counts``; returns its runner (``cleanup`` stops it)."""
    from aiohttp import web

    from hookproof_subscriber import build_challenge_response

    async def handle(request: web.Request) -> web.Response:
        body = await request.read()
        if b'"type":"hookproof.challenge.v1"' in body:
            counts["challenges"] += 1
            return web.Response(
                body=build_challenge_response(body), content_type="application/json"
            )
        counts["deliveries"] += 1
        return web.Response(status=204)

    ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ctx.load_cert_chain(cert_file)
    app = web.Application(client_max_size=1024 * 1024)
    app.router.add_route("*", "/{tail:.*}", handle)
    runner = web.AppRunner(app, access_log=None, handle_signals=False)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", port, ssl_context=ctx, backlog=1024)
    await site.start()
    return runner


def subscriber_main(port: int, cert_file: str, stats_file: str) -> None:
    """An HTTPS subscriber process (:func:`start_subscriber`) until SIGTERM; writes its counts."""
    counts = {"deliveries": 0, "challenges": 0}

    async def main() -> None:
        runner = await start_subscriber(port, cert_file, counts)
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, stop.set)
        await stop.wait()
        Path(stats_file).write_text(json.dumps(counts))  # noqa: ASYNC240 (shutdown; nothing else runs)
        await runner.cleanup()

    asyncio.run(main())


# -- subscriber sites: one DNS name each -------------------------------------------------------

SITE_ZONE = "bench.test"


def site_url(port: int, i: int, path: str) -> str:
    """Subscriber site ``i``: its own host name (its own origin: own pooled connections)."""
    return f"https://site-{i}.{SITE_ZONE}:{port}/{path}/{i}"


class SiteDns(asyncio.DatagramProtocol):
    """A tiny authoritative DNS server on loopback: every ``*.bench.test`` name is 127.0.0.1
    (A, TTL 300; AAAA: no data). The engine resolves each site through it, as it would a
    subscriber's name (and keeps each answer at most 30 s)."""

    queries = 0

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport

    def datagram_received(self, data: bytes, addr: tuple[str, int]) -> None:
        from dnslib import QTYPE, RCODE, RR, SOA, A, DNSRecord

        SiteDns.queries += 1
        request = DNSRecord.parse(data)
        reply = request.reply()
        name = str(request.q.qname).rstrip(".").lower()
        if not name.endswith("." + SITE_ZONE):
            reply.header.rcode = RCODE.NXDOMAIN
        elif QTYPE[request.q.qtype] == "A":
            reply.add_answer(RR(name, QTYPE.A, rdata=A("127.0.0.1"), ttl=300))
        else:
            soa = SOA("ns." + SITE_ZONE, "hostmaster." + SITE_ZONE, (1, 0, 0, 0, 300))
            reply.add_auth(RR(SITE_ZONE, QTYPE.SOA, ttl=300, rdata=soa))
        self.transport.sendto(reply.pack(), addr)  # type: ignore[attr-defined]


async def start_site_dns() -> tuple[asyncio.DatagramTransport, int]:
    loop = asyncio.get_running_loop()
    transport, _ = await loop.create_datagram_endpoint(SiteDns, local_addr=("127.0.0.1", 0))
    return transport, int(transport.get_extra_info("sockname")[1])


def bare_resolver() -> Any:
    """The bare client's resolver: site names are 127.0.0.1 (no DNS traffic at all)."""
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


# -- processes ------------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_tcp(port: int, proc: subprocess.Popen[bytes], timeout: float = 20) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"process on port {port} exited early ({proc.returncode})")
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.5):
            return
        time.sleep(0.05)
    raise RuntimeError(f"nothing listens on {port}")


def start_daemon(
    env: dict[str, str], log_path: Path, python: str = sys.executable
) -> tuple[subprocess.Popen[bytes], str]:
    """``hookproof serve`` run by ``python`` (another checkout's venv runs its own code)."""
    port = free_port()
    full = {**os.environ, **env, "HOOKPROOF_LISTEN": f"127.0.0.1:{port}"}
    with log_path.open("wb") as out:
        proc = subprocess.Popen(
            [python, "-m", "hookproof.engine.cli", "serve"],
            env=full,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"daemon exited early:\n{log_path.read_text()[-3000:]}")
        try:
            with _OPENER.open(base + "/readyz", timeout=1) as r:
                if r.status == 200:
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


def run_cli(args: list[str], env: dict[str, str], python: str = sys.executable) -> str:
    out = subprocess.run(
        [python, "-m", "hookproof.engine.cli", *args],
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return out.stdout


@contextlib.contextmanager
def scratch_postgres(
    parent: str | None, pg_bin: str, extra: list[str] | None = None, keep_log: str | None = None
) -> Any:
    """A throwaway cluster from ``pg_bin`` with pg_stat_statements preloaded, on a unix socket
    only, server defaults otherwise (as pgserver's). Run as ``postgres`` when we are root."""
    folder = Path(tempfile.mkdtemp(prefix="hp-e2e-pg-", dir=parent))
    pgdata = folder / "data"
    as_user = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
    if as_user:
        shutil.chown(folder, "postgres")
    bin_ = Path(pg_bin)
    quiet = {"stdout": subprocess.DEVNULL, "check": True}
    subprocess.run(
        [
            *as_user,
            str(bin_ / "initdb"),
            "-D",
            str(pgdata),
            "--auth=trust",
            "-U",
            "postgres",
            "--encoding=utf8",
        ],
        **quiet,
    )
    options = (
        f"-c listen_addresses='' -k {folder} -c shared_preload_libraries=pg_stat_statements "
        "-c pg_stat_statements.max=2000 -c pg_stat_statements.track=all"
        + "".join(f" -c {o}" for o in extra or ())
    )
    subprocess.run(
        [
            *as_user,
            str(bin_ / "pg_ctl"),
            "-D",
            str(pgdata),
            "-w",
            "-l",
            str(folder / "log"),
            "-o",
            options,
            "start",
        ],
        **quiet,
    )
    try:
        yield f"postgresql://postgres@/postgres?host={folder}", str(pgdata)
    finally:
        with contextlib.suppress(Exception):
            subprocess.run(
                [*as_user, str(bin_ / "pg_ctl"), "-D", str(pgdata), "-m", "immediate", "stop"],
                **quiet,
            )
        if keep_log:
            shutil.copyfile(folder / "log", keep_log)
        shutil.rmtree(folder, ignore_errors=True)


async def pg_relations(pool: Any) -> dict[str, dict[str, float]]:
    """Counters of the ledger table and its indexes (subtract two snapshots for a phase)."""
    out: dict[str, dict[str, float]] = {}
    for r in await pool.fetch(
        "SELECT indexrelname AS name, idx_scan, idx_tup_read, idx_tup_fetch"
        " FROM pg_stat_user_indexes WHERE relname IN ('deliveries', 'events')"
    ):
        out[r["name"]] = {k: float(r[k]) for k in ("idx_scan", "idx_tup_read", "idx_tup_fetch")}
    for r in await pool.fetch(
        "SELECT relname AS name, n_tup_ins, n_tup_upd, n_tup_hot_upd, n_dead_tup,"
        " autovacuum_count, autoanalyze_count"
        " FROM pg_stat_user_tables WHERE relname IN ('deliveries', 'events')"
    ):
        out[r["name"]] = {k: float(v) for k, v in r.items() if k != "name"}
    return out


def pg_relations_delta(
    before: dict[str, dict[str, float]], after: dict[str, dict[str, float]]
) -> dict[str, dict[str, float]]:
    out = {}
    for name, now in after.items():
        was = before.get(name, {})
        d = {k: v - was.get(k, 0.0) for k, v in now.items()}
        if "n_dead_tup" in d:
            d["n_dead_tup"] = now["n_dead_tup"]  # a level, not a count
        if d.get("idx_scan"):
            d["tup_read_per_scan"] = round(d["idx_tup_read"] / d["idx_scan"], 1)
        out[name] = d
    return out


async def pg_statements(pool: Any, deliveries: int, top: int = 15) -> dict[str, Any]:
    """The phase's statements from pg_stat_statements (reset at its start): totals and the
    ``top`` by total execution time, each also per delivery."""
    rows = await pool.fetch(
        "SELECT query, calls, total_exec_time, mean_exec_time, total_plan_time, rows"
        " FROM pg_stat_statements"
        " WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())"
        " ORDER BY total_exec_time DESC"
    )
    own = [r for r in rows if "pg_stat_statements" not in r["query"]]
    n = max(1, deliveries)
    calls = sum(r["calls"] for r in own)
    total = sum(r["total_exec_time"] for r in own)
    plan = sum(r["total_plan_time"] for r in own)
    return {
        "note": "execution time (no parse/plan, no network); planning time apart, 0 unless"
        " pg_stat_statements.track_planning is on; reset at the phase start",
        "plan_ms_total": round(plan, 1),
        "plan_ms_per_delivery": round(plan / n, 4),
        "statements": len(own),
        "calls": calls,
        "calls_per_delivery": round(calls / n, 2),
        "exec_ms_total": round(total, 1),
        "exec_ms_per_delivery": round(total / n, 4),
        "top": [
            {
                "query": " ".join(r["query"].split())[:240],
                "calls": r["calls"],
                "calls_per_delivery": round(r["calls"] / n, 3),
                "total_ms": round(r["total_exec_time"], 1),
                "mean_ms": round(r["mean_exec_time"], 4),
                "plan_ms": round(r["total_plan_time"], 1),
                "rows": r["rows"],
                "share": round(r["total_exec_time"] / total, 3) if total else 0.0,
            }
            for r in own[:top]
        ],
    }


@contextlib.contextmanager
def postgres_server(parent: str | None) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # platformdirs: no XDG_RUNTIME_DIR on servers
        import pgserver

        folder = tempfile.mkdtemp(prefix="hp-e2e-pg-", dir=parent)
        server = pgserver.get_server(folder, cleanup_mode="delete")
    try:
        yield server.get_uri(), folder
    finally:
        with contextlib.suppress(Exception):
            server.cleanup()
        shutil.rmtree(folder, ignore_errors=True)


class CpuMeter:
    """CPU seconds per process group between two snapshots (psutil), as cores used.

    Groups are callables returning pids, listed again at the end: a process born inside the
    window (a new Postgres backend) counts in full. ``machine_busy`` is the whole machine
    (everything, other users included) from /proc/stat.
    """

    def __init__(self, groups: dict[str, Any]) -> None:
        self.groups = groups

    @staticmethod
    def _cpu(pid: int) -> float:
        import psutil

        try:
            t = psutil.Process(pid).cpu_times()
            return float(t.user + t.system)
        except psutil.Error:
            return 0.0

    def _snap(self) -> dict[str, dict[int, float]]:
        return {name: {pid: self._cpu(pid) for pid in pids()} for name, pids in self.groups.items()}

    @staticmethod
    def _busy() -> float:
        import psutil

        t = psutil.cpu_times()
        return float(t.user + t.nice + t.system + t.irq + t.softirq + getattr(t, "steal", 0.0))

    def start(self) -> None:
        self._t0 = time.monotonic()
        self._s0 = self._snap()
        self._b0 = self._busy()

    def stop(self) -> dict[str, float]:
        wall = time.monotonic() - self._t0
        s1 = self._snap()
        out = {}
        for name, now in s1.items():
            before = self._s0.get(name, {})
            out[name] = round(sum(v - before.get(pid, 0.0) for pid, v in now.items()) / wall, 3)
        out["machine_busy"] = round((self._busy() - self._b0) / wall, 3)
        # what the machine did besides the measured processes (kernel softirq, other users)
        out["other"] = round(out["machine_busy"] - sum(out[name] for name in s1), 3)
        out["wall_s"] = round(wall, 2)
        return out


def gc_probe_read(folder: Path | None) -> dict[str, Any]:
    """The running totals of ``bench/gc_probe`` (one file per worker), or {} without it."""
    out: dict[str, Any] = {}
    if folder is None or not folder.exists():
        return out
    for f in sorted(folder.glob("worker-*.json")):
        with contextlib.suppress(OSError, ValueError):
            out[f.stem] = json.loads(f.read_text())
    return out


def gc_probe_delta(before: dict[str, Any], after: dict[str, Any], n: int) -> dict[str, Any]:
    """Collections and their time over a phase, all workers summed, per generation."""
    gens: dict[str, dict[str, float]] = {}
    cpu = 0.0
    for worker, now in after.items():
        was = before.get(worker, {})
        cpu += now["process_cpu_s"] - was.get("process_cpu_s", 0.0)
        for g, t in now["generations"].items():
            w = was.get("generations", {}).get(g, {})
            acc = gens.setdefault(g, {"collections": 0, "wall_s": 0.0, "cpu_s": 0.0})
            for k in acc:
                acc[k] += t[k] - w.get(k, 0)
    gc_cpu = sum(g["cpu_s"] for g in gens.values())
    return {
        "generations": {
            g: {k: round(v, 4) if isinstance(v, float) else v for k, v in t.items()}
            for g, t in gens.items()
        },
        "gc_cpu_ms_per_delivery": round(gc_cpu * 1000 / max(1, n), 4),
        "workers_cpu_s": round(cpu, 3),
        "gc_share_of_workers_cpu": round(gc_cpu / cpu, 4) if cpu else None,
        "frozen_objects": {w: a.get("frozen_objects") for w, a in after.items()},
        "threshold": {w: a.get("threshold") for w, a in after.items()},
    }


def postgres_pids(pgdata: str) -> list[int]:
    import psutil

    try:
        postmaster = int(Path(pgdata, "postmaster.pid").read_text().split()[0])
        p = psutil.Process(postmaster)
        return [postmaster, *(c.pid for c in p.children(recursive=True))]
    except (OSError, ValueError, psutil.Error):
        return []


def engine_pids(pid: int) -> list[int]:
    """The daemon and its children (``serve --workers N``: the supervisor and N workers)."""
    import psutil

    try:
        p = psutil.Process(pid)
        return [pid, *(c.pid for c in p.children(recursive=True))]
    except psutil.Error:
        return [pid]


class RssWatch:
    """Peak RSS of the engine (all its processes summed): psutil samples every 0.2 s, and the
    sum of VmHWM from /proc at the end."""

    def __init__(self, pid: int) -> None:
        import psutil

        self.proc = psutil.Process(pid)
        self.peak = 0
        self.phase_peak = 0
        self._task: asyncio.Task[None] | None = None

    async def _run(self) -> None:
        import psutil

        while True:
            with contextlib.suppress(Exception):
                rss = 0
                for pid in engine_pids(self.proc.pid):
                    with contextlib.suppress(psutil.Error):
                        rss += psutil.Process(pid).memory_info().rss
                self.peak = max(self.peak, rss)
                self.phase_peak = max(self.phase_peak, rss)
            await asyncio.sleep(0.2)

    def start(self) -> None:
        self._task = asyncio.create_task(self._run())

    def take_phase(self) -> float:
        mb = self.phase_peak / 2**20
        self.phase_peak = 0
        return round(mb, 1)

    def hwm_mb(self) -> float | None:
        total = 0
        for pid in engine_pids(self.proc.pid):
            with contextlib.suppress(OSError, ValueError):
                for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                    if line.startswith("VmHWM:"):
                        total += int(line.split()[1])
        return round(total / 1024, 1) if total else None


# -- load -----------------------------------------------------------------------------------


def event_doc(event_id: str, topic: str, i: int) -> dict[str, Any]:
    return {
        "eventId": event_id,
        "topic": topic,
        "version": "1.0",
        "aggregateId": f"order-{i % 1000}",
        "aggregateVersion": i,
        "occurredAt": datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z"),
        "payload": {
            "orderId": f"ord_{i:08d}",
            "amount": 4200 + i % 100,
            "currency": "EUR",
            "customer": {"id": f"cus_{i % 977:06d}", "tier": "gold"},
            "lines": [{"sku": "SKU-1", "qty": 1}, {"sku": "SKU-2", "qty": 3}],
            "note": "x" * 60,
        },
    }


class Loader:
    def __init__(self, http: Any, base: str, run_id: str) -> None:
        self.http = http
        self.base = base
        self.run_id = run_id
        self.seq = 0

    async def post(self, topic: str, tag: str) -> tuple[str, int]:
        self.seq += 1
        i = self.seq
        eid = f"{self.run_id}-{tag}-{i}"
        async with self.http.post(f"{self.base}/v1/events", json=event_doc(eid, topic, i)) as r:
            text = await r.text()
            if r.status != 202:
                raise RuntimeError(f"ingest {r.status}: {text[:300]}")
            return eid, len(json.loads(text)["deliveries"])

    async def open_loop(self, n: int, topic: str, tag: str, concurrency: int) -> dict[str, Any]:
        ids: list[str] = []
        planned = 0
        sem = asyncio.Semaphore(concurrency)

        async def one() -> None:
            nonlocal planned
            async with sem:
                eid, k = await self.post(topic, tag)
                ids.append(eid)
                planned += k

        t0 = time.monotonic()
        await asyncio.gather(*(one() for _ in range(n)))
        wall = time.monotonic() - t0
        return {"ids": ids, "planned": planned, "ingest_wall_s": wall}

    async def paced(self, eps: float, seconds: float, topic: str, tag: str) -> dict[str, Any]:
        """Events on a fixed schedule (open loop: a slow answer does not delay the next)."""
        ids: list[str] = []
        planned = 0
        tasks = []
        sem = asyncio.Semaphore(256)
        n = max(1, int(eps * seconds))

        async def one() -> None:
            nonlocal planned
            async with sem:
                eid, k = await self.post(topic, tag)
                ids.append(eid)
                planned += k

        t0 = time.monotonic()
        behind = 0
        for i in range(n):
            delay = t0 + i / eps - time.monotonic()
            if delay > 0:
                await asyncio.sleep(delay)
            elif delay < -0.05:
                behind += 1
            tasks.append(asyncio.create_task(one()))
        await asyncio.gather(*tasks)
        return {
            "ids": ids,
            "planned": planned,
            "ingest_wall_s": time.monotonic() - t0,
            "late_sends": behind,
        }


async def wait_accepted(
    pool: Any, ids: list[str], want: int, limit_s: float, tenant_id: str | None = None
) -> dict[str, int]:
    """Poll the ledger until ``want`` deliveries of ``ids`` are accepted. With the tenant the
    poll goes through the (tenant_id, event_id) index (without, a scan of the table every 0.25 s,
    which cost Postgres ~0.25 cores during a 25 s peak phase and counted in its CPU)."""
    deadline = time.monotonic() + limit_s
    while True:
        if tenant_id is None:
            rows = await pool.fetch(
                "SELECT state, count(*) AS n FROM deliveries WHERE event_id = ANY($1)"
                " GROUP BY state",
                ids,
            )
        else:
            rows = await pool.fetch(
                "SELECT state, count(*) AS n FROM deliveries"
                " WHERE tenant_id = $2 AND event_id = ANY($1) GROUP BY state",
                ids,
                tenant_id,
            )
        states = {r["state"]: r["n"] for r in rows}
        if states.get("ENDPOINT_ACCEPTED", 0) >= want:
            return states
        if time.monotonic() > deadline:
            return states
        await asyncio.sleep(0.25)


async def timings(pool: Any, ids: list[str]) -> tuple[list[float], list[float]]:
    """(ingested_at, accepted_at) epoch seconds per accepted delivery, from the event log."""
    rows = await pool.fetch(
        """
        SELECT extract(epoch FROM i.recorded_at)::float8 AS ing,
               extract(epoch FROM a.recorded_at)::float8 AS acc
        FROM deliveries d
        JOIN event_bodies b ON b.tenant_id = d.tenant_id AND b.event_id = d.event_id
        JOIN events i ON i.stream_id = b.stream_id AND i.type = 'event.ingested'
        JOIN events a ON a.stream_id = 'delivery-' || d.delivery_id
                     AND a.type = 'delivery.endpoint_accepted'
        WHERE d.event_id = ANY($1)
        """,
        ids,
    )
    return [r["ing"] for r in rows], [r["acc"] for r in rows]


async def breakdown(pool: Any, ids: list[str]) -> dict[str, Any]:
    """Where the time goes, from the log: queue wait, send+record, and the claim loop."""
    rows = await pool.fetch(
        """
        SELECT extract(epoch FROM i.recorded_at)::float8 AS ing,
               extract(epoch FROM ad.recorded_at)::float8 AS adm,
               extract(epoch FROM a.recorded_at)::float8 AS acc,
               ad.tx_id::text AS claim_tx
        FROM deliveries d
        JOIN event_bodies b ON b.tenant_id = d.tenant_id AND b.event_id = d.event_id
        JOIN events i ON i.stream_id = b.stream_id AND i.type = 'event.ingested'
        JOIN events ad ON ad.stream_id = 'delivery-' || d.delivery_id
                      AND ad.type = 'delivery.attempt_admitted'
        JOIN events a ON a.stream_id = 'delivery-' || d.delivery_id
                     AND a.type = 'delivery.endpoint_accepted'
        WHERE d.event_id = ANY($1)
        """,
        ids,
    )
    if not rows:
        return {}
    wait = [(r["adm"] - r["ing"]) * 1000 for r in rows]
    send = [(r["acc"] - r["adm"]) * 1000 for r in rows]
    claims: dict[str, list[float]] = {}
    for r in rows:
        claims.setdefault(r["claim_tx"], []).append(r["adm"])
    starts = sorted((min(v), len(v)) for v in claims.values())
    gaps = [(b[0] - a[0]) * 1000 for a, b in itertools.pairwise(starts)]
    span = starts[-1][0] - starts[0][0]
    return {
        "ingest_to_admitted_ms": {
            "p50": round(pct(wait, 0.5), 1),
            "p99": round(pct(wait, 0.99), 1),
        },
        "admitted_to_accepted_ms": {
            "p50": round(pct(send, 0.5), 1),
            "p99": round(pct(send, 0.99), 1),
        },
        "claim_transactions": len(starts),
        "rows_per_claim_mean": round(len(rows) / len(starts), 1),
        "rows_per_claim_max": max(n for _, n in starts),
        "ms_between_claims_p50": round(pct(gaps, 0.5), 1) if gaps else None,
        "admissions_per_s": round(len(rows) / span, 1) if span > 0 else None,
    }


async def db_counters(pool: Any) -> dict[str, float]:
    """Committed transactions and WAL bytes so far (pg_stat_database, pg_stat_wal)."""
    row = await pool.fetchrow(
        "SELECT (SELECT xact_commit + xact_rollback FROM pg_stat_database"
        "        WHERE datname = current_database())::float8 AS transactions,"
        "       (SELECT wal_bytes FROM pg_stat_wal)::float8 AS wal_bytes,"
        "       (SELECT wal_sync FROM pg_stat_wal)::float8 AS wal_syncs"
    )
    return dict(row)


async def pg_writes(pool: Any) -> dict[str, Any]:
    """What Postgres has written so far: the WAL insert position (exact, the whole server),
    pg_stat_wal's full-page images and records, and per user table the heap rows inserted,
    updated (HOT and not), deleted, with its indexes (partial or not). Table counters are
    flushed asynchronously by every backend (an idle backend after up to 10 s): read them
    after ``settle_stats``."""
    async with pool.acquire() as conn:
        await conn.execute("SELECT pg_stat_clear_snapshot()")
        head = await conn.fetchrow(
            "SELECT pg_current_wal_lsn()::text AS lsn, wal_records::float8 AS wal_records,"
            " wal_fpi::float8 AS wal_fpi FROM pg_stat_wal"
        )
        tables = {
            r["name"]: {k: float(r[k]) for k in ("ins", "upd", "hot", "del")}
            for r in await conn.fetch(
                "SELECT relname AS name, n_tup_ins AS ins, n_tup_upd AS upd,"
                " n_tup_hot_upd AS hot, n_tup_del AS del FROM pg_stat_user_tables"
            )
        }
        indexes = [
            (r["tab"], r["idx"], r["partial"], r["am"])
            for r in await conn.fetch(
                "SELECT t.relname AS tab, c.relname AS idx, i.indpred IS NOT NULL AS partial,"
                " a.amname AS am FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid"
                " JOIN pg_class t ON t.oid = i.indrelid JOIN pg_am a ON a.oid = c.relam"
                " JOIN pg_namespace n ON n.oid = t.relnamespace WHERE n.nspname = 'public'"
            )
        ]
    return {"lsn": head["lsn"], "wal": dict(head), "tables": tables, "indexes": indexes}


def waldump_stats(
    bin_dir: str | None, pgdata: str, start: str, end: str, top: int = 14
) -> dict[str, Any]:
    """Where the phase's WAL went, by record type (``pg_waldump --stats=record`` between two
    LSNs of the server's own WAL directory): count and bytes (record + full-page images)."""
    exe = Path(bin_dir or "") / "pg_waldump"
    if not exe.exists():
        return {"skipped": f"no pg_waldump at {exe}"}
    out = subprocess.run(
        [str(exe), "--stats=record", "-p", str(Path(pgdata) / "pg_wal"), "-s", start, "-e", end],
        capture_output=True,
        text=True,
        timeout=120,
    )
    rows = []
    for ln in out.stdout.splitlines():
        parts = re.sub(r"\([^)]*\)", " ", ln).split()  # drop the (percent) columns
        if len(parts) == 5 and "/" in parts[0] and all(p.isdigit() for p in parts[1:]):
            rows.append(
                {
                    "record": parts[0],
                    "count": int(parts[1]),
                    "record_bytes": int(parts[2]),
                    "fpi_bytes": int(parts[3]),
                    "bytes": int(parts[4]),
                }
            )
    rows.sort(key=lambda r: -r["bytes"])
    if not rows:
        return {"error": (out.stderr or out.stdout)[-400:]}
    return {"top_by_bytes": rows[:top], "total_bytes": sum(r["bytes"] for r in rows)}


_WAL_LINE = re.compile(
    r"rmgr: (\S+)\s+len \(rec/tot\):\s*\d+/\s*(\d+),.*?desc: (\S+)(?:.*?blkref #0: rel \d+/\d+/(\d+))?"
)


def waldump_by_relation(
    bin_dir: str | None, pgdata: str, start: str, end: str, names: dict[int, str]
) -> dict[str, Any]:
    """The phase's WAL bytes (record + full-page images) by relation and record type: every
    record of ``pg_waldump`` between two LSNs, attributed to its first block's relation
    (``names``: relfilenode -> relation name; records without a block are "-")."""
    exe = Path(bin_dir or "") / "pg_waldump"
    if not exe.exists():
        return {"skipped": f"no pg_waldump at {exe}"}
    out = subprocess.run(
        [str(exe), "-p", str(Path(pgdata) / "pg_wal"), "-s", start, "-e", end],
        capture_output=True,
        text=True,
        timeout=300,
    )
    acc: Counter[tuple[str, str]] = Counter()
    count: Counter[tuple[str, str]] = Counter()
    for ln in out.stdout.splitlines():
        m = _WAL_LINE.match(ln)
        if not m:
            continue
        rmgr, total, op, node = m.groups()
        rel = names.get(int(node), f"rel {node}") if node else "-"
        acc[(rel, f"{rmgr}/{op}")] += int(total)
        count[(rel, f"{rmgr}/{op}")] += 1
    rows = [
        {"relation": rel, "record": rec, "count": count[(rel, rec)], "bytes": b}
        for (rel, rec), b in acc.most_common(25)
    ]
    by_rel: Counter[str] = Counter()
    for (rel, _), b in acc.items():
        by_rel[rel] += b
    # index entries actually written: one leaf insert (or posting-list insert) each
    entries: Counter[str] = Counter()
    for (rel, rec), c in count.items():
        if rec in ("Btree/INSERT_LEAF", "Btree/INSERT_POST"):
            entries[rel] += c
    return {
        "top": rows,
        "by_relation": dict(by_rel.most_common(20)),
        "btree_entries_by_index": dict(entries.most_common()),
        "btree_entries_total": sum(entries.values()),
    }


def pgserver_bin() -> str | None:
    with contextlib.suppress(Exception), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import pgserver

        return str(Path(pgserver.__file__).parent / "pginstall" / "bin")
    return None


async def catalogue_catch_up(db_url: str) -> int | None:
    """Bring the asynchronous projections up to the log, as the archive does before it
    chooses streams (engine builds that keep the stream catalogue in batches; None before)."""
    try:
        from hookproof.engine.db.database import connect_pool
        from hookproof.engine.recording.projections_runner import catch_up
        from hookproof.engine.recording.registry import async_projections
        from hookproof.events import EventStore
    except ImportError:
        return None
    pool = await connect_pool(db_url, min_size=1, max_size=2)
    try:
        return await catch_up(EventStore(pool), async_projections())
    finally:
        await pool.close()


async def settle_stats(pool: Any, wait_s: float = 11.0) -> None:
    """Let every backend flush its table counters: ours at once (PG15+), the engine's when
    they are next idle (pgstat flushes an idle backend's pending counters within 10 s)."""
    with contextlib.suppress(Exception):
        await pool.execute("SELECT pg_stat_force_next_flush()")
    await asyncio.sleep(wait_s)


async def pg_writes_delta(
    pool: Any, before: dict[str, Any], after: dict[str, Any], deliveries: int
) -> dict[str, Any]:
    """Per delivery: WAL bytes (LSN difference), full-page images and records, heap rows and
    index entries written per table. Index entries: every insert and every non-HOT update
    adds one entry to each index; for a partial index that is an upper bound (the entry is
    added only when the new row matches the predicate), so both figures are given."""
    n = max(1, deliveries)
    diff = "SELECT pg_wal_lsn_diff($1::text::pg_lsn, $2::text::pg_lsn)::float8"
    wal = await pool.fetchval(diff, after.get("phase_lsn", after["lsn"]), before["lsn"])
    wal_settled = await pool.fetchval(diff, after["lsn"], before["lsn"])
    wal_only = await pool.fetchval(diff, after.get("only_phase_lsn", after["lsn"]), before["lsn"])
    per_table: dict[str, Any] = {}
    totals = {"heap_rows": 0.0, "index_entries_full": 0.0, "index_entries_upper": 0.0}
    for name, now in sorted(after["tables"].items()):
        was = before["tables"].get(name, {})
        d = {k: v - was.get(k, 0.0) for k, v in now.items()}
        if not any(d.values()):
            continue
        nonhot = d["upd"] - d["hot"]
        idx = [i for i in after["indexes"] if i[0] == name]
        full = [i for i in idx if not i[2] and i[3] != "brin"]
        partial = [i for i in idx if i[2] and i[3] != "brin"]
        entries_full = (d["ins"] + nonhot) * len(full)
        entries_upper = entries_full + (d["ins"] + nonhot) * len(partial)
        heap = d["ins"] + d["upd"]
        totals["heap_rows"] += heap
        totals["index_entries_full"] += entries_full
        totals["index_entries_upper"] += entries_upper
        per_table[name] = {
            "inserted": d["ins"],
            "updated": d["upd"],
            "hot_updated": d["hot"],
            "deleted": d["del"],
            "heap_rows_written_per_delivery": round(heap / n, 3),
            "btree_indexes": len(full),
            "partial_btree_indexes": len(partial),
            "brin_indexes": len(idx) - len(full) - len(partial),
            "index_entries_per_delivery": round(entries_full / n, 3),
            "index_entries_per_delivery_with_partial_upper": round(entries_upper / n, 3),
        }
    return {
        "note": "WAL from pg_current_wal_lsn() (the whole server, exact); rows from "
        "pg_stat_user_tables after every backend flushed; index entries = (inserts + non-HOT "
        "updates) x non-partial btree indexes (exact), partial ones added as an upper bound",
        "deliveries": deliveries,
        "wal_bytes": wal,
        "wal_bytes_per_delivery": round(wal / n, 1),
        "wal_kib_per_delivery": round(wal / n / 1024, 3),
        "wal_kib_per_delivery_incl_settle": round(wal_settled / n / 1024, 3),
        "wal_kib_per_delivery_without_catch_up": round(wal_only / n / 1024, 3),
        "wal_note": "wal_*: from the phase start to its last accepted delivery plus the "
        "catch-up of the stream catalogue the bench runs then (the daemon keeps it in batches: "
        "its deferred work counts); _without_catch_up: to the last accepted delivery only; "
        "_incl_settle: to the end of the stats wait after it (autovacuum, checkpoints)",
        "wal_fpi_per_delivery": round((after["wal"]["wal_fpi"] - before["wal"]["wal_fpi"]) / n, 3),
        "wal_records_per_delivery": round(
            (after["wal"]["wal_records"] - before["wal"]["wal_records"]) / n, 2
        ),
        "heap_rows_per_delivery": round(totals["heap_rows"] / n, 3),
        "index_entries_per_delivery": round(totals["index_entries_full"] / n, 3),
        "index_entries_per_delivery_with_partial_upper": round(
            totals["index_entries_upper"] / n, 3
        ),
        "tables": per_table,
    }


def pct(values: list[float], q: float) -> float:
    s = sorted(values)
    if not s:
        return float("nan")
    return s[min(len(s) - 1, max(0, round(q * (len(s) - 1))))]


def rates(ing: list[float], acc: list[float]) -> dict[str, Any]:
    n = len(acc)
    if n < 2:
        return {"accepted": n}
    a = sorted(acc)
    whole = n / (a[-1] - min(ing))
    lo, hi = int(n * 0.1), int(n * 0.9)
    steady = (hi - lo) / (a[hi - 1] - a[lo]) if a[hi - 1] > a[lo] else float("nan")
    return {
        "accepted": n,
        "first_ingest_to_last_accept_s": round(a[-1] - min(ing), 3),
        "deliveries_per_s": round(whole, 1),
        "steady_deliveries_per_s": round(steady, 1),
    }


def latency(ing: list[float], acc: list[float], skip_s: float = 1.0) -> dict[str, Any]:
    t0 = min(ing) if ing else 0
    lat = [(a - i) * 1000 for i, a in zip(ing, acc, strict=True) if i - t0 >= skip_s]
    return {
        "samples": len(lat),
        "warmup_skipped_s": skip_s,
        "p50_ms": round(pct(lat, 0.50), 1),
        "p90_ms": round(pct(lat, 0.90), 1),
        "p99_ms": round(pct(lat, 0.99), 1),
        "max_ms": round(max(lat), 1) if lat else None,
    }


# -- baseline -------------------------------------------------------------------------------


async def baseline(
    urls: list[str],
    bodies: list[bytes],
    ca_file: str,
    concurrency: int,
    seconds: float,
    mode: str,
) -> dict[str, Any]:
    """A bare aiohttp client: same bodies, same subscriber servers, no ledger."""
    import aiohttp

    from hookproof_subscriber import SigningKey, sign_request

    ctx = ssl.create_default_context(cafile=ca_file)
    connector = aiohttp.TCPConnector(
        ssl=ctx,
        limit=concurrency,
        force_close=(mode != "keepalive"),
        use_dns_cache=False,
        resolver=bare_resolver(),
    )
    key = SigningKey.generate_ed25519("bench-key")
    done = 0
    errors = 0
    i = 0
    async with aiohttp.ClientSession(connector=connector) as http:
        deadline = time.monotonic() + seconds

        async def worker() -> None:
            nonlocal done, errors, i
            while time.monotonic() < deadline:
                i += 1
                url = urls[i % len(urls)]
                body = bodies[i % len(bodies)]
                headers = {
                    "Content-Type": "application/json",
                    "Webhook-Id": f"bench-{i}",
                    "Webhook-Delivery-Id": f"dlv_bench_{i}",
                    "Webhook-Attempt": "1",
                    "Webhook-Subscription": "sub_bench",
                    "Webhook-Generation": "1",
                    "traceparent": f"00-{secrets.token_hex(16)}-{secrets.token_hex(8)}-01",
                }
                if mode == "fresh+sign":
                    headers.update(
                        sign_request(
                            "POST",
                            url,
                            headers,
                            body,
                            key=key,
                            created=int(time.time()),
                            lifetime=300,
                        )
                    )
                try:
                    async with http.post(url, data=body, headers=headers) as r:
                        await r.read()
                        if 200 <= r.status < 300:
                            done += 1
                        else:
                            errors += 1
                except aiohttp.ClientError:
                    errors += 1

        t0 = time.monotonic()
        await asyncio.gather(*(worker() for _ in range(concurrency)))
        wall = time.monotonic() - t0
    return {
        "mode": mode,
        "requests": done,
        "errors": errors,
        "wall_s": round(wall, 2),
        "requests_per_s": round(done / wall, 1),
        "concurrency": concurrency,
    }


# -- the 10,000-subscription helper ---------------------------------------------------------


async def register_many(
    db_url: str,
    env: dict[str, str],
    tenant_id: str,
    ports: list[int],
    n: int,
    concurrency: int,
    offset: int = 0,
) -> dict[str, Any]:
    """Register ``n`` ed25519 subscriptions through the engine's services; challenge each."""
    import asyncpg
    import msgspec
    import structlog

    from hookproof.config import Settings
    from hookproof.engine.runtime.daemon import build_engine
    from hookproof.schemas.api import SubscriptionCreate

    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.ERROR))
    settings = Settings.from_env({**env, "HOOKPROOF_LISTEN": "127.0.0.1:1"})
    # the engine workers hold up to 30 connections each; the embedded server allows 100
    pool = await asyncpg.create_pool(db_url, min_size=2, max_size=min(concurrency + 4, 16))
    engine = await build_engine(settings, pool)
    failed: Counter[str] = Counter()
    sem = asyncio.Semaphore(concurrency)
    challenger = engine.services.challenger

    async def one(i: int) -> None:
        body = msgspec.convert(
            {
                "endpoint": site_url(ports[i % len(ports)], i, "fan"),
                "topics": [LARGE_TOPIC],
                "eventVersions": [1],
                "region": "eu",
                "signatureAlgorithm": "ed25519",
                "owner": "bench",
            },
            SubscriptionCreate,
        )
        async with sem:
            state, _ = await engine.subscriptions.register(tenant_id, body, actor="bench:setup")
            outcome = await challenger.run(state.subscription_id, actor="bench:setup")
            if not outcome["passed"]:
                failed[str(outcome.get("reason"))] += 1

    t0 = time.monotonic()
    try:
        await asyncio.gather(*(one(offset + i) for i in range(n)))
    finally:
        await engine.close()
        await pool.close()
    wall = time.monotonic() - t0
    return {
        "registered": n,
        "failed": dict(failed),
        "wall_s": round(wall, 1),
        "per_s": round(n / wall, 1),
        "concurrency": concurrency,
        "how": "SubscriptionService.register + Challenger.run in the bench process "
        "(real hookproof.challenge.v1 over HTTPS, ACTIVE through the log)",
    }


# -- profiling ------------------------------------------------------------------------------


def find_py_spy(explicit: str | None) -> str | None:
    for cand in (explicit, shutil.which("py-spy"), "/tmp/pyspy/bin/py-spy"):
        if cand and Path(cand).exists():
            return cand
    return None


def summarise_profile(raw: Path, top: int = 25) -> dict[str, Any]:
    """Collapsed stacks -> inclusive and self shares of the sampled (non-idle) time."""
    inclusive: Counter[str] = Counter()
    own: Counter[str] = Counter()
    areas: Counter[str] = Counter()
    total = 0
    no_python = 0
    for line in raw.read_text(errors="replace").splitlines():
        stack, _, count = line.rpartition(" ")
        if not count.isdigit():
            continue
        c = int(count)
        # the process's own root frame ("process <pid>:...") first: not a Python frame
        frames = [_frame(f) for f in stack.split(";") if f and not f.startswith("process ")]
        if not frames:
            no_python += c  # a thread with no Python frame (native threads): not the loop
            continue
        total += c
        for f in set(frames):
            inclusive[f] += c
        own[frames[-1]] += c
        areas[_area(stack)] += c
    if not total:
        return {"samples": 0, "samples_without_python_frames": no_python}

    def share(counter: Counter[str], keep: Any) -> list[list[Any]]:
        return [[k, round(100 * v / total, 1)] for k, v in counter.most_common() if keep(k)][:top]

    project = ("engine/", "events/", "projections/", "hookproof_subscriber/")
    return {
        "samples": total,
        "samples_without_python_frames": no_python,
        "areas_pct": {k: round(100 * v / total, 1) for k, v in areas.most_common()},
        "inclusive_pct_project": share(inclusive, lambda k: any(p in k for p in project)),
        "inclusive_pct_libraries": share(
            inclusive,
            lambda k: any(
                p in k
                for p in (
                    "asyncpg",
                    "aiohttp/",
                    "ssl.py",
                    "structlog",
                    "cryptography",
                    "msgspec",
                    "asyncio/",
                )
            ),
        ),
        "self_pct": share(own, lambda k: True),
    }


#: where a sampled stack is (the first of these its frames contain), for ``areas_pct``
_AREAS = (
    ("idle (select)", ("EpollSelector.select",)),
    ("ingest: API request and answer", ("post_event", "post_batch")),
    ("ingest: group commit", ("IngestService._commit", "GroupCommit")),
    ("claim", ("Dispatcher.claim", "Dispatcher._claim")),
    ("send", ("Dispatcher.send",)),
    ("outcomes", ("Dispatcher.record", "_append_outcome", "OutcomeBatcher", "batcher.py")),
    ("projector", ("projector", "Projector")),
    ("aiohttp server (other routes, parsing)", ("aiohttp/web_protocol", "aiohttp/web_app")),
    ("TLS handshakes", ("do_handshake",)),
    ("asyncpg (outside the above)", ("asyncpg/",)),
)


def _area(stack: str) -> str:
    for name, marks in _AREAS:
        if any(m in stack for m in marks):
            return name
    return "other"


def _frame(text: str) -> str:
    # py-spy raw frames: "function (path/to/file.py:line)"; keep function and short file
    name, _, loc = text.partition(" (")
    path = loc.rstrip(")").rsplit(":", 1)[0]
    for marker in ("/site-packages/", "/work/main/", "/lib/python3.11/"):
        if marker in path:
            path = path.split(marker, 1)[1]
            break
    return f"{name} ({path})"


# -- machine --------------------------------------------------------------------------------


def machine_info() -> dict[str, Any]:
    def version(name: str) -> str | None:
        try:
            return importlib_metadata.version(name)
        except importlib_metadata.PackageNotFoundError:
            return None

    def git(*args: str) -> str | None:
        with contextlib.suppress(Exception):
            return subprocess.run(
                ["git", "-C", str(REPO), *args],
                capture_output=True,
                text=True,
                timeout=5,
                check=True,
            ).stdout.strip()
        return None

    cpu_model = None
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu_model = line.split(":", 1)[1].strip()
                break
    import psutil

    dirty = git(
        "status", "--porcelain", "--", "engine", "events", "projections", "hookproof", "subscriber"
    )
    return {
        "cpu_count": os.cpu_count(),
        "cpu_model": cpu_model,
        "memory_gb": round(psutil.virtual_memory().total / 2**30, 1),
        "platform": platform.platform(),
        "python": sys.version.split()[0],
        "packages": {
            n: version(n)
            for n in (
                "aiohttp",
                "asyncpg",
                "cryptography",
                "msgspec",
                "pgserver",
                "trustme",
                "structlog",
                "psutil",
            )
        },
        "git_commit": git("rev-parse", "--short", "HEAD"),
        "git_uncommitted_engine_files": dirty.splitlines() if dirty else [],
        "loadavg_start": list(os.getloadavg()),
    }


# -- the run --------------------------------------------------------------------------------


def peer_concurrencies(args: argparse.Namespace) -> list[int]:
    if not args.peer:
        return []
    return [int(x) for x in str(args.peer_concurrency).split(",") if x.strip()]


async def run_peer_phase(
    args: argparse.Namespace,
    pool: Any,
    db_url: str,
    pgdata: str,
    urls: list[str],
    bodies: list[bytes],
    ca_file: str,
    events: int,
    concurrency: int,
    tmp: Path,
    cpu_groups: dict[str, Any],
    log: Any,
) -> dict[str, Any]:
    """``bench/peer_procrastinate.py`` as a child process on its own fresh database of this
    run's Postgres server, sending to the same sites: its own figures (rate, WAL between its
    first job and its last answer, rows per table, its CPU) plus, from here, the CPU of every
    group over its run, the WAL the idle daemon writes meanwhile (measured just before, same
    length) and the WAL by relation over its LSN range."""
    from urllib.parse import urlsplit, urlunsplit

    name = f"peer_{args.peer}_c{concurrency}" + (
        f"_p{args.peer_processes}" if args.peer_processes > 1 else ""
    )
    await pool.execute(f'CREATE DATABASE "{name}"')
    parts = urlsplit(db_url)
    peer_url = urlunsplit(parts._replace(path=f"/{name}"))
    cfg = {
        "db_url": peer_url,
        "urls": urls,
        "bodies": [b.decode() for b in bodies],
        "ca_file": ca_file,
        "events": events,
        "concurrency": concurrency,
        "ingest_concurrency": args.concurrency,
        "pool_max": args.peer_pool_max or min(concurrency, 32) + 2,
        "timeout_s": 300,
        "processes": args.peer_processes,
        "tmp_dir": str(tmp),
    }
    cfg_file, out_file = tmp / f"{name}.json", tmp / f"{name}-out.json"
    cfg_file.write_text(json.dumps(cfg))
    # the idle daemon's own WAL rate (projector batches, heartbeats), the baseline to subtract
    idle0 = await pool.fetchval("SELECT pg_current_wal_lsn()::text")
    await asyncio.sleep(args.peer_idle_seconds)
    idle1 = await pool.fetchval("SELECT pg_current_wal_lsn()::text")
    idle_bytes = await pool.fetchval(
        "SELECT pg_wal_lsn_diff($1::text::pg_lsn, $2::text::pg_lsn)::float8", idle1, idle0
    )
    proc = subprocess.Popen(  # noqa: ASYNC220 (returns at once; awaited in a thread below)
        [
            sys.executable,
            str(ROOT / "peer_procrastinate.py"),
            "--config",
            str(cfg_file),
            "--output",
            str(out_file),
        ],
        stdout=subprocess.DEVNULL,
        stderr=(tmp / f"{name}.log").open("wb"),
    )
    import resource

    meter = CpuMeter(cpu_groups)
    meter.start()
    kids0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    la0 = os.getloadavg()[0]
    # the peer's Postgres backends exit with it, before the meter's last look: sample them
    pg_first = {pid: CpuMeter._cpu(pid) for pid in postgres_pids(pgdata)}
    pg_last = dict(pg_first)
    limit = time.monotonic() + 600
    while proc.poll() is None and time.monotonic() < limit:
        for pid in postgres_pids(pgdata):
            pg_last[pid] = CpuMeter._cpu(pid) or pg_last.get(pid, 0.0)
        await asyncio.sleep(0.25)
    rc = await asyncio.to_thread(proc.wait, 60)
    cpu = meter.stop()
    pg_cpu = sum(v - pg_first.get(pid, 0.0) for pid, v in pg_last.items())
    cpu["postgres_sampled"] = round(pg_cpu / cpu["wall_s"], 3)
    # the peer's backends were in "other" (the meter's last look missed them)
    cpu["other"] = round(cpu["other"] - max(0.0, cpu["postgres_sampled"] - cpu["postgres"]), 3)
    # the peer's own CPU: the only child reaped in this window (the subscribers still run)
    kids1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    peer_cpu = (kids1.ru_utime - kids0.ru_utime) + (kids1.ru_stime - kids0.ru_stime)
    cpu["peer"] = round(peer_cpu / cpu["wall_s"], 3)
    cpu["other"] = round(cpu["other"] - cpu["peer"], 3)
    if rc != 0 or not out_file.exists():
        err = (tmp / f"{name}.log").read_text(errors="replace")[-1500:]
        raise RuntimeError(f"peer exited {rc}: {err}")
    out: dict[str, Any] = json.loads(out_file.read_text())
    n = max(1, out["accepted"])
    span = out["first_defer_to_last_accept_s"]
    idle_rate = idle_bytes / args.peer_idle_seconds
    out["wal_note"] = (
        "wal_*: the whole server between the peer's first deferred job and its last 2xx "
        "answer (pg_current_wal_lsn, read by the peer); the hookproof daemon is idle meanwhile "
        "but still writes a little (idle_daemon_wal_bytes_per_s, measured just before); "
        "wal_kib_per_delivery_minus_idle subtracts that rate over the peer's span"
    )
    out["phase"] = name
    out["idle_daemon_wal_bytes_per_s"] = round(idle_rate, 1)
    out["wal_kib_per_delivery_minus_idle"] = round(
        max(0.0, out["wal_bytes"] - idle_rate * span) / n / 1024, 3
    )
    out["cpu_cores_used_whole_child"] = cpu
    out["postgres_cpu_ms_per_delivery_whole_child"] = round(pg_cpu * 1000 / n, 3)
    out["cpu_note"] = (
        "cpu_cores_used_whole_child: every group from the child's start to its exit (schema, "
        "pool and worker start-up, the run, shutdown); its 'postgres' misses the peer's own "
        "backends (gone before the last look), 'postgres_sampled' counts them from samples "
        "every 0.25 s (a lower bound by at most a backend's last 0.25 s); peer_cpu_*: the peer "
        "process over the measured span only"
    )
    out["loadavg_1m_start"] = round(la0, 2)
    out["loadavg_1m_end"] = round(os.getloadavg()[0], 2)
    bin_dir = args.pg_bin if args.pg_stat_statements else pgserver_bin()
    names = {}
    for db in (None, peer_url):
        conn = await asyncpg_connect(db or db_url)
        try:
            for r in await conn.fetch(
                "SELECT relfilenode::int8 AS relfilenode, relname FROM pg_class"
                " WHERE relfilenode <> 0"
            ):
                names.setdefault(int(r["relfilenode"]), r["relname"])
        finally:
            await conn.close()
    out["wal_records"] = await asyncio.to_thread(
        waldump_stats, bin_dir, pgdata, out["wal_start_lsn"], out["wal_end_lsn"]
    )
    out["wal_by_relation"] = await asyncio.to_thread(
        waldump_by_relation, bin_dir, pgdata, out["wal_start_lsn"], out["wal_end_lsn"], names
    )
    log(
        f"{name}: {out['accepted']}/{out['deliveries_wanted']} accepted,"
        f" {out['deliveries_per_s']} dlv/s (steady {out['steady_deliveries_per_s']}),"
        f" WAL {out['wal_kib_per_delivery']} KiB/dlv ({out['wal_kib_per_delivery_minus_idle']}"
        f" minus the idle daemon), cpu {cpu}"
    )
    return out


async def asyncpg_connect(url: str) -> Any:
    import asyncpg

    return await asyncpg.connect(url)


async def run(args: argparse.Namespace, harness: str) -> dict[str, Any]:
    """One whole run (its own Postgres, daemon and sites) with the given harness layout:
    ``processes`` (each subscriber site group a process of its own) or ``outside`` (the
    subscriber sites, the load generator, the DNS server and the bare client all in this one
    process beside the engine, as an outside tester's harness runs them)."""
    import aiohttp
    import asyncpg
    import trustme

    one_process = harness == "outside"
    info = machine_info()
    result: dict[str, Any] = {"benchmark": "e2e", "machine": info, "phases": {}}
    phases = result["phases"]
    run_id = secrets.token_hex(3)
    tmp = Path(tempfile.mkdtemp(prefix="hp-e2e-"))
    procs: list[subprocess.Popen[bytes]] = []
    started = time.monotonic()

    def log(msg: str) -> None:
        print(f"[{time.monotonic() - started:6.1f}s] {msg}", flush=True)

    server = (
        scratch_postgres(args.pgdata_parent, args.pg_bin, args.pg_option, args.pg_log)
        if args.pg_stat_statements
        else postgres_server(args.pgdata_parent)
    )
    with server as (db_url, pgdata):
        try:
            pool = await asyncpg.create_pool(db_url, min_size=1, max_size=4)
            if args.pg_stat_statements:
                await pool.execute("CREATE EXTENSION IF NOT EXISTS pg_stat_statements")
            pg = {
                r["name"]: r["setting"]
                for r in await pool.fetch(
                    "SELECT name, setting FROM pg_settings WHERE name = ANY($1)",
                    [
                        "synchronous_commit",
                        "fsync",
                        "wal_sync_method",
                        "shared_buffers",
                        "server_version",
                    ],
                )
            }
            embedded = "scratch, pg_stat_statements" if args.pg_stat_statements else "pgserver"
            result["postgres"] = {"embedded": embedded, **pg}

            # subscribers
            ca = trustme.CA()
            cert = ca.issue_cert("127.0.0.1", f"*.{SITE_ZONE}")
            dns_transport, dns_port = await start_site_dns()
            result["site_dns"] = {"zone": SITE_ZONE, "ttl_s": 300}
            ca_file, cert_file = tmp / "ca.pem", tmp / "server.pem"
            ca.cert_pem.write_to_path(str(ca_file))
            cert.private_key_and_cert_chain_pem.write_to_path(str(cert_file))
            ports = [free_port() for _ in range(args.subscribers)]
            sub_procs = []
            # --harness outside: the subscriber sites in this process, beside the load generator
            # and the DNS server (as an outside harness runs them); else a process each
            in_process = [{"deliveries": 0, "challenges": 0} for _ in ports]
            sub_runners = (
                [
                    await start_subscriber(port, str(cert_file), in_process[i])
                    for i, port in enumerate(ports)
                ]
                if one_process
                else []
            )
            result["harness"] = harness
            for i, port in enumerate(ports if not one_process else []):
                p = subprocess.Popen(  # noqa: ASYNC220 (setup, before anything is measured)
                    [
                        sys.executable,
                        __file__,
                        "--subscriber",
                        str(port),
                        str(cert_file),
                        str(tmp / f"sub-{i}.json"),
                    ],
                    stdout=subprocess.DEVNULL,
                    stderr=(tmp / f"sub-{i}.log").open("wb"),
                )
                procs.append(p)
                sub_procs.append(p)
            for port, p in zip(ports if sub_procs else [], sub_procs, strict=True):
                wait_tcp(port, p)

            env = {
                "HOOKPROOF_DATABASE_URL": db_url,
                "HOOKPROOF_DATA_DIR": str(tmp / "data"),
                "HOOKPROOF_MASTER_KEY": base64.urlsafe_b64encode(secrets.token_bytes(32))
                .decode()
                .rstrip("="),
                "HOOKPROOF_EGRESS_ALLOW": ",".join(f"127.0.0.1:{p}" for p in ports),
                "HOOKPROOF_EGRESS_CA_FILE": str(ca_file),
                "HOOKPROOF_DNS_SERVERS": f"127.0.0.1:{dns_port}",
                "HOOKPROOF_METRICS_TOKEN": "bench-metrics",
            }
            daemon_env = {**env, "HOOKPROOF_WORKERS": str(args.workers)}
            gc_dir = tmp / "gc_probe" if args.gc_probe else None
            if gc_dir is not None:
                # bench/gc_probe/sitecustomize.py in every worker: collections timed
                daemon_env["PYTHONPATH"] = os.pathsep.join(
                    x for x in (str(ROOT / "gc_probe"), os.environ.get("PYTHONPATH")) if x
                )
                daemon_env["HOOKPROOF_GC_PROBE_DIR"] = str(gc_dir)
            daemon_env.update(kv.split("=", 1) for kv in args.daemon_env)  # type: ignore[misc]
            result["daemon_env"] = args.daemon_env
            if args.what_if_unlogged:
                # A what-if, not a supported configuration: how much WAL would the named
                # tables cost if they wrote none (the schema as migrated, then SET UNLOGGED)?
                run_cli(["migrate"], env)
                for table in args.what_if_unlogged.split(","):
                    await pool.execute(f"ALTER TABLE {table} SET UNLOGGED")  # bench input
                result["what_if_unlogged"] = args.what_if_unlogged.split(",")
            daemon, base = start_daemon(daemon_env, tmp / "daemon.log")
            procs.append(daemon)
            log(f"daemon pid {daemon.pid} at {base}; subscribers on {ports}")
            tenant = json.loads(
                run_cli(["tenant", "create", "bench", "--json"], env).strip().splitlines()[-1]
            )
            rss = RssWatch(daemon.pid)
            rss.start()
            sub_pids = [p.pid for p in sub_procs]
            cpu_groups = {
                "engine": lambda: engine_pids(daemon.pid),
                "postgres": lambda: postgres_pids(pgdata),
                "subscribers": lambda: sub_pids,
                "bench_loadgen": lambda: [os.getpid()],
            }

            headers = {"Authorization": f"Bearer {tenant['token']}"}
            connector = aiohttp.TCPConnector(limit=args.concurrency + 8)
            async with aiohttp.ClientSession(
                base_url=None, headers=headers, connector=connector
            ) as http:
                # 10 subscriptions through the API, challenged by the daemon in the background
                t0 = time.monotonic()
                small_urls = [
                    site_url(ports[i % len(ports)], i, "small") for i in range(args.small_subs)
                ]
                sids = []
                for u in small_urls:
                    async with http.post(
                        f"{base}/v1/subscriptions",
                        json={
                            "endpoint": u,
                            "topics": [SMALL_TOPIC],
                            "eventVersions": [1],
                            "region": "eu",
                            "signatureAlgorithm": "ed25519",
                            "owner": "bench",
                        },
                    ) as r:
                        if r.status != 201:
                            raise RuntimeError(f"register: {r.status} {await r.text()}")
                        sids.append((await r.json())["id"])
                for sid in sids:
                    for _ in range(300):
                        async with http.get(f"{base}/v1/subscriptions/{sid}") as r:
                            if (await r.json())["state"] == "ACTIVE":
                                break
                        await asyncio.sleep(0.1)
                    else:
                        raise RuntimeError(f"{sid} never became ACTIVE")
                log(f"{len(sids)} subscriptions ACTIVE via the API in {time.monotonic() - t0:.1f}s")
                rss.take_phase()
                loader = Loader(http, base, run_id)

                async def measured(
                    name: str, coro: Any, want_per_event: int | None, limit_s: float
                ) -> dict[str, Any]:
                    meter = CpuMeter(cpu_groups)
                    await settle_stats(pool, args.stats_settle_seconds)
                    w0 = await pg_writes(pool)
                    db0 = await db_counters(pool)
                    gc0 = gc_probe_read(gc_dir)
                    meter.start()
                    la0 = os.getloadavg()[0]
                    if args.pg_stat_statements:
                        rel0 = await pg_relations(pool)
                        await pool.execute("SELECT pg_stat_statements_reset()")
                    sent = await coro
                    states = await wait_accepted(
                        pool, sent["ids"], sent["planned"], limit_s, tenant["tenantId"]
                    )
                    cpu = meter.stop()
                    gc1 = gc_probe_read(gc_dir)
                    w1_phase = await pool.fetchval("SELECT pg_current_wal_lsn()::text")
                    caught_up = await catalogue_catch_up(db_url)
                    w1_lsn = await pool.fetchval("SELECT pg_current_wal_lsn()::text")
                    await settle_stats(pool, args.stats_settle_seconds)
                    w1 = {**await pg_writes(pool), "phase_lsn": w1_lsn, "only_phase_lsn": w1_phase}
                    db1 = await db_counters(pool)
                    ing, acc = await timings(pool, sent["ids"])
                    out = {
                        "events": len(sent["ids"]),
                        "deliveries_planned": sent["planned"],
                        "ingest_wall_s": round(sent["ingest_wall_s"], 2),
                        "ingest_events_per_s": round(len(sent["ids"]) / sent["ingest_wall_s"], 1),
                        "final_states": states,
                        **rates(ing, acc),
                        "latency": latency(ing, acc, skip_s=1.0 if "late_sends" in sent else 0.0),
                        "breakdown": await breakdown(pool, sent["ids"]),
                        "cpu_cores_used": cpu,
                        "db_per_delivery": {
                            k: round((db1[k] - db0[k]) / max(1, sent["planned"]), 2) for k in db1
                        },
                        "pg_writes": {
                            **await pg_writes_delta(pool, w0, w1, sent["planned"]),
                            "catalogue_catch_up_events": caught_up,
                        },
                        "wal_records": await asyncio.to_thread(
                            waldump_stats,
                            args.pg_bin if args.pg_stat_statements else pgserver_bin(),
                            pgdata,
                            w0["lsn"],
                            w1_lsn,
                        ),
                        "wal_by_relation": await asyncio.to_thread(
                            waldump_by_relation,
                            args.pg_bin if args.pg_stat_statements else pgserver_bin(),
                            pgdata,
                            w0["lsn"],
                            w1_lsn,
                            {
                                int(r["relfilenode"]): r["relname"]
                                for r in await pool.fetch(
                                    "SELECT relfilenode::int8 AS relfilenode, relname"
                                    " FROM pg_class WHERE relfilenode <> 0"
                                )
                            },
                        ),
                        "engine_peak_rss_mb": rss.take_phase(),
                        "loadavg_1m_start": round(la0, 2),
                        "loadavg_1m_end": round(os.getloadavg()[0], 2),
                    }
                    if args.pg_stat_statements:
                        out["pg_statements"] = await pg_statements(pool, sent["planned"])
                        out["pg_relations"] = pg_relations_delta(rel0, await pg_relations(pool))
                    if "late_sends" in sent:
                        out["late_sends"] = sent["late_sends"]
                    if gc1:
                        out["gc_probe"] = gc_probe_delta(gc0, gc1, sent["planned"])
                    log(
                        f"{name}: {out['accepted']}/{out['deliveries_planned']} accepted, "
                        f"{out.get('deliveries_per_s')} dlv/s (steady {out.get('steady_deliveries_per_s')}), "
                        f"p50 {out['latency']['p50_ms']} ms p99 {out['latency']['p99_ms']} ms, cpu {cpu}"
                    )
                    return out

                # calibration: size the peak run to about --peak-seconds
                cal = await measured(
                    "calibration",
                    loader.open_loop(args.calibration_events, SMALL_TOPIC, "cal", args.concurrency),
                    args.small_subs,
                    60,
                )
                phases["calibration"] = cal
                guess = max(
                    50.0, cal.get("steady_deliveries_per_s") or cal.get("deliveries_per_s") or 100.0
                )
                n_peak = int(
                    min(args.max_peak_events, max(100, guess * args.peak_seconds / args.small_subs))
                )
                peak = await measured(
                    f"peak ({n_peak} events x {args.small_subs} subs)",
                    loader.open_loop(n_peak, SMALL_TOPIC, "peak", args.concurrency),
                    args.small_subs,
                    180,
                )
                peak["mode"] = (
                    f"open loop: {n_peak} events posted with {args.concurrency} concurrent API requests, as fast as the API takes them"
                )
                phases["peak_10_subscriptions"] = peak
                peak_rate = peak.get("deliveries_per_s") or guess

                half_eps = peak_rate / 2 / args.small_subs
                half = await measured(
                    f"half peak ({half_eps:.1f} events/s)",
                    loader.paced(half_eps, args.half_seconds, SMALL_TOPIC, "half"),
                    args.small_subs,
                    120,
                )
                half["mode"] = (
                    f"paced: {half_eps:.2f} events/s x {args.small_subs} subscriptions for {args.half_seconds}s (target {peak_rate / 2:.0f} deliveries/s)"
                )
                half["target_deliveries_per_s"] = round(peak_rate / 2, 1)
                phases["half_peak_10_subscriptions"] = half

                # baseline: the same bodies to the same subscriber URLs, no ledger
                bodies = [
                    bytes(r["body"])
                    for r in await pool.fetch(
                        "SELECT body FROM event_bodies WHERE topic = $1 LIMIT 500", SMALL_TOPIC
                    )
                ]
                conc = args.small_subs * GATE_LIMIT
                base_results = {}
                for mode in ("keepalive", "fresh", "fresh+sign"):
                    meter = CpuMeter(cpu_groups)
                    meter.start()
                    b = await baseline(
                        small_urls, bodies, str(ca_file), conc, args.baseline_seconds, mode
                    )
                    b["cpu_cores_used"] = meter.stop()
                    base_results[mode] = b
                    log(f"baseline {mode}: {b['requests_per_s']} req/s ({b['errors']} errors)")
                phases["baseline_bare_client"] = {
                    "body_bytes_mean": round(sum(map(len, bodies)) / len(bodies), 1),
                    "note": "aiohttp client in the bench process, same bodies and the same 10 "
                    "subscriber URLs over HTTPS, concurrency = 10 endpoints x the "
                    "engine's per-endpoint limit of 8; no ledger, no database",
                    **base_results,
                }

                # the do-it-yourself peer (optional): same bodies, same 10 sites, same server
                for peer_conc in peer_concurrencies(args):
                    peer = await run_peer_phase(
                        args,
                        pool,
                        db_url,
                        pgdata,
                        small_urls,
                        bodies,
                        str(ca_file),
                        args.peer_events or n_peak,
                        peer_conc,
                        tmp,
                        cpu_groups,
                        log,
                    )
                    phases[peer["phase"]] = peer

                # profile (optional): py-spy on the daemon under the same open-loop load
                spy = find_py_spy(args.py_spy)
                if args.profile and spy:
                    raw = tmp / "profile.txt"
                    n_prof = int(
                        min(
                            args.max_peak_events,
                            max(100, peak_rate * args.profile_seconds / args.small_subs),
                        )
                    )
                    spy_proc = subprocess.Popen(  # noqa: ASYNC220 (returns at once; py-spy runs beside)
                        [
                            spy,
                            "record",
                            "--pid",
                            str(daemon.pid),
                            "--subprocesses",
                            "--rate",
                            "200",
                            "--format",
                            "raw",
                            "--output",
                            str(raw),
                            "--nonblocking",
                            "--duration",
                            str(int(args.profile_seconds)),
                        ],
                        stdout=subprocess.DEVNULL,
                        stderr=(tmp / "py-spy.log").open("wb"),
                    )
                    await asyncio.sleep(0.5)
                    prof = await measured(
                        "profiled peak (py-spy attached)",
                        loader.open_loop(n_prof, SMALL_TOPIC, "prof", args.concurrency),
                        args.small_subs,
                        120,
                    )
                    await asyncio.to_thread(spy_proc.wait, 60)
                    phases["profiled_peak_10_subscriptions"] = {
                        "deliveries_per_s": prof.get("deliveries_per_s"),
                        "cpu_cores_used": prof["cpu_cores_used"],
                        "profile": summarise_profile(raw)
                        if raw.exists()
                        else {"error": (tmp / "py-spy.log").read_text()[-500:]},
                    }
                elif args.profile:
                    phases["profiled_peak_10_subscriptions"] = {"skipped": "py-spy not found"}

                # 10,000 subscriptions
                # many subscriptions (cumulative: "1000,10000" registers 1,000, measures, then
                # 9,000 more and measures again with all 10,000 on the fan-out topic)
                registered = 0
                for n_subs in large_counts(args):
                    log(f"registering {n_subs - registered} more subscriptions (helper) ...")
                    meter = CpuMeter(cpu_groups)
                    meter.start()
                    reg = await register_many(
                        db_url,
                        env,
                        tenant["tenantId"],
                        ports,
                        n_subs - registered,
                        args.register_concurrency,
                        offset=registered,
                    )
                    registered = n_subs
                    reg["cpu_cores_used"] = meter.stop()
                    log(f"registered: {reg}")
                    if n_subs <= args.warm_sites_up_to:
                        # two unmeasured events first: every site then has a pooled
                        # connection, as a site receiving a steady stream has (a site's
                        # connection is kept idle beyond the pool's small bound for first
                        # requests once the site is recurring: its second request within the
                        # idle time, engine/egress/pool.py; the 10 sites were warmed by the
                        # calibration phase the same way)
                        warm = await loader.open_loop(2, LARGE_TOPIC, f"warm{n_subs}", 1)
                        await wait_accepted(pool, warm["ids"], warm["planned"], args.large_timeout)
                        log(f"warmed {n_subs} sites with two events")
                    rss.take_phase()
                    n_large = int(
                        max(
                            1,
                            min(
                                args.max_large_events,
                                round(peak_rate * args.large_seconds / n_subs),
                            ),
                        )
                    )
                    large = await measured(
                        f"fan-out ({n_large} events x {n_subs} subs)",
                        loader.open_loop(n_large, LARGE_TOPIC, f"fan{n_subs}", 1),
                        n_subs,
                        args.large_timeout,
                    )
                    large["mode"] = (
                        f"{n_large} events posted one after the other, each planned to {n_subs} subscriptions"
                    )
                    phases[f"registration_{n_subs}"] = reg
                    phases[f"peak_{n_subs}_subscriptions"] = large

            rss_hwm = rss.hwm_mb()
            result["engine_peak_rss_mb"] = {
                "psutil_sampled": round(rss.peak / 2**20, 1),
                "vm_hwm": rss_hwm,
            }
            metrics = None
            with contextlib.suppress(Exception):
                scrape = urllib.request.Request(
                    base + "/metrics", headers={"Authorization": "Bearer bench-metrics"}
                )
                with _OPENER.open(scrape, timeout=5) as r:
                    metrics = [
                        ln
                        for ln in r.read().decode().splitlines()
                        if ln.startswith("hookproof_attempts_total")
                    ]
            result["engine_attempt_metrics"] = metrics
            result["site_dns"]["queries"] = SiteDns.queries
            dns_transport.close()
            stop_process(daemon)
            for p in sub_procs:
                stop_process(p)
            for runner in sub_runners:
                await runner.cleanup()
            result["subscriber_counts"] = (
                in_process
                if one_process
                else [
                    json.loads((tmp / f"sub-{i}.json").read_text())
                    if (tmp / f"sub-{i}.json").exists()
                    else None
                    for i in range(len(sub_procs))
                ]
            )
            log_text = (tmp / "daemon.log").read_text(errors="replace")
            warned: Counter[str] = Counter()
            for ln in log_text.splitlines():
                if ln.startswith("{") and ('"level": "warning"' in ln or '"level": "error"' in ln):
                    with contextlib.suppress(ValueError):
                        warned[json.loads(ln).get("event")] += 1
            result["daemon_log_warnings"] = warned.most_common(10)
            await pool.close()
        finally:
            for p in procs:
                with contextlib.suppress(Exception):
                    stop_process(p, timeout=10)
            if not args.keep_tmp:
                shutil.rmtree(tmp, ignore_errors=True)
    info["loadavg_end"] = list(os.getloadavg())
    result["total_wall_s"] = round(time.monotonic() - started, 1)
    result["recorded_at"] = datetime.now(UTC).isoformat(timespec="seconds")
    result["goals"] = goals(result, args)
    return result


def goals(result: dict[str, Any], args: argparse.Namespace) -> dict[str, Any]:
    """The targets of issue 13 (2 cores, everything local, durable commits, ed25519)."""
    ph = result["phases"]
    peak = ph.get("peak_10_subscriptions", {}).get("deliveries_per_s")
    base = ph.get("baseline_bare_client", {})
    half = ph.get("half_peak_10_subscriptions", {}).get("latency", {}).get("p99_ms")
    out: dict[str, Any] = {}
    if peak:
        out["rate_ge_2000_per_s"] = {"value": peak, "pass": peak >= 2000}
        b = base.get("keepalive", {}).get("requests_per_s")
        if b:
            out["ratio_ge_0.30_of_bare_keepalive_client"] = {
                "value": round(peak / b, 3),
                "bare_keepalive_per_s": b,
                "pass": peak >= 0.30 * b,
            }
    pw = ph.get("peak_10_subscriptions", {}).get("pg_writes", {})
    if pw.get("wal_kib_per_delivery") is not None:
        out["wal_le_4.0_kib_per_delivery_at_peak"] = {
            "value_kib": pw["wal_kib_per_delivery"],
            "pass": pw["wal_kib_per_delivery"] <= 4.0,
        }
    peers = {k: v for k, v in ph.items() if k.startswith("peer_") and v.get("deliveries_per_s")}
    if peak and peers:
        best = max(peers, key=lambda k: peers[k]["deliveries_per_s"])
        rate = peers[best]["deliveries_per_s"]
        out["ratio_ge_3x_peer"] = {
            "value": round(peak / rate, 2),
            "peer_phase": best,
            "peer_deliveries_per_s": rate,
            "pass": peak >= 3 * rate,
        }
    if half is not None:
        out["p99_lt_100ms_at_half_peak"] = {"value_ms": half, "pass": half < 100}
    for n in large_counts(args):
        large = ph.get(f"peak_{n}_subscriptions", {})
        rate = large.get("deliveries_per_s")
        if peak and rate and n == 1000:
            diff = abs(rate - peak) / peak
            out["rate_within_20pct_1000_vs_10_sites"] = {
                "value_pct_difference": round(100 * diff, 1),
                "pass": diff <= 0.2,
            }
        if n == 10000 and large.get("engine_peak_rss_mb"):
            rss = large["engine_peak_rss_mb"]
            out["engine_rss_lt_300mb_at_10000_subscriptions"] = {"value_mb": rss, "pass": rss < 300}
    return out


def _ms_per(cores: float, wall_s: float, n: int) -> float | None:
    return round(cores * wall_s * 1000 / n, 3) if n else None


def mode_summary(result: dict[str, Any]) -> dict[str, Any]:
    """One harness mode's figures side by side (issue 37): hookproof's peak, the peer's and
    the bare keep-alive client's rates, the two ratios, CPU per delivery by process group
    (the kernel's count: psutil ``cpu_times``, i.e. utime + stime of ``/proc/<pid>/stat`` for
    every pid of the group, summed over the phase) and WAL per delivery."""
    ph = result["phases"]
    peak = ph.get("peak_10_subscriptions", {})
    out: dict[str, Any] = {"harness": result.get("harness")}
    rate = peak.get("deliveries_per_s")
    n = peak.get("deliveries_planned") or 0
    if rate:
        c = peak["cpu_cores_used"]
        harness = c["bench_loadgen"] + c["subscribers"]
        out["hookproof"] = {
            "deliveries_per_s": rate,
            "steady_deliveries_per_s": peak.get("steady_deliveries_per_s"),
            "ingest_events_per_s": peak.get("ingest_events_per_s"),
            "deliveries": n,
            "cpu_ms_per_delivery": {
                "engine": _ms_per(c["engine"], c["wall_s"], n),
                "postgres": _ms_per(c["postgres"], c["wall_s"], n),
                "engine_plus_postgres": _ms_per(c["engine"] + c["postgres"], c["wall_s"], n),
                "harness": _ms_per(harness, c["wall_s"], n),
                "other": _ms_per(c["other"], c["wall_s"], n),
            },
            "cpu_cores_used": c,
            "wal_kib_per_delivery": peak.get("pg_writes", {}).get("wal_kib_per_delivery"),
            "loadavg_1m": [peak.get("loadavg_1m_start"), peak.get("loadavg_1m_end")],
        }
        if "gc_probe" in peak:
            out["hookproof"]["gc_probe"] = peak["gc_probe"]
    peers = {k: v for k, v in ph.items() if k.startswith("peer_") and v.get("deliveries_per_s")}
    if peers:
        best = max(peers, key=lambda k: peers[k]["deliveries_per_s"])
        p = peers[best]
        c = p["cpu_cores_used_whole_child"]
        m = max(1, p["accepted"])
        out["peer"] = {
            "phase": best,
            "deliveries_per_s": p["deliveries_per_s"],
            "ingest_events_per_s": p.get("ingest_events_per_s"),
            "deliveries": p["accepted"],
            "cpu_ms_per_delivery": {
                "peer": p.get("peer_cpu_ms_per_delivery"),
                "postgres": p.get("postgres_cpu_ms_per_delivery_whole_child"),
                "peer_plus_postgres": round(
                    (p.get("peer_cpu_ms_per_delivery") or 0.0)
                    + (p.get("postgres_cpu_ms_per_delivery_whole_child") or 0.0),
                    3,
                ),
                "harness": _ms_per(c["bench_loadgen"] + c["subscribers"], c["wall_s"], m),
            },
            "cpu_cores_used": c,
            "wal_kib_per_delivery": p.get("wal_kib_per_delivery_minus_idle"),
            "loadavg_1m": [p.get("loadavg_1m_start"), p.get("loadavg_1m_end")],
        }
    bare = ph.get("baseline_bare_client", {}).get("keepalive", {})
    if bare.get("requests_per_s"):
        out["bare_keepalive"] = {
            "requests_per_s": bare["requests_per_s"],
            "cpu_cores_used": bare.get("cpu_cores_used"),
        }
    if rate and "peer" in out:
        x = rate / out["peer"]["deliveries_per_s"]
        out["ratio_to_peer"] = {"value": round(x, 2), "target": 3.0, "pass": x >= 3.0}
    if rate and "bare_keepalive" in out:
        x = rate / out["bare_keepalive"]["requests_per_s"]
        out["ratio_to_bare_keepalive"] = {"value": round(x, 3), "target": 0.30, "pass": x >= 0.30}
    out["loadavg_start_end"] = [
        result["machine"].get("loadavg_start"),
        result["machine"].get("loadavg_end"),
    ]
    return out


def print_summaries(summaries: dict[str, dict[str, Any]]) -> None:
    print(
        f"\n{'harness':10} {'hookproof':>9} {'peer':>7} {'bare':>7} {'x peer':>7} {'/ bare':>7}"
        "  ms/dlv engine+pg (engine, pg, harness) | peer+pg (peer, pg, harness)  WAL KiB/dlv"
    )
    for name, s in summaries.items():
        h, p = s.get("hookproof", {}), s.get("peer", {})
        hc, pc = h.get("cpu_ms_per_delivery", {}), p.get("cpu_ms_per_delivery", {})
        print(
            f"{name:10} {h.get('deliveries_per_s', '-'):>9} {p.get('deliveries_per_s', '-'):>7} "
            f"{s.get('bare_keepalive', {}).get('requests_per_s', '-'):>7} "
            f"{s.get('ratio_to_peer', {}).get('value', '-'):>7} "
            f"{s.get('ratio_to_bare_keepalive', {}).get('value', '-'):>7}  "
            f"{hc.get('engine_plus_postgres')} ({hc.get('engine')}, {hc.get('postgres')}, "
            f"{hc.get('harness')}) | {pc.get('peer_plus_postgres')} ({pc.get('peer')}, "
            f"{pc.get('postgres')}, {pc.get('harness')})  "
            f"{h.get('wal_kib_per_delivery')} / {p.get('wal_kib_per_delivery')}"
        )


def large_counts(args: argparse.Namespace) -> list[int]:
    return [int(x) for x in str(args.large_subs).split(",") if x.strip() and int(x) > 0]


def print_table(r: dict[str, Any], args: argparse.Namespace) -> None:
    ph = r["phases"]
    print()
    print(
        f"{'phase':34} {'dlv/s':>8} {'steady':>8} {'p50 ms':>8} {'p99 ms':>8} {'RSS MB':>8}  cpu cores (engine/pg/subs/bench; machine)"
    )
    for key in (
        "calibration",
        "peak_10_subscriptions",
        "half_peak_10_subscriptions",
        *(f"peak_{n}_subscriptions" for n in large_counts(args)),
    ):
        p = ph.get(key)
        if not p:
            continue
        c = p["cpu_cores_used"]
        print(
            f"{key:34} {p.get('deliveries_per_s', '-'):>8} {p.get('steady_deliveries_per_s', '-'):>8} "
            f"{p['latency']['p50_ms']:>8} {p['latency']['p99_ms']:>8} {p['engine_peak_rss_mb']:>8}  "
            f"{c['engine']}/{c['postgres']}/{c['subscribers']}/{c['bench_loadgen']}; {c['machine_busy']}"
        )
    b = ph.get("baseline_bare_client", {})
    for mode in ("keepalive", "fresh", "fresh+sign"):
        if mode in b:
            c = b[mode]["cpu_cores_used"]
            print(
                f"{'bare client ' + mode:34} {b[mode]['requests_per_s']:>8} {'':>8} {'':>8} {'':>8} {'':>8}  "
                f"{c['engine']}/{c['postgres']}/{c['subscribers']}/{c['bench_loadgen']}; {c['machine_busy']}"
            )
    for key, p in ph.items():
        if key.startswith("peer_") and p.get("deliveries_per_s"):
            c = p["cpu_cores_used_whole_child"]
            print(
                f"{key:34} {p['deliveries_per_s']:>8} {p['steady_deliveries_per_s'] or '-':>8} "
                f"{p['latency_ms']['p50']:>8} {p['latency_ms']['p99']:>8} {'':>8}  "
                f"peer {c['peer']} pg {c['postgres_sampled']} subs {c['subscribers']}; {c['machine_busy']}"
                f"  WAL {p['wal_kib_per_delivery']} KiB/dlv ({p['wal_kib_per_delivery_minus_idle']}"
                f" minus idle), rows/dlv {p['heap_rows_per_delivery']}"
            )
    pw = ph.get("peak_10_subscriptions", {}).get("pg_writes")
    if pw:
        print(
            f"\npeak, per delivery: WAL {pw['wal_kib_per_delivery']} KiB "
            f"({pw['wal_kib_per_delivery_incl_settle']} with the settle) "
            f"({pw['wal_fpi_per_delivery']} full-page images, {pw['wal_records_per_delivery']} "
            f"records), heap rows {pw['heap_rows_per_delivery']}, index entries "
            f"{pw['index_entries_per_delivery']} (with partial, upper bound "
            f"{pw['index_entries_per_delivery_with_partial_upper']})"
        )
        wr = ph["peak_10_subscriptions"].get("wal_records", {})
        n = max(1, ph["peak_10_subscriptions"]["deliveries_planned"])
        for w in wr.get("top_by_bytes", [])[:10]:
            print(
                f"  wal {w['record']:28} {w['count'] / n:>7.2f}/dlv {w['bytes'] / n:>8.1f} B/dlv"
                f" (fpi {w['fpi_bytes'] / n:.1f})"
            )
        byrel = ph["peak_10_subscriptions"].get("wal_by_relation", {})
        for rel, b in list(byrel.get("by_relation", {}).items())[:12]:
            print(f"  wal by relation {rel:36} {b / n:>8.1f} B/dlv")
        if "btree_entries_total" in byrel:
            print(
                f"  B-tree entries written (from the WAL): {byrel['btree_entries_total'] / n:.2f}"
                " per delivery"
            )
        for t, v in pw["tables"].items():
            print(
                f"  {t:28} ins {v['inserted']:>8.0f} upd {v['updated']:>8.0f} hot "
                f"{v['hot_updated']:>8.0f} del {v['deleted']:>7.0f}  rows/dlv "
                f"{v['heap_rows_written_per_delivery']:>6}  idx/dlv {v['index_entries_per_delivery']:>6}"
            )
    print(f"\nengine peak RSS: {r['engine_peak_rss_mb']}")
    print("goals:")
    for k, v in r["goals"].items():
        print(f"  {k:40} {'PASS' if v['pass'] else 'FAIL'}  {v}")
    print(
        f"load average start {r['machine']['loadavg_start']} end {r['machine']['loadavg_end']}; "
        f"total {r['total_wall_s']} s"
    )


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--subscriber":
        subscriber_main(int(sys.argv[2]), sys.argv[3], sys.argv[4])
        return
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--subscribers", type=int, default=2, help="subscriber processes (2)")
    ap.add_argument(
        "--daemon-env",
        action="append",
        default=[],
        help="NAME=VALUE for the daemon only (repeatable; e.g. HOOKPROOF_GC_FREEZE=0)",
    )
    ap.add_argument(
        "--harness",
        choices=["processes", "outside", "both"],
        default="processes",
        help="processes: the subscriber sites in processes of their own (default); outside: "
        "the sites, the load generator, the DNS server and the bare client in this one process "
        "beside the engine, as an outside tester's harness runs them (their CPU counts as "
        "bench_loadgen's); both: a whole run of each, one after the other",
    )
    ap.add_argument(
        "--one-process",
        dest="harness",
        action="store_const",
        const="outside",
        help="the same as --harness outside",
    )
    ap.add_argument(
        "--gc-probe",
        action="store_true",
        help="time the workers' garbage collections (bench/gc_probe on the daemon's PYTHONPATH)"
        "; with --daemon-env HOOKPROOF_GC_PROBE_FREEZE_AFTER=<s> or _THRESHOLD=a,b,c as what-ifs",
    )
    ap.add_argument(
        "--workers",
        type=int,
        default=os.cpu_count() or 1,
        help="hookproof serve --workers N (default: the number of cores, as serve itself)",
    )
    ap.add_argument("--small-subs", type=int, default=10)
    ap.add_argument(
        "--large-subs",
        default="1000,10000",
        help="fan-out phases, cumulative subscription counts (comma-separated; 0 skips)",
    )
    ap.add_argument(
        "--concurrency",
        type=int,
        default=16,
        help="concurrent API ingest requests in open-loop phases",
    )
    ap.add_argument("--calibration-events", type=int, default=60)
    ap.add_argument(
        "--peak-seconds", type=float, default=20, help="size the peak run to about this long"
    )
    ap.add_argument("--max-peak-events", type=int, default=3000)
    ap.add_argument("--half-seconds", type=float, default=20)
    ap.add_argument("--baseline-seconds", type=float, default=6)
    ap.add_argument(
        "--large-seconds", type=float, default=25, help="size the fan-out run to about this long"
    )
    ap.add_argument("--max-large-events", type=int, default=5)
    ap.add_argument("--large-timeout", type=float, default=200)
    ap.add_argument("--register-concurrency", type=int, default=48)
    ap.add_argument(
        "--warm-sites-up-to",
        type=int,
        default=1000,
        help="fan-out phases with at most this many sites get one unmeasured event first",
    )
    ap.add_argument(
        "--profile",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="py-spy the daemon during an extra open-loop run (if py-spy is found)",
    )
    ap.add_argument("--profile-seconds", type=float, default=10)
    ap.add_argument("--py-spy", default=None, help="path of py-spy (default: PATH, /tmp/pyspy/bin)")
    ap.add_argument(
        "--stats-settle-seconds",
        type=float,
        default=11.0,
        help="wait before reading table counters (idle backends flush within 10 s)",
    )
    ap.add_argument(
        "--peer",
        choices=["procrastinate"],
        default=None,
        help="also run this do-it-yourself peer (bench/peer_procrastinate.py) on the same sites",
    )
    ap.add_argument(
        "--peer-concurrency",
        default="64",
        help="the peer worker's concurrency; comma-separated runs one phase each (16-128)",
    )
    ap.add_argument(
        "--peer-pool-max",
        type=int,
        default=0,
        help="the peer's psycopg pool size (default: min(concurrency, 32) + 2, one listening)",
    )
    ap.add_argument(
        "--peer-processes",
        type=int,
        default=1,
        help="the peer's worker processes (each of --peer-concurrency; default 1)",
    )
    ap.add_argument(
        "--peer-events", type=int, default=0, help="events for the peer (default: the peak's)"
    )
    ap.add_argument(
        "--peer-idle-seconds",
        type=float,
        default=5.0,
        help="WAL of the idle daemon measured this long before each peer phase",
    )
    ap.add_argument("--pgdata-parent", default=None)
    ap.add_argument(
        "--pg-stat-statements",
        action="store_true",
        help="a scratch PostgreSQL from --pg-bin with pg_stat_statements; top statements per phase",
    )
    ap.add_argument("--pg-bin", default="/usr/lib/postgresql/15/bin")
    ap.add_argument(
        "--pg-option",
        action="append",
        default=[],
        help="NAME=VALUE for the scratch server (repeatable; e.g. auto_explain settings)",
    )
    ap.add_argument("--pg-log", default=None, help="keep the scratch server's log here")
    ap.add_argument("--keep-tmp", action="store_true")
    ap.add_argument(
        "--what-if-unlogged",
        default="",
        help="comma-separated tables made UNLOGGED after migrating, before the daemon starts: "
        "a measurement of what their WAL costs (e.g. deliveries), not a supported setting",
    )
    ap.add_argument("--output", default=str(RESULTS))
    args = ap.parse_args()
    modes = ["processes", "outside"] if args.harness == "both" else [args.harness]
    runs = {}
    for mode in modes:
        one = asyncio.run(run(args, mode))
        print_table(one, args)
        one["summary"] = mode_summary(one)
        runs[mode] = one
    summaries = {mode: r["summary"] for mode, r in runs.items()}
    print_summaries(summaries)
    result = (
        runs[modes[0]]
        if len(modes) == 1
        else {"benchmark": "e2e", "harness": "both", "summary": summaries, "modes": runs}
    )
    result["args"] = vars(args)
    out = Path(args.output)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2, default=str) + "\n")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
