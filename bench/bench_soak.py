"""Soak: minutes of steady single ``POST /v1/events`` against ``hookproof serve --workers 2``,
five HTTPS subscribers of which one misbehaves; what a long run does to latency, memory, disk.

Everything local, durable commits: an embedded PostgreSQL (``pgserver``, in a temporary
folder, deleted at the end; or ``--database-url``: a fresh database on that server, dropped at
the end), one ``hookproof serve --workers N`` (the supervisor and its workers), five subscriber
processes (aiohttp over HTTPS, trustme CA, each its own site name answered by the bench's DNS
server, as in ``bench_e2e.py``): four answer 204 to everything, the fifth sleeps ``--slow-s``
(2 s) before answering on ``--slow-rate`` (5%) of the requests and answers 500 to
``--fail-rate`` (20%). Each subscriber counts the 2xx answers it gave per event id.

This process posts ``--rate`` events/s (open loop: a slow answer does not delay the next) for
``--minutes``, each event to all five subscriptions, and records every POST's latency, status
and which worker answered it (the client port of its connection, matched to a worker's
sockets with psutil). Recorded:

- every ``--sample`` (15) seconds: RSS, file descriptors and CPU of every engine process,
  database size, WAL directory size, the data folder (embedded server), the backlog (deliveries
  not yet in a terminal state), API p50/p99/p99.9/max in the window, non-202 answers and
  client errors, warning and error lines in the daemon's log, load average;
- every second: API latency (count, p50, p99, max; max per worker) and this process's own
  event-loop lag (a stalled load generator would show there, not in the engine), beside a
  timeline of the periodic work that could stall the API: the stream catalogue's passes (its
  checkpoint's commits, polled every 0.25 s; the daemon's ``catalogue_pass`` log lines where
  the engine has them), the ledger vacuum task (``ledger_vacuumed`` lines; its VACUUM in
  ``pg_stat_activity``), autovacuum workers and the checkpointer (``pg_stat_activity`` every
  0.25 s; with the embedded server also its log, ``log_autovacuum_min_duration=0`` and
  ``log_checkpoints=on``); each slow second is matched against that timeline;
- after the load: the time the backlog took to drain after the last POST; a full-set check
  (every delivery of every event in a terminal state; every subscriber answered 2xx for every
  event exactly once); WAL bytes and the bytes on disk per delivery, per table and index
  (``pg_total_relation_size``, ``pg_relation_size``); then, with the daemon stopped,
  ``hookproof projections rebuild --verify``, ``audit verify`` and ``gates``.

    .venv/bin/python bench/bench_soak.py --minutes 10 --rate 40          # the issue 40 soak
    .venv/bin/python bench/bench_soak.py --minutes 1 --rate 10 --output bench/results/s10_soak_dev.json
    .venv/bin/python bench/bench_soak.py --engine-python /tmp/main/.venv/bin/python  # old code
    .venv/bin/python bench/bench_soak.py --minutes 5 --memory-probe --trace-frames 8  # leaks?

``--memory-probe`` runs ``bench/soak_probe/sitecustomize.py`` in the workers (bench-only, not
imported otherwise): every ``--probe-every`` seconds RSS, glibc malloc's arenas, the objects
the garbage collector tracks by type and, with ``--trace-frames``, tracemalloc's growth since
its first to its last snapshot (``--snapshots-at``), by traceback; kept under
``memory_probe`` and ``memory_growth_traced``. ``--engine-env NAME=VALUE`` sets a
variable for the daemon (e.g. ``MALLOC_ARENA_MAX=2``).

Writes ``bench/results/s10_soak_<UTC time>.json`` (``--output``). Not a test: nothing asserts a
timing; the issue's targets are evaluated under ``targets``.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import contextlib
import json
import os
import random
import re
import secrets
import signal
import ssl
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter, deque
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT))

import bench_e2e as e2e  # noqa: E402

TOPIC = "bench.soak"
OPEN_STATES = ["PLANNED", "DISPATCHING", "RETRYABLE", "UNKNOWN_TRANSPORT"]
#: daemon log events placed on the timeline: (start = end - duration) .. end
LOG_ACTIVITIES = {
    "catalogue_pass": "catalogue_pass",
    "ledger_vacuumed": "ledger_vacuum",
    "archive_run_done": "archive_run",
}
SLOW_SECOND_MS = 100.0  # a second whose slowest POST took longer is matched to the timeline


# -- the subscriber process -------------------------------------------------------------------


def subscriber_main(
    port: int,
    cert_file: str,
    stats_file: str,
    fail_rate: float,
    slow_rate: float,
    slow_s: float,
    seed: int,
) -> None:
    """An HTTPS subscriber: answers challenges; per delivery sleeps ``slow_s`` on
    ``slow_rate`` of them, then answers 500 on ``fail_rate``, else 204; counts the 2xx answers
    per event id (``Webhook-Id``) and writes them to ``stats_file`` at SIGTERM.
    ``GET /__stats``: the counters so far."""
    from aiohttp import web

    from hookproof_subscriber import build_challenge_response

    rng = random.Random(seed)
    accepted: Counter[str] = Counter()
    counts = {"requests": 0, "answered_500": 0, "slept": 0, "challenges": 0}

    async def handle(request: web.Request) -> web.Response:
        if request.path == "/__stats":
            return web.json_response({**counts, "accepted_events": len(accepted)})
        body = await request.read()
        if b'"type":"hookproof.challenge.v1"' in body:
            counts["challenges"] += 1
            return web.Response(
                body=build_challenge_response(body), content_type="application/json"
            )
        counts["requests"] += 1
        if slow_rate and rng.random() < slow_rate:
            counts["slept"] += 1
            await asyncio.sleep(slow_s)
        if fail_rate and rng.random() < fail_rate:
            counts["answered_500"] += 1
            return web.Response(status=500)
        accepted[request.headers.get("Webhook-Id", "")] += 1
        return web.Response(status=204)

    async def main() -> None:
        ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        ctx.load_cert_chain(cert_file)
        app = web.Application(client_max_size=1024 * 1024)
        app.router.add_route("*", "/{tail:.*}", handle)
        runner = web.AppRunner(app, access_log=None, handle_signals=False)
        await runner.setup()
        await web.TCPSite(runner, "127.0.0.1", port, ssl_context=ctx, backlog=1024).start()
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, stop.set)
        await stop.wait()
        Path(stats_file).write_text(json.dumps({"counts": counts, "accepted": accepted}))  # noqa: ASYNC240 (shutdown)
        await runner.cleanup()

    asyncio.run(main())


# -- small helpers ----------------------------------------------------------------------------


def pct(values: list[float], q: float) -> float | None:
    if not values:
        return None
    s = sorted(values)
    return round(s[min(len(s) - 1, max(0, round(q * (len(s) - 1))))], 2)


def engine_processes(daemon_pid: int) -> dict[str, int]:
    """label -> pid: ``supervisor`` and ``worker-<index>`` (from the worker's command line)."""
    import psutil

    out = {"supervisor": daemon_pid}
    with contextlib.suppress(psutil.Error):
        for child in psutil.Process(daemon_pid).children(recursive=False):
            with contextlib.suppress(psutil.Error):
                cmd = child.cmdline()
                if "--worker-index" in cmd:
                    out[f"worker-{cmd[cmd.index('--worker-index') + 1]}"] = child.pid
                else:
                    out[f"child-{child.pid}"] = child.pid
    return out


def process_sample(pid: int) -> dict[str, Any]:
    import psutil

    try:
        p = psutil.Process(pid)
        with p.oneshot():
            t = p.cpu_times()
            return {
                "pid": pid,
                "rss_mb": round(p.memory_info().rss / 2**20, 1),
                "fds": p.num_fds(),
                "threads": p.num_threads(),
                "cpu_s": round(t.user + t.system, 2),
            }
    except psutil.Error:
        return {"pid": pid, "gone": True}


def folder_bytes(path: str) -> int:
    total = 0
    for root, _dirs, files in os.walk(path):
        for f in files:
            with contextlib.suppress(OSError):
                total += os.lstat(os.path.join(root, f)).st_size
    return total


def worker_ports(procs: dict[str, int], api_port: int) -> dict[int, str]:
    """client port -> worker label, from each worker's accepted API sockets."""
    import psutil

    out: dict[int, str] = {}
    for label, pid in procs.items():
        if not label.startswith("worker-"):
            continue
        with contextlib.suppress(psutil.Error):
            for c in psutil.Process(pid).net_connections(kind="tcp"):
                if c.laddr and c.laddr.port == api_port and c.raddr:
                    out[c.raddr.port] = label
    return out


def parse_log_time(text: str) -> float | None:
    with contextlib.suppress(ValueError):
        return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()
    return None


class DaemonLog:
    """The daemon's JSON lines, read incrementally: levels per window, named activities."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.offset = 0
        self.activities: list[dict[str, Any]] = []
        self.events: Counter[str] = Counter()  # warning/error event names, whole run
        self.window: Counter[str] = Counter()

    def read(self) -> None:
        with contextlib.suppress(OSError), self.path.open("rb") as f:
            f.seek(self.offset)
            data = f.read()
        if not data:
            return
        end = data.rfind(b"\n")
        if end < 0:
            return
        self.offset += end + 1
        for raw in data[: end + 1].splitlines():
            line = raw.decode(errors="replace")
            try:
                doc = json.loads(line[line.index("{") :])
            except ValueError:
                continue
            level = str(doc.get("level", ""))
            name = str(doc.get("event", ""))
            if level in ("warning", "error", "critical"):
                self.window[level] += 1
                self.events[f"{level}:{name}"] += 1
            kind = LOG_ACTIVITIES.get(name)
            at = parse_log_time(str(doc.get("timestamp", "")))
            if kind and at is not None:
                ms = doc.get("ms")
                if ms is None and doc.get("seconds") is not None:
                    ms = float(doc["seconds"]) * 1000
                ms = float(ms or 0.0)
                detail = {
                    k: v
                    for k, v in doc.items()
                    if k not in ("event", "level", "timestamp", "pid", "worker")
                }
                self.activities.append(
                    {"kind": kind, "start": at - ms / 1000, "end": at, "detail": detail}
                )

    def take_window(self) -> dict[str, int]:
        out = dict(self.window)
        self.window.clear()
        return out


_PG_LOG_TIME = re.compile(r"^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(?:\.\d+)?) (\w+)")


def server_log_activities(path: Path, since: float) -> list[dict[str, Any]]:
    """Autovacuum/autoanalyze and checkpoints from the server's log (``log_line_prefix``
    begins with the time, ``%m``): each with its end time and elapsed seconds."""
    out: list[dict[str, Any]] = []
    if not path.exists():
        return out
    lines = path.read_text(errors="replace").splitlines()
    current: dict[str, Any] | None = None
    for line in lines:
        m = _PG_LOG_TIME.match(line)
        if m:
            if current is not None:
                out.append(current)
                current = None
            try:
                at = datetime.fromisoformat(m.group(1)).replace(tzinfo=UTC).timestamp()
            except ValueError:
                continue
            if m.group(2) != "UTC" or at < since:
                continue
            av = re.search(r'automatic (vacuum|analyze) of table "([^"]+)"', line)
            if av:
                current = {"kind": f"auto{av.group(1)}", "end": at, "table": av.group(2)}
            elif "checkpoint starting" in line:
                out.append({"kind": "checkpoint_start", "end": at, "detail": line[-80:]})
            elif "checkpoint complete" in line:
                tot = re.search(r"total=([\d.]+) s", line)
                out.append(
                    {
                        "kind": "checkpoint",
                        "end": at,
                        "elapsed_s": float(tot.group(1)) if tot else None,
                    }
                )
        elif current is not None:
            el = re.search(r"elapsed: ([\d.]+) s", line)
            if el:
                current["elapsed_s"] = float(el.group(1))
    if current is not None:
        out.append(current)
    for a in out:
        a["start"] = a["end"] - float(a.get("elapsed_s") or 0.0)
    return out


class ApiClient:
    """A keep-alive HTTP/1.1 client of our own for ``POST /v1/events``: every answer comes with
    the client port of its connection (aiohttp hands the connection back before the caller can
    see it), which tells which worker answered (:func:`worker_ports`)."""

    def __init__(self, host: str, port: int, token: str) -> None:
        self.host, self.port = host, port
        self.head = (
            f"Host: {host}:{port}\r\nAuthorization: Bearer {token}\r\n"
            "Content-Type: application/json\r\n"
        )
        # round robin over the open connections: SO_REUSEPORT spreads them over the workers
        self.idle: deque[tuple[asyncio.StreamReader, asyncio.StreamWriter, int]] = deque()
        self.opened = 0

    async def open(self, n: int) -> None:
        """Open ``n`` connections ahead (more open when more requests overlap)."""
        for _ in range(n):
            reader, writer = await asyncio.open_connection(self.host, self.port)
            self.idle.append((reader, writer, int(writer.get_extra_info("sockname")[1])))
            self.opened += 1

    async def post(self, path: str, doc: dict[str, Any]) -> tuple[int, bytes, int]:
        """(status, body, client port)."""
        body = json.dumps(doc).encode()
        if self.idle:
            reader, writer, port = self.idle.popleft()
        else:
            reader, writer = await asyncio.open_connection(self.host, self.port)
            port = int(writer.get_extra_info("sockname")[1])
            self.opened += 1
        try:
            writer.write(
                f"POST {path} HTTP/1.1\r\n{self.head}Content-Length: {len(body)}\r\n\r\n".encode()
                + body
            )
            head = await reader.readuntil(b"\r\n\r\n")
            lines = head.decode("latin-1").split("\r\n")
            status = int(lines[0].split()[1])
            fields = {
                k.strip().lower(): v.strip()
                for k, _, v in (ln.partition(":") for ln in lines[1:] if ln)
            }
            data = await reader.readexactly(int(fields.get("content-length", "0")))
        except BaseException:
            writer.close()
            raise
        if fields.get("connection", "").lower() == "close":
            writer.close()
        else:
            self.idle.append((reader, writer, port))
        return status, data, port

    async def close(self) -> None:
        for _, writer, _ in self.idle:
            writer.close()
        self.idle.clear()


class Intervals:
    """Activities seen in ``pg_stat_activity`` polls: first seen .. last seen (+ the poll)."""

    def __init__(self, poll_s: float) -> None:
        self.poll_s = poll_s
        self.open: dict[tuple[str, str], dict[str, Any]] = {}
        self.closed: list[dict[str, Any]] = []

    def seen(self, now: float, items: dict[tuple[str, str], dict[str, Any]]) -> None:
        for key, detail in items.items():
            cur = self.open.get(key)
            if cur is None:
                self.open[key] = {"kind": key[0], "start": now, "end": now, "detail": detail}
            else:
                cur["end"] = now
        for key in [k for k in self.open if k not in items]:
            cur = self.open.pop(key)
            cur["end"] += self.poll_s
            self.closed.append(cur)

    def finish(self) -> list[dict[str, Any]]:
        for cur in self.open.values():
            cur["end"] += self.poll_s
            self.closed.append(cur)
        self.open.clear()
        return self.closed


# -- the run ----------------------------------------------------------------------------------


@contextlib.contextmanager
def database(args: argparse.Namespace) -> Any:
    """(url, pgdata or None, server log or None, admin url or None)."""
    if args.keep_pgdata:  # an embedded server whose folder stays (bench_analyze.py reads it)
        import warnings

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # platformdirs: no XDG_RUNTIME_DIR on servers
            import pgserver

            Path(args.keep_pgdata).mkdir(parents=True, exist_ok=False)
            server = pgserver.get_server(args.keep_pgdata, cleanup_mode="stop")
        try:
            yield server.get_uri(), args.keep_pgdata, Path(args.keep_pgdata) / "log", None
        finally:
            with contextlib.suppress(Exception):
                server.cleanup()
        return
    if not args.database_url:
        with e2e.postgres_server(args.pgdata_parent) as (url, folder):
            yield url, folder, Path(folder) / "log", None
        return
    import asyncpg

    name = f"hp_soak_{secrets.token_hex(4)}"

    async def admin(sql: str) -> None:
        conn = await asyncpg.connect(args.database_url)
        try:
            await conn.execute(sql)
        finally:
            await conn.close()

    asyncio.run(admin(f'CREATE DATABASE "{name}"'))
    parts = urlsplit(args.database_url)
    try:
        yield urlunsplit(parts._replace(path=f"/{name}")), None, None, args.database_url
    finally:
        with contextlib.suppress(Exception):
            asyncio.run(admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))


async def run(
    args: argparse.Namespace, db_url: str, pgdata: str | None, pglog: Path | None
) -> dict[str, Any]:
    import aiohttp
    import asyncpg
    import trustme

    info = e2e.machine_info()
    if args.engine_python != sys.executable:
        info["engine_python"] = args.engine_python
        info["engine_git_commit"] = _engine_commit(args.engine_python)
    result: dict[str, Any] = {"benchmark": "soak", "machine": info, "args": vars(args).copy()}
    tmp = Path(tempfile.mkdtemp(prefix="hp-soak-"))
    procs: list[subprocess.Popen[bytes]] = []
    started = time.monotonic()

    def log(msg: str) -> None:
        print(f"[{time.monotonic() - started:7.1f}s] {msg}", flush=True)

    pool = await asyncpg.create_pool(db_url, min_size=1, max_size=4)
    poll_conn = await asyncpg.connect(db_url)
    try:
        result["postgres"] = {
            r["name"]: r["setting"]
            for r in await pool.fetch(
                "SELECT name, setting FROM pg_settings WHERE name = ANY($1)",
                [
                    "server_version",
                    "synchronous_commit",
                    "fsync",
                    "shared_buffers",
                    "autovacuum_naptime",
                    "checkpoint_timeout",
                    "max_wal_size",
                ],
            )
        }
        result["postgres"]["embedded"] = pgdata is not None
        if pgdata is not None:  # our own server: log what could stall it
            for setting in ("log_autovacuum_min_duration = 0", "log_checkpoints = on"):
                await pool.execute(f"ALTER SYSTEM SET {setting}")
            await pool.execute("SELECT pg_reload_conf()")
            result["postgres"]["logging"] = "log_autovacuum_min_duration=0, log_checkpoints=on"
            if args.wal_by_relation:  # the run's WAL stays for pg_waldump
                await pool.execute("ALTER SYSTEM SET wal_keep_size = '8GB'")
                await pool.execute("SELECT pg_reload_conf()")

        # subscribers, one process and one site each
        ca = trustme.CA()
        cert = ca.issue_cert("127.0.0.1", f"*.{e2e.SITE_ZONE}")
        dns_transport, dns_port = await e2e.start_site_dns()
        ca_file, cert_file = tmp / "ca.pem", tmp / "server.pem"
        ca.cert_pem.write_to_path(str(ca_file))
        cert.private_key_and_cert_chain_pem.write_to_path(str(cert_file))
        ports = [e2e.free_port() for _ in range(args.subscribers)]
        bad = args.subscribers - 1  # the last one misbehaves
        subs: list[subprocess.Popen[bytes]] = []
        for i, port in enumerate(ports):
            misbehaves = i == bad
            p = subprocess.Popen(  # noqa: ASYNC220 (setup)
                [
                    sys.executable,
                    __file__,
                    "--subscriber",
                    str(port),
                    str(cert_file),
                    str(tmp / f"sub-{i}.json"),
                    str(args.fail_rate if misbehaves else 0.0),
                    str(args.slow_rate if misbehaves else 0.0),
                    str(args.slow_s),
                    str(1000 + i),
                ],
                stdout=subprocess.DEVNULL,
                stderr=(tmp / f"sub-{i}.log").open("wb"),
            )
            procs.append(p)
            subs.append(p)
        for port, p in zip(ports, subs, strict=True):
            e2e.wait_tcp(port, p)

        env = {
            "HOOKPROOF_DATABASE_URL": db_url,
            "HOOKPROOF_DATA_DIR": str(tmp / "data"),
            "HOOKPROOF_MASTER_KEY": base64.urlsafe_b64encode(secrets.token_bytes(32))
            .decode()
            .rstrip("="),
            "HOOKPROOF_EGRESS_ALLOW": ",".join(f"127.0.0.1:{p}" for p in ports),
            "HOOKPROOF_EGRESS_CA_FILE": str(ca_file),
            "HOOKPROOF_DNS_SERVERS": f"127.0.0.1:{dns_port}",
        }
        probe_dir = tmp / "probe"
        if args.memory_probe:  # bench/soak_probe/sitecustomize.py, in the workers only
            probe_dir.mkdir()
            env.update(
                {
                    "PYTHONPATH": os.pathsep.join(
                        p for p in (str(ROOT / "soak_probe"), os.environ.get("PYTHONPATH", "")) if p
                    ),
                    "HOOKPROOF_SOAK_PROBE_DIR": str(probe_dir),
                    "HOOKPROOF_SOAK_PROBE_EVERY": str(args.probe_every),
                    "HOOKPROOF_SOAK_PROBE_TRACE": str(args.trace_frames),
                    "HOOKPROOF_SOAK_PROBE_SNAPSHOTS": args.snapshots_at,
                    "HOOKPROOF_SOAK_PROBE_TRIM": "1" if args.probe_trim else "0",
                }
            )
        for setting in args.engine_env:
            name, _, value = setting.partition("=")
            env[name] = value
        daemon_log_path = tmp / "daemon.log"
        daemon, base = e2e.start_daemon(
            {**env, "HOOKPROOF_WORKERS": str(args.workers)}, daemon_log_path, args.engine_python
        )
        procs.append(daemon)
        api_port = int(base.rsplit(":", 1)[1])
        # /readyz answers once the first worker is up; the others bind the port after it
        deadline = time.monotonic() + 180
        while b'"workers_ready"' not in daemon_log_path.read_bytes():
            if time.monotonic() > deadline or daemon.poll() is not None:
                raise RuntimeError("the workers never all became ready")
            await asyncio.sleep(0.2)
        tenant = json.loads(
            e2e.run_cli(["tenant", "create", "soak", "--json"], env, args.engine_python)
            .strip()
            .splitlines()[-1]
        )
        tenant_id = tenant["tenantId"]
        for statement in args.setup_sql:  # after the daemon's migrations, before any load
            await pool.execute(statement)
        result["setup_sql"] = args.setup_sql
        log(f"daemon pid {daemon.pid} at {base}; subscribers on {ports} (the last misbehaves)")
        dlog = DaemonLog(daemon_log_path)
        headers = {"Authorization": f"Bearer {tenant['token']}"}
        connector = aiohttp.TCPConnector(limit=256)
        async with aiohttp.ClientSession(headers=headers, connector=connector) as http:
            sids = []
            for i, port in enumerate(ports):
                body: dict[str, Any] = {
                    "endpoint": e2e.site_url(port, i, "soak"),
                    "topics": [TOPIC],
                    "eventVersions": [1],
                    "region": "eu",
                    "signatureAlgorithm": "ed25519",
                    "owner": "bench",
                    "retryPolicy": {
                        "initialDelayS": args.retry_initial_s,
                        "maxDelayS": args.retry_max_s,
                    },
                }
                async with http.post(f"{base}/v1/subscriptions", json=body) as r:
                    if r.status != 201:
                        raise RuntimeError(f"register: {r.status} {await r.text()}")
                    sids.append((await r.json())["id"])
            for sid in sids:
                for _ in range(600):
                    async with http.get(f"{base}/v1/subscriptions/{sid}") as r:
                        if (await r.json())["state"] == "ACTIVE":
                            break
                    await asyncio.sleep(0.1)
                else:
                    raise RuntimeError(f"{sid} never became ACTIVE")
            log(f"{len(sids)} subscriptions ACTIVE; {args.rate} events/s for {args.minutes} min")

            # -- the load and what watches it ---------------------------------------------
            run_id = secrets.token_hex(3)
            api = ApiClient("127.0.0.1", api_port, tenant["token"])
            await api.open(args.connections)
            n_events = int(args.rate * args.minutes * 60)
            reqs: list[tuple[float, float, int, int]] = []  # (t, ms, status, client port)
            client_errors: list[tuple[float, str]] = []
            posted: list[str] = []
            wrong_fanout = 0
            port_worker: dict[int, str] = {}
            lag_by_s: dict[int, float] = {}
            polls = Intervals(args.poll_s)
            catalogue_moves: list[tuple[float, int]] = []
            samples: list[dict[str, Any]] = []
            stop_watch = asyncio.Event()
            load_done = asyncio.Event()
            lsn0 = await pool.fetchval("SELECT pg_current_wal_lsn()::text")
            epoch0 = time.time()
            pc0 = time.perf_counter()

            def rel(epoch: float) -> float:
                return epoch - epoch0

            async def post(i: int) -> None:
                nonlocal wrong_fanout
                eid = f"{run_id}-{i}"
                doc = e2e.event_doc(eid, TOPIC, i)
                t = time.perf_counter() - pc0
                try:
                    status, text, port = await api.post("/v1/events", doc)
                except (OSError, asyncio.IncompleteReadError, ValueError) as exc:
                    client_errors.append((t, type(exc).__name__))
                    return
                ms = (time.perf_counter() - pc0 - t) * 1000
                reqs.append((t, ms, status, port))
                if status == 202:
                    posted.append(eid)
                    if len(json.loads(text)["deliveries"]) != len(sids):
                        wrong_fanout += 1

            async def loader() -> None:
                tasks = set()
                for i in range(n_events):
                    delay = i / args.rate - (time.perf_counter() - pc0)
                    if delay > 0:
                        await asyncio.sleep(delay)
                    task = asyncio.create_task(post(i))
                    tasks.add(task)
                    task.add_done_callback(tasks.discard)
                while tasks:
                    await asyncio.wait(list(tasks))
                load_done.set()

            async def loop_lag() -> None:
                while not stop_watch.is_set():
                    t = time.perf_counter()
                    await asyncio.sleep(0.01)
                    late = (time.perf_counter() - t - 0.01) * 1000
                    s = int(t - pc0)
                    lag_by_s[s] = max(lag_by_s.get(s, 0.0), late)

            async def fast_poll() -> None:
                last_pos = None
                while not stop_watch.is_set():
                    with contextlib.suppress(Exception):
                        rows = await poll_conn.fetch(POLL_SQL)
                        now = time.time()
                        items: dict[tuple[str, str], dict[str, Any]] = {}
                        for r in rows:
                            kind = r["kind"]
                            if kind == "catalogue_checkpoint":
                                pos = int(r["pos"])
                                if last_pos is not None and pos != last_pos:
                                    catalogue_moves.append((now, pos - last_pos))
                                last_pos = pos
                                continue
                            items[(kind, f"{r['pid']}:{r['started']}")] = {
                                "pid": r["pid"],
                                "query": r["query"],
                            }
                        polls.seen(now, items)
                    try:
                        await asyncio.wait_for(stop_watch.wait(), args.poll_s)
                    except TimeoutError:
                        pass

            async def mapper() -> None:
                while not stop_watch.is_set():
                    with contextlib.suppress(Exception):
                        port_worker.update(
                            await asyncio.to_thread(
                                lambda: worker_ports(engine_processes(daemon.pid), api_port)
                            )
                        )
                    try:
                        await asyncio.wait_for(stop_watch.wait(), 1.0)
                    except TimeoutError:
                        pass

            cpu_groups = {
                "engine": lambda: e2e.engine_pids(daemon.pid),
                "postgres": lambda: e2e.postgres_pids(pgdata) if pgdata else [],
                "subscribers": lambda: [p.pid for p in subs],
                "bench": lambda: [os.getpid()],
            }

            async def sample(phase: str, t_from: float, t_to: float) -> dict[str, Any]:
                cpu = await asyncio.to_thread(meter.stop)
                await asyncio.to_thread(meter.start)
                per = await asyncio.to_thread(
                    lambda: {k: process_sample(v) for k, v in engine_processes(daemon.pid).items()}
                )
                row = await pool.fetchrow(SAMPLE_SQL, OPEN_STATES)
                data_bytes = await asyncio.to_thread(folder_bytes, pgdata) if pgdata else None
                window = [x for x in reqs if t_from <= x[0] < t_to]
                lat = [x[1] for x in window]
                dlog.read()
                s = {
                    "t_s": round(t_to, 1),
                    "phase": phase,
                    "engine": per,
                    "database_bytes": int(row["db_bytes"]),
                    "wal_dir_bytes": int(row["wal_bytes"] or 0),
                    "data_folder_bytes": data_bytes,
                    "backlog": int(row["backlog"]),
                    "deliveries": int(row["deliveries"]),
                    "log_head": int(row["head"] or 0),
                    "api": {
                        "posts": len(lat),
                        "p50_ms": pct(lat, 0.5),
                        "p99_ms": pct(lat, 0.99),
                        "p999_ms": pct(lat, 0.999),
                        "max_ms": round(max(lat), 1) if lat else None,
                        "non_202": sum(1 for x in window if x[2] != 202),
                        "client_errors": sum(1 for e in client_errors if t_from <= e[0] < t_to),
                    },
                    "daemon_log": dlog.take_window(),
                    "cpu_cores": cpu,
                    "loadavg": [round(x, 2) for x in os.getloadavg()],
                }
                samples.append(s)
                workers = {k: v.get("rss_mb") for k, v in per.items()}
                log(
                    f"{phase} t={t_to:6.1f}s api p50 {s['api']['p50_ms']} p99 {s['api']['p99_ms']}"
                    f" max {s['api']['max_ms']} ms ({s['api']['posts']} posts, non-202"
                    f" {s['api']['non_202']}), backlog {s['backlog']}, db"
                    f" {s['database_bytes'] / 2**20:.1f} MiB, rss {workers}, load"
                    f" {s['loadavg'][0]}, other {cpu.get('other')}"
                )
                return s

            meter = e2e.CpuMeter(cpu_groups)
            meter.start()
            watchers = [
                asyncio.create_task(loop_lag()),
                asyncio.create_task(fast_poll()),
                asyncio.create_task(mapper()),
            ]
            loading = asyncio.create_task(loader())
            t_prev = 0.0
            while not load_done.is_set():
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(
                        load_done.wait(),
                        max(0.0, t_prev + args.sample - (time.perf_counter() - pc0)),
                    )
                t_now = time.perf_counter() - pc0
                if load_done.is_set() and t_now - t_prev < 1.0:
                    break
                await sample("load", t_prev, t_now)
                t_prev = t_now
            await loading
            last_send = max((x[0] for x in reqs), default=0.0)
            last_answer = max((x[0] + x[1] / 1000 for x in reqs), default=0.0)
            log(f"load done: {len(posted)} of {n_events} events accepted by the API")

            # -- drain ------------------------------------------------------------------------
            drained_at = None
            deadline = time.perf_counter() + args.drain_limit_s
            next_sample = t_prev + args.sample
            while time.perf_counter() < deadline:
                left = await pool.fetchval(
                    "SELECT count(*) FROM deliveries WHERE tenant_id = $1 AND state = ANY($2)",
                    tenant_id,
                    OPEN_STATES,
                )
                t_now = time.perf_counter() - pc0
                if left == 0:
                    drained_at = t_now
                    break
                if t_now >= next_sample:
                    await sample("drain", t_prev, t_now)
                    t_prev, next_sample = t_now, t_now + args.sample
                await asyncio.sleep(0.25)
            await sample("drained", t_prev, time.perf_counter() - pc0)
            stop_watch.set()
            await asyncio.gather(*watchers)
            await api.close()
            lsn1 = await pool.fetchval("SELECT pg_current_wal_lsn()::text")
            log(
                "drained "
                + (f"{drained_at - last_send:.1f} s after the last POST" if drained_at else "NOT")
            )

            # -- what is on disk, per delivery -----------------------------------------------
            states = {
                r["state"]: int(r["n"])
                for r in await pool.fetch(
                    "SELECT state, count(*) AS n FROM deliveries WHERE tenant_id = $1"
                    " GROUP BY state",
                    tenant_id,
                )
            }
            deliveries = sum(states.values())
            wal = await pool.fetchval(
                "SELECT pg_wal_lsn_diff($1::text::pg_lsn, $2::text::pg_lsn)::float8", lsn1, lsn0
            )
            disk = await bytes_on_disk(pool, deliveries)
            wal_by_relation = None
            if args.wal_by_relation and pgdata:
                names = {
                    int(r["node"]): r["relname"]
                    for r in await pool.fetch(
                        "SELECT pg_relation_filenode(oid) AS node, relname FROM pg_class"
                        " WHERE pg_relation_filenode(oid) IS NOT NULL"
                    )
                }
                wal_by_relation = await asyncio.to_thread(
                    e2e.waldump_by_relation, e2e.pgserver_bin(), pgdata, lsn0, lsn1, names
                )
                wal_by_relation["bytes_per_delivery"] = {
                    rel: round(b / max(1, deliveries), 1)
                    for rel, b in wal_by_relation.get("by_relation", {}).items()
                }
            if pgdata:
                disk["data_folder_bytes"] = await asyncio.to_thread(folder_bytes, pgdata)
                disk["wal_folder_bytes"] = await asyncio.to_thread(
                    folder_bytes, str(Path(pgdata) / "pg_wal")
                )
            per_sub = {
                r["subscription_id"]: int(r["n"])
                for r in await pool.fetch(
                    "SELECT subscription_id, count(*) AS n FROM deliveries WHERE tenant_id = $1"
                    " AND state = 'ENDPOINT_ACCEPTED' GROUP BY subscription_id",
                    tenant_id,
                )
            }
            auto = [
                dict(r)
                for r in await pool.fetch(
                    "SELECT relname, autovacuum_count, autoanalyze_count, vacuum_count,"
                    " last_autovacuum::text, last_autoanalyze::text, n_dead_tup, n_live_tup"
                    " FROM pg_stat_user_tables WHERE autovacuum_count + autoanalyze_count"
                    " + vacuum_count > 0 ORDER BY relname"
                )
            ]

        # -- the subscribers' own counts -------------------------------------------------------
        for p in subs:
            e2e.stop_process(p)
        sub_stats = []
        posted_set = set(posted)
        for i in range(len(ports)):
            doc = json.loads((tmp / f"sub-{i}.json").read_text())
            acc = doc["accepted"]
            missing = [e for e in posted_set if e not in acc]
            dup = {e: n for e, n in acc.items() if n > 1}
            stray = [e for e in acc if e not in posted_set]
            sub_stats.append(
                {
                    "subscriber": i,
                    "misbehaves": i == bad,
                    **doc["counts"],
                    "events_answered_2xx": len(acc),
                    "missing": len(missing),
                    "duplicates": len(dup),
                    "stray": len(stray),
                    "examples": {"missing": missing[:5], "duplicates": list(dup.items())[:5]},
                }
            )

        # -- stop the daemon, then verify with the CLI ------------------------------------------
        t_stop = time.monotonic()
        e2e.stop_process(daemon, timeout=60)
        stop_s = time.monotonic() - t_stop
        dlog.read()
        # the daemon's projector settled at its stop: the catalogue's writes are all in
        await pool.execute("SELECT pg_stat_force_next_flush()")
        await asyncio.sleep(11)  # every backend flushes its table counters within 10 s
        await pool.execute("SELECT pg_stat_clear_snapshot()")
        written = {
            r["relname"]: {
                "inserted": int(r["ins"]),
                "updated": int(r["upd"]),
                "hot_updated": int(r["hot"]),
                "rows_written_per_delivery": round((r["ins"] + r["upd"]) / max(1, deliveries), 3),
                # PostgreSQL 16: updates whose new row version went to another page
                "newpage_updated": None if r["newpage"] is None else int(r["newpage"]),
            }
            for r in await pool.fetch(
                "SELECT relname, n_tup_ins AS ins, n_tup_upd AS upd, n_tup_hot_upd AS hot,"
                + (
                    " n_tup_newpage_upd AS newpage"
                    if await pool.fetchval("SHOW server_version_num") >= "160000"
                    else " NULL::bigint AS newpage"
                )
                + " FROM pg_stat_user_tables WHERE n_tup_ins + n_tup_upd > 0"
                " ORDER BY n_tup_ins + n_tup_upd DESC"
            )
        }
        dns_transport.close()
        checks = {}
        for name, cmd in (
            (
                ("projections_rebuild_verify", ["projections", "rebuild", "--verify"]),
                ("audit_verify", ["audit", "verify"]),
                ("gates", ["gates"]),
            )
            if not args.skip_checks
            else ()
        ):
            t0 = time.monotonic()
            done = subprocess.run(  # noqa: ASYNC221 (after the measurement)
                [args.engine_python, "-m", "hookproof.engine.cli", *cmd],
                env={**os.environ, **env},
                capture_output=True,
                text=True,
                timeout=1800,
                check=False,
            )
            checks[name] = {
                "exit_code": done.returncode,
                "seconds": round(time.monotonic() - t0, 1),
                "output_tail": (done.stdout + done.stderr).strip().splitlines()[-12:],
            }
            log(f"{name}: exit {done.returncode} in {checks[name]['seconds']} s")
    finally:
        for p in reversed(procs):
            e2e.stop_process(p)
        with contextlib.suppress(Exception):
            await poll_conn.close()
        await pool.close()

    # -- the timeline and the per-second view ---------------------------------------------------
    timeline: list[dict[str, Any]] = []
    for a in polls.finish():
        timeline.append({**a, "source": "pg_stat_activity"})
    for a in dlog.activities:
        timeline.append({**a, "source": "daemon log"})
    if pglog is not None:
        for a in server_log_activities(pglog, epoch0 - 5):
            if a["kind"] == "checkpoint_start":
                continue
            timeline.append({**a, "source": "server log"})
    for at, moved in catalogue_moves:
        timeline.append(
            {
                "kind": "catalogue_commit",
                "start": at - args.poll_s,
                "end": at,
                "detail": {"events": moved},
                "source": "checkpoint poll",
            }
        )
    for a in timeline:
        a["start"] = round(rel(a["start"]), 2)
        a["end"] = round(rel(a["end"]), 2)
    timeline.sort(key=lambda a: a["start"])

    timeline += derived_passes(timeline)
    timeline.sort(key=lambda a: a["start"])
    per_second = seconds_view(reqs, port_worker, lag_by_s)
    attribution = attribute(per_second, timeline)
    load_samples = [s for s in samples if s["phase"] == "load"]
    all_lat = [x[1] for x in reqs]
    result.update(
        {
            "load": {
                "events_per_s": args.rate,
                "minutes": args.minutes,
                "events_wanted": n_events,
                "events_accepted": len(posted),
                "subscriptions": len(sids),
                "deliveries": deliveries,
                "events_with_wrong_fanout": wrong_fanout,
                "non_202": sum(1 for x in reqs if x[2] != 202),
                "client_errors": len(client_errors),
                "api_connections_opened": api.opened,
                "loadavg_start": info["loadavg_start"],
                "loadavg_end": list(os.getloadavg()),
                "cpu_other_mean_cores": _mean(
                    [s["cpu_cores"].get("other", 0.0) for s in load_samples]
                ),
                "cpu_machine_busy_mean_cores": _mean(
                    [s["cpu_cores"].get("machine_busy", 0.0) for s in load_samples]
                ),
            },
            "api_latency_ms": {
                "posts": len(all_lat),
                "p50": pct(all_lat, 0.5),
                "p99": pct(all_lat, 0.99),
                "p999": pct(all_lat, 0.999),
                "max": round(max(all_lat), 1) if all_lat else None,
                "over_150_ms": sum(1 for x in all_lat if x > 150),
                "over_50_ms": sum(1 for x in all_lat if x > 50),
                "worst_15s_window_p99": max(
                    (s["api"]["p99_ms"] or 0 for s in load_samples), default=None
                ),
                "by_worker": by_worker(reqs, port_worker),
                "bench_loop_lag_max_ms": round(max(lag_by_s.values(), default=0.0), 1),
            },
            "drain": {
                "drained": drained_at is not None,
                "seconds_after_last_post_sent": (
                    round(drained_at - last_send, 2) if drained_at else None
                ),
                "seconds_after_last_answer": (
                    round(drained_at - last_answer, 2) if drained_at else None
                ),
            },
            "full_set": {
                "delivery_states": states,
                "deliveries_expected": len(posted) * len(sids),
                "accepted_per_subscription": per_sub,
                "subscribers": sub_stats,
                "nothing_lost": (
                    drained_at is not None
                    and deliveries == len(posted) * len(sids)
                    and states.get("ENDPOINT_ACCEPTED", 0) == deliveries
                    and all(s["missing"] == 0 and s["duplicates"] == 0 for s in sub_stats)
                    and len(posted) == n_events
                ),
            },
            "wal": {
                "bytes": wal,
                "kib_per_delivery": round(wal / max(1, deliveries) / 1024, 3),
                "note": "pg_current_wal_lsn from the load's start to the drain's end (the whole "
                "server: with --database-url, other databases' WAL too)",
            },
            "disk": disk,
            "wal_by_relation": wal_by_relation,
            "rows_written": {
                "note": "pg_stat_user_tables since the database was made (set-up included), "
                "read after every backend flushed; proj_stream_catalogue: the catalogue's writes",
                "tables": written,
            },
            "memory": rss_growth(load_samples, args.minutes * 60),
            "checks": checks,
            "daemon": {
                "stop_seconds": round(stop_s, 1),
                "warning_error_events": dict(dlog.events),
            },
            "autovacuum_stats": auto,
            "timeline_counts": dict(Counter(a["kind"] for a in timeline)),
            "attribution": attribution,
            "samples": samples,
            "per_second_columns": [
                "t",
                "posts",
                "p50_ms",
                "p99_ms",
                "max_ms",
                "max_ms_by_worker",
                "bench_loop_lag_ms",
            ],
            "per_second": per_second,
            "timeline": timeline,
        }
    )
    result["targets"] = targets(result)
    if args.memory_probe:
        result["memory_probe"] = {
            f.stem: [json.loads(line) for line in f.read_text().splitlines() if line.strip()]
            for f in sorted(probe_dir.glob("worker-*.jsonl"))
        }
        result["memory_growth_traced"] = snapshot_growth(probe_dir)
    if not args.keep_tmp:
        import shutil

        shutil.rmtree(tmp, ignore_errors=True)
    else:
        result["tmp"] = str(tmp)
    return result


POLL_SQL = """
SELECT 'catalogue_checkpoint' AS kind, NULL::int AS pid, NULL::text AS started,
       global_position::text AS pos, NULL::text AS query
FROM projection_checkpoints WHERE name = 'stream_catalogue'
UNION ALL
SELECT CASE
         WHEN backend_type = 'autovacuum worker' THEN 'autovacuum_worker'
         WHEN backend_type = 'checkpointer' THEN 'checkpointer_writing'
         WHEN query ILIKE 'VACUUM%' THEN 'engine_vacuum'
         WHEN query ILIKE '%proj_stream_catalogue%' THEN 'catalogue_statement'
         WHEN query ILIKE '%''''::bytea AS data%' THEN 'catalogue_statement'
         ELSE 'other'
       END,
       pid, coalesce(query_start, backend_start)::text, NULL, left(query, 100)
FROM pg_stat_activity
WHERE pid <> pg_backend_pid()
  AND ((backend_type = 'autovacuum worker' AND query <> '')
       OR (backend_type = 'checkpointer' AND wait_event IS DISTINCT FROM 'CheckpointerMain')
       OR (backend_type = 'client backend' AND state = 'active'
           AND (query ILIKE 'VACUUM%' OR query ILIKE '%proj_stream_catalogue%'
                OR query ILIKE '%''''::bytea AS data%')))
"""

SAMPLE_SQL = """
SELECT pg_database_size(current_database()) AS db_bytes,
       (SELECT sum(size) FROM pg_ls_waldir()) AS wal_bytes,
       (SELECT count(*) FROM deliveries WHERE state = ANY($1)) AS backlog,
       (SELECT count(*) FROM deliveries) AS deliveries,
       (SELECT max(global_position) FROM events) AS head
"""


async def bytes_on_disk(pool: Any, deliveries: int) -> dict[str, Any]:
    """Per table (heap, TOAST, indexes) and per index: bytes and bytes per delivery."""
    n = max(1, deliveries)
    tables = []
    for r in await pool.fetch(
        "SELECT c.relname, c.relpersistence = 'u' AS unlogged,"
        " pg_total_relation_size(c.oid) AS total, pg_relation_size(c.oid) AS heap,"
        " pg_indexes_size(c.oid) AS indexes, c.reltuples::bigint AS rows_estimate"
        " FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace"
        " WHERE n.nspname = 'public' AND c.relkind = 'r' ORDER BY total DESC"
    ):
        tables.append(
            {
                "table": r["relname"],
                "unlogged": r["unlogged"],
                "total_bytes": int(r["total"]),
                "heap_bytes": int(r["heap"]),
                "toast_and_maps_bytes": int(r["total"] - r["heap"] - r["indexes"]),
                "index_bytes": int(r["indexes"]),
                "rows_estimate": int(r["rows_estimate"]),
                "bytes_per_delivery": round(r["total"] / n, 1),
            }
        )
    indexes = [
        {
            "index": r["idx"],
            "table": r["tab"],
            "bytes": int(r["size"]),
            "bytes_per_delivery": round(r["size"] / n, 1),
        }
        for r in await pool.fetch(
            "SELECT c.relname AS idx, t.relname AS tab, pg_relation_size(c.oid) AS size"
            " FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid"
            " JOIN pg_class t ON t.oid = i.indrelid JOIN pg_namespace n"
            " ON n.oid = t.relnamespace WHERE n.nspname = 'public' ORDER BY size DESC"
        )
    ]
    # what an event row holds, by type: the whole row as stored, and its parts
    by_type = [
        {
            "type": r["type"],
            "rows": int(r["rows"]),
            "rows_per_delivery": round(r["rows"] / n, 3),
            "row_bytes": round(float(r["row_bytes"]), 1),
            "data_bytes": round(float(r["data_bytes"]), 1),
            "metadata_bytes": round(float(r["metadata_bytes"]), 1),
            "stream_id_bytes": round(float(r["stream_id_bytes"]), 1),
        }
        for r in await pool.fetch(
            "SELECT type, count(*) AS rows, avg(pg_column_size(e.*)) AS row_bytes,"
            " avg(pg_column_size(data)) AS data_bytes,"
            " avg(pg_column_size(metadata)) AS metadata_bytes,"
            " avg(pg_column_size(stream_id)) AS stream_id_bytes"
            " FROM events AS e GROUP BY type ORDER BY count(*) DESC"
        )
    ]
    total = sum(t["total_bytes"] for t in tables)
    db = await pool.fetchval("SELECT pg_database_size(current_database())")
    return {
        "deliveries": deliveries,
        "tables_total_bytes": total,
        "tables_bytes_per_delivery": round(total / n, 1),
        "database_bytes": int(db),
        "database_bytes_per_delivery": round(db / n, 1),
        "tables": [t for t in tables if t["total_bytes"] >= 65536],
        "indexes": [i for i in indexes if i["bytes"] >= 65536],
        "events_by_type": by_type,
    }


def seconds_view(
    reqs: list[tuple[float, float, int, int]],
    port_worker: dict[int, str],
    lag_by_s: dict[int, float],
) -> list[list[Any]]:
    by_s: dict[int, list[tuple[float, str]]] = {}
    for t, ms, _status, port in reqs:
        by_s.setdefault(int(t), []).append((ms, port_worker.get(port, "?")))
    out = []
    for s in range(0, max(by_s, default=-1) + 1):
        rows = by_s.get(s, [])
        lat = [ms for ms, _ in rows]
        workers: dict[str, float] = {}
        for ms, w in rows:
            workers[w] = round(max(workers.get(w, 0.0), ms), 1)
        out.append(
            [
                s,
                len(rows),
                pct(lat, 0.5),
                pct(lat, 0.99),
                round(max(lat), 1) if lat else None,
                workers,
                round(lag_by_s.get(s, 0.0), 1),
            ]
        )
    return out


def by_worker(reqs: list[tuple[float, float, int, int]], port_worker: dict[int, str]) -> Any:
    groups: dict[str, list[float]] = {}
    for _t, ms, _status, port in reqs:
        groups.setdefault(port_worker.get(port, "unmapped"), []).append(ms)
    return {
        w: {
            "posts": len(v),
            "p50": pct(v, 0.5),
            "p99": pct(v, 0.99),
            "p999": pct(v, 0.999),
            "max": round(max(v), 1),
            "over_150_ms": sum(1 for x in v if x > 150),
        }
        for w, v in sorted(groups.items())
    }


def derived_passes(timeline: list[dict[str, Any]], gap_s: float = 15.0) -> list[dict[str, Any]]:
    """The catalogue's passes as seen from outside (any engine): its statements in
    ``pg_stat_activity`` and its checkpoint's commits, clustered (a pass is a few pages, one
    transaction each, within seconds); an engine that decodes pages in its own process does
    so between them."""
    acts = sorted(
        (a for a in timeline if a["kind"] in ("catalogue_commit", "catalogue_statement")),
        key=lambda a: a["start"],
    )
    out: list[dict[str, Any]] = []
    for a in acts:
        if out and a["start"] - out[-1]["end"] <= gap_s:
            out[-1]["end"] = max(out[-1]["end"], a["end"])
            out[-1]["detail"]["events"] += (a.get("detail") or {}).get("events", 0)
        else:
            out.append(
                {
                    "kind": "catalogue_pass_polled",
                    "start": a["start"],
                    "end": a["end"],
                    "detail": {"events": (a.get("detail") or {}).get("events", 0)},
                    "source": "derived: catalogue statements and commits",
                }
            )
    return out


def attribute(per_second: list[list[Any]], timeline: list[dict[str, Any]]) -> dict[str, Any]:
    """Which periodic work the slow seconds (slowest POST > ``SLOW_SECOND_MS``) overlap, and
    how much of the run that work covers at all (an activity that covers 30% of the seconds
    overlaps 30% of the slow ones by chance alone). And, per kind of work, the slowest POST
    of each second while it runs (within a second either side) against the other seconds:
    overall, and ``worker-0`` minus the other workers (work that holds one process's event
    loop slows only the requests that process answers; the projector and the ledger vacuum
    run in worker-0, autovacuum and checkpoints are the server's)."""
    seconds = [row for row in per_second if row[1]]
    slow = [row for row in seconds if (row[4] or 0) > SLOW_SECOND_MS]
    kinds = sorted({a["kind"] for a in timeline})

    def near(s: int, kind: str) -> list[dict[str, Any]]:
        return [
            a
            for a in timeline
            if a["kind"] == kind and a["start"] - 1 <= s + 1 and a["end"] + 1 >= s
        ]

    def w0_minus_others(row: list[Any]) -> float | None:
        w = row[5]
        others = [ms for k, ms in w.items() if k != "worker-0"]
        if "worker-0" not in w or not others:
            return None
        return float(w["worker-0"] - max(others))

    def med(values: list[float]) -> float | None:
        return round(statistics.median(values), 1) if values else None

    out: dict[str, Any] = {
        "slow_second_ms": SLOW_SECOND_MS,
        "seconds_with_posts": len(seconds),
        "slow_seconds": len(slow),
        "by_kind": {},
        "slow": [],
    }
    # a stall of one process's event loop slows only the requests that worker answers
    alone: Counter[str] = Counter()
    for row in slow:
        over = [w for w, ms in row[5].items() if ms > SLOW_SECOND_MS]
        calm = [w for w, ms in row[5].items() if ms <= SLOW_SECOND_MS / 2]
        if len(over) == 1 and calm:
            alone[over[0]] += 1
    out["slow_in_one_worker_only"] = dict(alone)
    for kind in kinds:
        inside = [row for row in seconds if near(row[0], kind)]
        outside = [row for row in seconds if not near(row[0], kind)]
        hit = sum(1 for row in inside if (row[4] or 0) > SLOW_SECOND_MS)
        d_in = [d for d in map(w0_minus_others, inside) if d is not None]
        d_out = [d for d in map(w0_minus_others, outside) if d is not None]
        out["by_kind"][kind] = {
            "seconds_overlapping": len(inside),
            "slow_seconds_overlapping": hit,
            "share_of_slow": round(hit / len(slow), 3) if slow else None,
            "share_of_all_seconds": round(len(inside) / len(seconds), 3) if seconds else None,
            "max_ms_median_inside": med([row[4] or 0.0 for row in inside]),
            "max_ms_median_outside": med([row[4] or 0.0 for row in outside]),
            "worker0_minus_others_ms_median_inside": med(d_in),
            "worker0_minus_others_ms_median_outside": med(d_out),
            "seconds_worker0_over_others_by_100ms_inside": sum(1 for d in d_in if d > 100),
        }
    for row in sorted(slow, key=lambda r: -(r[4] or 0))[:40]:
        out["slow"].append(
            {
                "t": row[0],
                "max_ms": row[4],
                "by_worker": row[5],
                "bench_loop_lag_ms": row[6],
                "near": sorted({a["kind"] for k in kinds for a in near(row[0], k)}),
            }
        )
    return out


def snapshot_growth(folder: Path) -> dict[str, Any]:
    """Per worker: tracemalloc's growth from its first snapshot to its last, the 25 biggest
    by traceback and the 15 biggest by file (bench/soak_probe)."""
    import tracemalloc

    out: dict[str, Any] = {}
    by_worker: dict[str, list[tuple[int, Path]]] = {}
    for f in folder.glob("worker-*-*.snapshot"):
        worker, _, age = f.stem.rpartition("-")
        by_worker.setdefault(worker, []).append((int(age), f))
    for worker, snaps in sorted(by_worker.items()):
        if len(snaps) < 2:
            continue
        snaps.sort()
        first = tracemalloc.Snapshot.load(str(snaps[0][1]))
        last = tracemalloc.Snapshot.load(str(snaps[-1][1]))
        out[worker] = {
            "from_age_s": snaps[0][0],
            "to_age_s": snaps[-1][0],
            "traced_from": sum(t.size for t in first.traces),
            "traced_to": sum(t.size for t in last.traces),
            "by_traceback": [
                {
                    "size_diff": st.size_diff,
                    "count_diff": st.count_diff,
                    "size": st.size,
                    "where": [f"{fr.filename}:{fr.lineno}" for fr in st.traceback],
                }
                for st in last.compare_to(first, "traceback")[:25]
            ],
            "by_file": [
                [st.traceback[0].filename, st.size_diff, st.count_diff]
                for st in last.compare_to(first, "filename")[:15]
            ],
        }
    return out


def rss_growth(samples: list[dict[str, Any]], duration_s: float) -> dict[str, Any]:
    """RSS per engine process: at minute 2 (or half the run, if shorter) and at the end of the
    load; growth in percent."""
    if not samples:
        return {}
    mark = min(120.0, duration_s / 2)
    first = min(samples, key=lambda s: abs(s["t_s"] - mark))
    last = samples[-1]
    out: dict[str, Any] = {"from_t_s": first["t_s"], "to_t_s": last["t_s"], "processes": {}}

    def peak(label: str, t_from: float, t_to: float) -> float | None:
        seen = [
            s["engine"][label]["rss_mb"]
            for s in samples
            if t_from < s["t_s"] <= t_to and "rss_mb" in s["engine"].get(label, {})
        ]
        return max(seen) if seen else None

    for label, now in last["engine"].items():
        was = first["engine"].get(label, {})
        if "rss_mb" in now and "rss_mb" in was:
            # the highest sample of the minute before each mark: a saw-tooth (memory given
            # back between samples) cannot flatter or spoil the comparison by its phase
            p0, p1 = peak(label, mark - 60, mark + 7.5), peak(label, last["t_s"] - 60, last["t_s"])
            out["processes"][label] = {
                "rss_mb_from": was["rss_mb"],
                "rss_mb_to": now["rss_mb"],
                "growth_pct": round(100 * (now["rss_mb"] - was["rss_mb"]) / was["rss_mb"], 2),
                "peak_mb_minute_before_from": p0,
                "peak_mb_minute_before_to": p1,
                "peak_growth_pct": round(100 * (p1 - p0) / p0, 2) if p0 and p1 else None,
                "fds_from": was.get("fds"),
                "fds_to": now.get("fds"),
            }
    return out


def targets(r: dict[str, Any]) -> dict[str, Any]:
    lat = r["api_latency_ms"]
    mem = r.get("memory", {}).get("processes", {})
    workers = {k: v["growth_pct"] for k, v in mem.items() if k.startswith("worker-")}
    checks = r["checks"]
    return {
        "p99_every_15s_window_under_50ms": (lat["worst_15s_window_p99"] or 0) < 50,
        "worst_15s_window_p99_ms": lat["worst_15s_window_p99"],
        "p999_under_150ms": (lat["p999"] or 0) < 150,
        "p999_ms": lat["p999"],
        "worker_rss_growth_under_5pct": bool(workers) and all(v < 5 for v in workers.values()),
        "worker_rss_growth_pct": workers,
        "worker_rss_peak_growth_pct": {
            k: v.get("peak_growth_pct") for k, v in mem.items() if k.startswith("worker-")
        },
        "nothing_lost": r["full_set"]["nothing_lost"],
        "verify_audit_gates_pass": bool(checks)
        and all(c["exit_code"] == 0 for c in checks.values()),
    }


def _mean(values: list[float]) -> float | None:
    return round(sum(values) / len(values), 3) if values else None


def _engine_commit(python: str) -> str | None:
    with contextlib.suppress(Exception):
        src = subprocess.run(
            [
                python,
                "-c",
                "import hookproof.engine, os; print(os.path.dirname(hookproof.engine.__file__))",
            ],
            capture_output=True,
            text=True,
            timeout=30,
            check=True,
        ).stdout.strip()
        return subprocess.run(
            ["git", "-C", src, "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            timeout=5,
            check=True,
        ).stdout.strip()
    return None


def main() -> None:
    if len(sys.argv) > 2 and sys.argv[1] == "--reanalyse":
        # a saved result's timeline and seconds attributed again (this version's analysis)
        path = Path(sys.argv[2])
        saved = json.loads(path.read_text())
        timeline = [a for a in saved["timeline"] if a["kind"] != "catalogue_pass_polled"]
        timeline += derived_passes(timeline)
        timeline.sort(key=lambda a: a["start"])
        saved["timeline"] = timeline
        saved["timeline_counts"] = dict(Counter(a["kind"] for a in timeline))
        saved["attribution"] = attribute(saved["per_second"], timeline)
        path.write_text(json.dumps(saved, indent=1, default=str) + "\n")
        print(json.dumps(saved["attribution"]["by_kind"], indent=1))
        return
    if len(sys.argv) > 1 and sys.argv[1] == "--subscriber":
        a = sys.argv[2:]
        subscriber_main(int(a[0]), a[1], a[2], float(a[3]), float(a[4]), float(a[5]), int(a[6]))
        return
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--minutes", type=float, default=10.0, help="minutes of load (10)")
    ap.add_argument("--rate", type=float, default=40.0, help="events/s, single POSTs (40)")
    ap.add_argument("--workers", type=int, default=2, help="hookproof serve --workers N (2)")
    ap.add_argument("--subscribers", type=int, default=5, help="subscriptions, one site each (5)")
    ap.add_argument("--fail-rate", type=float, default=0.2, help="the last subscriber's 500s")
    ap.add_argument("--slow-rate", type=float, default=0.05, help="its share of slow answers")
    ap.add_argument("--slow-s", type=float, default=2.0, help="how slow (seconds)")
    ap.add_argument("--retry-initial-s", type=float, default=1.0, help="retryPolicy.initialDelayS")
    ap.add_argument("--retry-max-s", type=float, default=30.0, help="retryPolicy.maxDelayS")
    ap.add_argument(
        "--connections", type=int, default=8, help="API connections opened ahead, used in turn"
    )
    ap.add_argument("--sample", type=float, default=15.0, help="seconds between samples (15)")
    ap.add_argument("--poll-s", type=float, default=0.25, help="pg_stat_activity poll (0.25)")
    ap.add_argument("--drain-limit-s", type=float, default=600.0)
    ap.add_argument(
        "--database-url",
        default=None,
        help="an admin URL: a fresh database is made on that server (default: embedded)",
    )
    ap.add_argument("--pgdata-parent", default=None)
    ap.add_argument(
        "--keep-pgdata",
        default=None,
        metavar="DIR",
        help="the embedded server's folder (new), kept after the run (stopped)",
    )
    ap.add_argument(
        "--engine-python",
        default=sys.executable,
        help="the Python that runs hookproof (another checkout's venv runs its code)",
    )
    ap.add_argument(
        "--memory-probe",
        action="store_true",
        help="the workers write RSS, malloc and gc figures (bench/soak_probe) into the result",
    )
    ap.add_argument("--probe-every", type=float, default=30.0, help="seconds between probes")
    ap.add_argument(
        "--trace-frames", type=int, default=0, help="with --memory-probe: tracemalloc frames (0)"
    )
    ap.add_argument(
        "--probe-trim",
        action="store_true",
        help="with --memory-probe: each probe calls malloc_trim(0) and records the RSS after",
    )
    ap.add_argument(
        "--snapshots-at",
        default="150,450",
        help="with --trace-frames: worker ages (s) at which tracemalloc snapshots are compared",
    )
    ap.add_argument(
        "--engine-env",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="an environment variable for the daemon (e.g. MALLOC_ARENA_MAX=2); repeatable",
    )
    ap.add_argument(
        "--setup-sql",
        action="append",
        default=[],
        metavar="SQL",
        help="a statement run after the migrations, before the load (repeatable)",
    )
    ap.add_argument("--skip-checks", action="store_true", help="no verify/audit/gates (a dev run)")
    ap.add_argument(
        "--wal-by-relation",
        action="store_true",
        help="embedded server: keep the run's WAL and count it by relation (pg_waldump)",
    )
    ap.add_argument("--label", default="", help="a note kept in the result")
    ap.add_argument("--keep-tmp", action="store_true")
    ap.add_argument("--output", default=None)
    args = ap.parse_args()
    out = Path(
        args.output
        or ROOT / "results" / f"s10_soak_{datetime.now(UTC).strftime('%Y%m%dT%H%M%S')}.json"
    )
    with database(args) as (url, pgdata, pglog, _admin):
        result = asyncio.run(run(args, url, pgdata, pglog))
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=1, default=str) + "\n")
    summary = {
        k: result[k] for k in ("load", "api_latency_ms", "drain", "wal", "memory", "targets")
    }
    summary["attribution"] = {k: v for k, v in result["attribution"].items() if k != "slow"}
    summary["checks"] = {k: v["exit_code"] for k, v in result["checks"].items()}
    summary["nothing_lost"] = result["full_set"]["nothing_lost"]
    print(json.dumps(summary, indent=1, default=str))
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
