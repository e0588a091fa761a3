"""Broker destinations through the whole engine (issue 34): deliveries/s at 10 destinations
beside a bare publisher of the same library in the same run, and WAL per delivery for a
broker destination beside the same engine's HTTPS figure.

An embedded Postgres (``pgserver``: its WAL is this run's alone), one engine in this process
with its dispatcher worker running, 10 subscriptions of one kind, activated through their
challenge (a broker's read from the destination and answered at ``POST
/v1/challenges/{id}/response``; HTTPS answered by a trustme loopback site). ``--events``
events are ingested (each planned for the 10 subscriptions), then the dispatcher is let go:
the clock and the WAL position run from then until every delivery is ENDPOINT_ACCEPTED
(``dispatch``: claim, admission, signing, the publish and its confirmation, the outcome).
The bare publisher sends the same number of messages to the same 10 destinations, pipelined
(256 in flight), each awaiting its own confirmation (aio-pika confirm mode + mandatory;
nats-py ``js.publish`` with ``Nats-Msg-Id``). Not a test; the machine's load is recorded.

    flock /tmp/bench.lock python bench/bench_broker_engine.py [--events 300]

Session 10 added what explains the figures: the engine process's CPU per delivery over the
dispatch phase, ``pg_stat_wal`` (records, full-page images, bytes), ``pg_waldump --stats``
by resource manager, the outcome events' sizes by type, ``--drop-log-indexes`` (the
delivery log's secondary indexes, migration 1000, dropped before the phase, to attribute the
WAL they cost) and ``--profile`` (cProfile over the dispatch phase, the top functions to a file).

Session 13 added issue 35's variants through the whole engine (``--kinds
https,https-mtls,https-oauth2,https-proxy``): every HTTPS kind now has ten origins (one port
per subscription, the end-to-end bench's 10-site peak); ``https-mtls`` gives each subscription
its own client certificate and the site requires one; ``https-oauth2`` gives each its own client
credentials against the site's ``/token`` (the site answers 401 without the bearer token, so an
accepted delivery carried it); ``https-proxy`` sends through Debian's tinyproxy
(``HOOKPROOF_EGRESS_PROXY``), whose CPU is counted as ``proxy``.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import contextlib
import cProfile
import io
import json
import multiprocessing
import os
import pstats
import re
import resource
import secrets
import shutil
import ssl
import subprocess
import sys
import tempfile
import time
from collections.abc import Coroutine
from pathlib import Path
from typing import Any, cast

import aio_pika
import msgspec
import nats
import psutil
import trustme
from aiohttp import web

from hookproof.config import Settings
from hookproof.engine.cli.embedded_nats import EmbeddedNats
from hookproof.engine.db.database import connect_pool
from hookproof.engine.observe.logging import configure_logging
from hookproof.engine.runtime.daemon import build_engine
from hookproof.schemas.api import EventIn, SubscriptionCreate
from hookproof_subscriber import build_challenge_response

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_endpoint_auth import _free_port, _wait_port

from tests.daemon import Daemon, start_daemon

RESULTS = Path(__file__).resolve().parent / "results"
AMQP_URL = os.environ.get("HOOKPROOF_TEST_AMQP_URL", "amqp://guest:guest@127.0.0.1:5672/")
DESTINATIONS = 10
WINDOW = 256


#: one fixed master key, so that ``--daemon-workers`` can open the credentials sealed here
MASTER_KEY = base64.urlsafe_b64encode(b"b" * 32).decode().rstrip("=")


def _event(i: int) -> EventIn:
    return msgspec.convert(
        {
            "eventId": f"evt-{i}",
            "topic": "order.created",
            "version": "1.0",
            "aggregateId": f"order-{i % 97}",
            "aggregateVersion": i + 1,
            "occurredAt": "2026-12-01T10:00:00Z",
            "payload": {"amount": i, "currency": "EUR", "lines": [{"sku": "A-1", "qty": 2}]},
        },
        EventIn,
    )


def _sub(**over: Any) -> SubscriptionCreate:
    body: dict[str, Any] = {
        "topics": ["order.created"],
        "eventVersions": [1],
        "region": "bench",
        "signatureAlgorithm": "ed25519",
        "owner": "bench",
    }
    body.update(over)
    return msgspec.convert(body, SubscriptionCreate)


async def _lsn(pool: Any) -> int:
    text = await pool.fetchval("SELECT pg_current_wal_lsn()::text")
    hi, lo = text.split("/")
    return (int(hi, 16) << 32) + int(lo, 16)


def _others(
    postmaster: Any,
    nats_server: EmbeddedNats | None,
    kind: str,
    daemon: Daemon | None,
    proxy: asyncio.subprocess.Process | None = None,
    site: multiprocessing.Process | None = None,
) -> list[Any]:
    """The processes whose CPU the phase also costs: Postgres (the postmaster and every child,
    listed again at the end, since the pool opens backends during the phase), the broker
    (the embedded nats-server, or RabbitMQ's ``beam.smp``), tinyproxy, the HTTPS subscriber and
    ``serve`` with its workers."""
    procs = []
    if site is not None and site.pid is not None:
        procs.append(("site", psutil.Process(site.pid)))
    if proxy is not None:
        procs.append(("proxy", psutil.Process(proxy.pid)))
    if daemon is not None:
        supervisor = psutil.Process(daemon.proc.pid)
        procs += [("engine", supervisor), *(("engine", c) for c in supervisor.children(True))]
    procs += [("postgres", postmaster), *(("postgres", c) for c in postmaster.children(True))]
    if kind == "nats" and nats_server is not None and nats_server.process is not None:
        procs.append(("broker", psutil.Process(nats_server.process.pid)))
    if kind == "amqp":
        procs += [
            ("broker", p) for p in psutil.process_iter(["name"]) if p.info["name"] == "beam.smp"
        ]
    return procs


def _cpu_by_process(procs: list[Any]) -> dict[int, tuple[str, float]]:
    out: dict[int, tuple[str, float]] = {}
    for role, proc in procs:
        with contextlib.suppress(psutil.Error):
            t = proc.cpu_times()
            out[proc.pid] = (role, t.user + t.system)
    return out


def _cpu_spent(
    before: dict[int, tuple[str, float]], after: dict[int, tuple[str, float]]
) -> dict[str, float]:
    """CPU seconds by role between two snapshots (a process new in *after* counts whole)."""
    out: dict[str, float] = {}
    for pid, (role, cpu) in after.items():
        out[role] = out.get(role, 0.0) + cpu - before.get(pid, (role, 0.0))[1]
    return out


def _lsn_text(lsn: int) -> str:
    return f"{lsn >> 32:X}/{lsn & 0xFFFFFFFF:X}"


async def _wal_stats(pool: Any) -> dict[str, int]:
    row = await pool.fetchrow("SELECT wal_records, wal_fpi, wal_bytes::bigint FROM pg_stat_wal")
    ckpt = await pool.fetchval("SELECT checkpoints_timed + checkpoints_req FROM pg_stat_bgwriter")
    return {
        "records": int(row["wal_records"]),
        "fpi": int(row["wal_fpi"]),
        "bytes": int(row["wal_bytes"]),
        "checkpoints": int(ckpt),
    }


def _waldump(pg: Any, lsn0: int, lsn1: int) -> dict[str, Any]:
    """``pg_waldump --stats`` over the phase: records, record bytes and FPI bytes by rmgr."""
    import pgserver

    binary = Path(pgserver.__file__).parent / "pginstall" / "bin" / "pg_waldump"
    wal = Path(pg.pgdata) / "pg_wal"
    proc = subprocess.run(
        [str(binary), "--stats", "-p", str(wal), "-s", _lsn_text(lsn0), "-e", _lsn_text(lsn1)],
        capture_output=True,
        text=True,
        check=False,
    )
    out: dict[str, Any] = {}
    pct = r"\(\s*[\d.]+\)"
    row = re.compile(rf"^(\S+)\s+(\d+)\s+{pct}\s+(\d+)\s+{pct}\s+(\d+)\s+{pct}\s+(\d+)")
    for line in proc.stdout.splitlines():
        m = row.match(line)  # "Heap  N (pct) record_bytes (pct) fpi_bytes (pct) combined"
        if m and int(m.group(2)):
            out[m.group(1)] = {
                "records": int(m.group(2)),
                "record_bytes": int(m.group(3)),
                "fpi_bytes": int(m.group(4)),
                "combined": int(m.group(5)),
            }
    if not out:
        out["error"] = (proc.stderr or proc.stdout)[-300:]
    return out


# the delivery log's secondary indexes since migration 1000 (its keys table; the time order is
# that table's primary key and stays): session 10's four ledger indexes are gone
_LOG_INDEXES = (
    "delivery_log_subscription",
    "delivery_log_topic",
    "delivery_log_event",
    "deliveries_log_rare_state",
)


def _serve_site(
    ports: list[int], cert_pem: bytes, key_pem: bytes, client_ca_pem: bytes | None, oauth2: bool
) -> None:
    """The HTTPS subscriber, in a process of its own (its CPU is not the engine's): one origin
    per port of ``ports``. With ``client_ca_pem`` it requires a client certificate issued by
    that CA; with ``oauth2`` it serves a token at ``/token`` and refuses a delivery without
    ``Authorization: Bearer`` (401)."""
    token = "t" * 40

    async def handle(request: web.Request) -> web.Response:
        body = await request.read()
        if oauth2 and request.path == "/token":
            return web.json_response(
                {"access_token": token, "token_type": "Bearer", "expires_in": 3600}
            )
        if oauth2 and request.headers.get("Authorization") != "Bearer " + token:
            return web.Response(status=401)
        if b'"type":"hookproof.challenge.v1"' in body:
            return web.Response(
                body=build_challenge_response(body), content_type="application/json"
            )
        return web.Response(status=204)

    folder = Path(tempfile.mkdtemp(prefix="hp-bench-site-"))
    (folder / "c.pem").write_bytes(cert_pem)
    (folder / "k.pem").write_bytes(key_pem)
    ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ctx.load_cert_chain(str(folder / "c.pem"), str(folder / "k.pem"))
    if client_ca_pem is not None:
        ctx.verify_mode = ssl.CERT_REQUIRED
        ctx.load_verify_locations(cadata=client_ca_pem.decode())

    async def serve() -> None:
        app = web.Application()
        app.router.add_route("POST", "/{tail:.*}", handle)
        runner = web.AppRunner(app, access_log=None)
        await runner.setup()
        for port in ports:
            await web.TCPSite(runner, "127.0.0.1", port, ssl_context=ctx).start()
        await asyncio.Event().wait()

    asyncio.run(serve())


async def _site(
    ca: trustme.CA, *, origins: int = 1, client_ca: trustme.CA | None = None, oauth2: bool = False
) -> tuple[multiprocessing.Process, list[int]]:
    """``_serve_site`` started in a child process (spawned) on ``origins`` free ports."""
    leaf = ca.issue_cert("127.0.0.1")
    ports = [_free_port() for _ in range(origins)]
    proc = multiprocessing.get_context("spawn").Process(
        target=_serve_site,
        args=(
            ports,
            b"".join(b.bytes() for b in leaf.cert_chain_pems),
            leaf.private_key_pem.bytes(),
            client_ca.cert_pem.bytes() if client_ca is not None else None,
            oauth2,
        ),
        daemon=True,
    )
    proc.start()
    for port in ports:
        await _wait_port(port)
    return proc, ports


def _client_auth(ca: trustme.CA, name: str) -> dict[str, Any]:
    leaf = ca.issue_cert(name)
    return {
        "type": "mtls",
        "certificatePem": "".join(b.bytes().decode() for b in leaf.cert_chain_pems),
        "privateKeyPem": leaf.private_key_pem.bytes().decode(),
    }


async def _tinyproxy(folder: Path) -> tuple[asyncio.subprocess.Process, int]:
    """Debian's tinyproxy on a free loopback port (``HOOKPROOF_EGRESS_PROXY``'s forward proxy)."""
    exe = shutil.which("tinyproxy")
    if exe is None:
        raise SystemExit("https-proxy needs tinyproxy (apt-get install tinyproxy; .ci/run does)")
    port = _free_port()
    conf = folder / "tinyproxy.conf"
    conf.write_text(
        f"Port {port}\nListen 127.0.0.1\nTimeout 30\nLogLevel Warning\n"
        f'LogFile "{folder / "tinyproxy.log"}"\nMaxClients 200\nAllow 127.0.0.1\n'
    )
    proc = await asyncio.create_subprocess_exec(exe, "-d", "-c", str(conf))
    try:
        await _wait_port(port)
    except RuntimeError:
        proc.kill()
        raise
    return proc, port


async def run_engine(
    kind: str,
    events: int,
    folder: Path,
    nats_server: EmbeddedNats | None,
    *,
    drop_log_indexes: bool = False,
    profile: str | None = None,
    daemon_workers: int = 0,
) -> dict[str, Any]:
    import pgserver

    pg = await asyncio.to_thread(
        pgserver.get_server,
        str(folder / f"pg-{kind}"),
        cleanup_mode="delete",  # type: ignore[attr-defined]
    )
    pool = await connect_pool(pg.get_uri())
    ca = trustme.CA()
    ca_file = folder / "ca.pem"
    ca.cert_pem.write_to_path(str(ca_file))
    site: multiprocessing.Process | None = None
    proxy = None
    proxy_url: str | None = None
    pairs: list[tuple[str, int]] = []
    client_ca = trustme.CA()
    if kind.startswith("https"):
        # ten origins, one per subscription (the end-to-end bench's 10-site peak): each has its
        # own pooled connections, handshakes and, with mTLS, client identity
        site, ports = await _site(
            ca,
            origins=DESTINATIONS,
            client_ca=client_ca if kind == "https-mtls" else None,
            oauth2=kind == "https-oauth2",
        )
        pairs += [("127.0.0.1", p) for p in ports]
        if kind == "https-proxy":
            proxy, proxy_port = await _tinyproxy(folder)
            proxy_url = f"http://127.0.0.1:{proxy_port}"
    elif kind == "nats":
        assert nats_server is not None
        pairs.append((nats_server.host, nats_server.port))
    else:
        pairs.append(("127.0.0.1", 5672))
    settings = Settings(
        data_dir=folder / f"data-{kind}",
        egress_allow=tuple(pairs),
        egress_ca_file=str(ca_file),
        dns_servers=(("127.0.0.1", 9),),
        connect_timeout_s=3.0,
        request_timeout_s=10.0,
        master_key_b64=MASTER_KEY,
        egress_proxy=proxy_url,
    )
    engine = await build_engine(settings, pool)
    tenant = (await engine.tenants.create("bench")).tenant_id
    tag = secrets.token_hex(3)
    nc = js = amqp = None
    sids = []
    try:
        if kind == "nats":
            nc = await nats.connect(nats_server.url)  # type: ignore[union-attr]
            js = nc.jetstream()
        if kind == "amqp":
            amqp = await aio_pika.connect(AMQP_URL)
            ch = await amqp.channel()
            queues = []
        for i in range(DESTINATIONS):
            if kind.startswith("https"):
                auth: dict[str, Any] | None = None
                if kind == "https-mtls":
                    auth = _client_auth(client_ca, f"sub{i}.bench")
                elif kind == "https-oauth2":
                    auth = {
                        "type": "oauth2",
                        "tokenUrl": f"https://127.0.0.1:{pairs[i][1]}/token",
                        "clientId": f"client-{i}",
                        "clientSecret": secrets.token_urlsafe(24),
                    }
                body = _sub(endpoint=f"https://127.0.0.1:{pairs[i][1]}/s{i}", auth=auth)
            elif kind == "nats":
                await js.add_stream(name=f"B{tag}{i}", subjects=[f"b{tag}.{i}"])  # type: ignore[union-attr]
                body = _sub(
                    destination={
                        "type": "nats",
                        "url": nats_server.url,
                        "subject": f"b{tag}.{i}",
                        "stream": f"B{tag}{i}",
                    }
                )  # type: ignore[union-attr]
            else:
                ex = await ch.declare_exchange(
                    f"b{tag}{i}", aio_pika.ExchangeType.DIRECT, durable=True
                )
                q = await ch.declare_queue(f"b{tag}{i}.q", durable=True)
                await q.bind(ex, "k")
                queues.append(q)
                body = _sub(
                    destination={
                        "type": "amqp",
                        "url": "amqp://127.0.0.1:5672/%2F",
                        "exchange": f"b{tag}{i}",
                        "routingKey": "k",
                        "credentials": {"username": "guest", "password": "guest"},
                    }
                )
            state, _ = await engine.subscriptions.register(tenant, body, actor="bench")
            out = await engine.services.challenger.run(state.subscription_id, actor="bench")
            if kind == "nats":
                msg = await js.get_last_msg(f"B{tag}{i}", f"b{tag}.{i}")  # type: ignore[union-attr]
                await engine.services.challenger.answer(
                    out["challengeId"], build_challenge_response(msg.data), actor="bench"
                )
            elif kind == "amqp":
                msg = await queues[-1].get(no_ack=True)
                await engine.services.challenger.answer(
                    out["challengeId"], build_challenge_response(msg.body), actor="bench"
                )
            sids.append(state.subscription_id)
        if not daemon_workers:
            for i in range(events):
                await engine.services.ingest.ingest(tenant, _event(i), actor="bench")
        if drop_log_indexes:
            for name in _LOG_INDEXES:
                await pool.execute(f"DROP INDEX IF EXISTS {name}")
        total = events * DESTINATIONS
        stop = asyncio.Event()
        position0 = await pool.fetchval("SELECT max(global_position) FROM events")
        wal0 = await _wal_stats(pool)
        profiler = cProfile.Profile() if profile else None
        postmaster = psutil.Process(
            psutil.Process(await pool.fetchval("SELECT pg_backend_pid()")).ppid()
        )
        daemon = None
        if daemon_workers:
            daemon = await asyncio.to_thread(
                start_daemon,
                {
                    "HOOKPROOF_DATABASE_URL": pg.get_uri(),
                    "HOOKPROOF_DATA_DIR": str(settings.data_dir),
                    "HOOKPROOF_MASTER_KEY": MASTER_KEY,
                    "HOOKPROOF_EGRESS_ALLOW": ",".join(f"{h}:{p}" for h, p in pairs),
                    "HOOKPROOF_EGRESS_CA_FILE": str(ca_file),
                    "HOOKPROOF_DNS_SERVERS": "127.0.0.1:9",
                    "HOOKPROOF_WORKERS": str(daemon_workers),
                    **({"HOOKPROOF_EGRESS_PROXY": proxy_url} if proxy_url else {}),
                },
                folder,
            )
        others0 = _cpu_by_process(_others(postmaster, nats_server, kind, daemon, proxy, site))
        profiler = cProfile.Profile() if profile else None
        ru0 = resource.getrusage(resource.RUSAGE_SELF)
        if profiler is not None:
            profiler.enable()
        lsn0, t0 = await _lsn(pool), time.perf_counter()
        workers = []
        if daemon is not None:
            # one batch, one transaction: the daemon's dispatchers see every delivery at once
            await engine.services.ingest.ingest_batch(
                tenant, [_event(i) for i in range(events)], actor="bench"
            )
        else:
            workers = [
                asyncio.create_task(cast(Coroutine[Any, Any, None], w(stop)))
                for name, w in engine.workers
                if name == "dispatcher"
            ]
        while True:
            n = await pool.fetchval(
                "SELECT count(*) FROM deliveries WHERE state = 'ENDPOINT_ACCEPTED'"
            )
            if n >= total:
                break
            await asyncio.sleep(0.05)
        wall, lsn1 = time.perf_counter() - t0, await _lsn(pool)
        if profiler is not None:
            profiler.disable()
        ru1 = resource.getrusage(resource.RUSAGE_SELF)
        others = _cpu_spent(
            others0, _cpu_by_process(_others(postmaster, nats_server, kind, daemon, proxy, site))
        )
        if daemon is not None:
            await asyncio.to_thread(daemon.stop)
        wal1 = await _wal_stats(pool)
        stop.set()
        for t in workers:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(t, 10)
        cpu = (ru1.ru_utime + ru1.ru_stime) - (ru0.ru_utime + ru0.ru_stime)
        sizes = await pool.fetch(
            "SELECT type, count(*) AS n, avg(octet_length(data))::int AS data,"
            " avg(octet_length(metadata))::int AS metadata FROM events"
            " WHERE global_position > $1 GROUP BY type ORDER BY type",
            position0,
        )
        if profiler is not None:
            text = io.StringIO()
            pstats.Stats(profiler, stream=text).sort_stats("tottime").print_stats(45)
            pstats.Stats(profiler, stream=text).sort_stats("cumulative").print_stats(45)
            await asyncio.to_thread(Path(f"{profile}.{kind}.txt").write_text, text.getvalue())
            profiler.dump_stats(f"{profile}.{kind}.prof")
        # one delivered message as the broker holds it: the bare publisher's second round
        # sends the same headers and body (`bare_same_message`)
        sample: tuple[dict[str, Any], bytes] | None = None
        if kind == "nats":
            got = await js.get_last_msg(f"B{tag}0", f"b{tag}.0")  # type: ignore[union-attr]
            sample = (dict(got.headers or {}), bytes(got.data or b""))
        elif kind == "amqp":
            got = await queues[0].get(no_ack=True)
            sample = (dict(got.headers or {}), bytes(got.body))
        return {
            "_sample": sample,
            "kind": kind,
            "destinations": DESTINATIONS,
            "origins": len(pairs),
            "deliveries": total,
            "wall_s": round(wall, 3),
            "deliveries_per_s": round(total / wall, 1),
            "wal_bytes_per_delivery": round((lsn1 - lsn0) / total, 1),
            "engine_cpu_ms_per_delivery": round(
                (others["engine"] if daemon is not None else cpu) * 1000 / total, 3
            ),
            "harness": f"serve --workers {daemon_workers}" if daemon is not None else "in-process",
            # Postgres's and the broker's CPU over the same phase (psutil): what is left of
            # two cores for the engine
            "cpu_ms_per_delivery_by_process": {
                "engine" if daemon is None else "bench": round(cpu * 1000 / total, 3),
                **{role: round(spent * 1000 / total, 3) for role, spent in others.items()},
            },
            "log_indexes_dropped": drop_log_indexes,
            "pg_stat_wal_per_delivery": {
                k: round((wal1[k] - wal0[k]) / total, 2) for k in ("records", "fpi", "bytes")
            },
            "checkpoints_in_phase": wal1["checkpoints"] - wal0["checkpoints"],
            "waldump_by_rmgr": _waldump(pg, lsn0, lsn1),
            "event_sizes": [dict(r) for r in sizes],
        }
    finally:
        if nc is not None:
            await nc.close()
        if amqp is not None:
            await amqp.close()
        await engine.close()
        await pool.close()
        if site is not None:
            site.terminate()
            await asyncio.to_thread(site.join, 10)
        if proxy is not None:
            proxy.kill()
            await proxy.wait()
        pg.cleanup()


async def bare(
    kind: str,
    n: int,
    nats_server: EmbeddedNats | None,
    sample: tuple[dict[str, Any], bytes] | None = None,
) -> dict[str, Any]:
    """The same library's own confirmed publisher, same count, 10 destinations, pipelined:
    a small body with one header (the issue's baseline) or, given *sample*, the headers and
    body of a message the engine delivered."""
    body = json.dumps({"payload": {"amount": 1, "lines": [{"sku": "A-1"}]}}).encode() * 2
    extra: dict[str, Any] = {}
    if sample is not None:
        extra, body = dict(sample[0]), sample[1]
        extra.pop("Nats-Msg-Id", None)
        # sent again by ``stream=`` below, naming this round's own stream
        extra.pop("Nats-Expected-Stream", None)
    sem = asyncio.Semaphore(WINDOW)
    tag = secrets.token_hex(3)
    if kind == "nats":
        nc = await nats.connect(nats_server.url)  # type: ignore[union-attr]
        js = nc.jetstream()
        for i in range(DESTINATIONS):
            await js.add_stream(name=f"R{tag}{i}", subjects=[f"r{tag}.{i}"])

        async def one(i: int) -> None:
            async with sem:
                await js.publish(
                    f"r{tag}.{i % DESTINATIONS}",
                    body,
                    headers={**extra, "Nats-Msg-Id": f"m{i}"},
                    stream=f"R{tag}{i % DESTINATIONS}" if sample is not None else None,
                )

        t0 = time.perf_counter()
        await asyncio.gather(*(one(i) for i in range(n)))
        wall = time.perf_counter() - t0
        await nc.close()
    else:
        conn = await aio_pika.connect(AMQP_URL)
        ch = await conn.channel(publisher_confirms=True)
        exs = []
        for i in range(DESTINATIONS):
            ex = await ch.declare_exchange(f"r{tag}{i}", aio_pika.ExchangeType.DIRECT, durable=True)
            q = await ch.declare_queue(f"r{tag}{i}.q", durable=True)
            await q.bind(ex, "k")
            exs.append(ex)

        async def one(i: int) -> None:
            async with sem:
                msg = aio_pika.Message(
                    body,
                    headers=extra or None,
                    delivery_mode=aio_pika.DeliveryMode.PERSISTENT,
                    message_id=f"m{i}",
                )
                await exs[i % DESTINATIONS].publish(msg, "k", mandatory=True)

        t0 = time.perf_counter()
        await asyncio.gather(*(one(i) for i in range(n)))
        wall = time.perf_counter() - t0
        for i in range(DESTINATIONS):
            await ch.queue_delete(f"r{tag}{i}.q")
            await ch.exchange_delete(f"r{tag}{i}")
        await conn.close()
    return {
        "messages": n,
        "headers": len(extra)
        + (2 if kind == "nats" and sample is not None else 0)
        + (1 if kind == "nats" and sample is None else 0),
        "body_bytes": len(body),
        "wall_s": round(wall, 3),
        "msgs_per_s": round(n / wall, 1),
    }


def _loadavg() -> list[str]:
    return Path("/proc/loadavg").read_text().split()[:3]


def _write(path: str, doc: dict[str, Any]) -> None:
    Path(path).write_text(json.dumps(doc, indent=2) + "\n")


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--events", type=int, default=300)
    parser.add_argument("--kinds", default="https,nats,amqp")
    parser.add_argument("--output", default=str(RESULTS / "s10_broker_engine.json"))
    parser.add_argument("--drop-log-indexes", action="store_true")
    parser.add_argument("--profile", default=None, help="path prefix for cProfile reports")
    parser.add_argument("--no-bare", action="store_true")
    parser.add_argument(
        "--daemon-workers",
        type=int,
        default=0,
        help="dispatch in `hookproof serve --workers N` (the events ingested as one batch at"
        " the phase's start; WAL then includes the ingest) instead of in this process",
    )
    args = parser.parse_args()
    # the daemon's logging (JSON lines on stderr, as ``serve``), not structlog's development
    # renderer: that costs about 190 us per attempt line, a fifth of the engine's CPU here
    configure_logging()
    folder = Path(tempfile.mkdtemp(prefix="hp-bench-broker-"))
    server = EmbeddedNats(folder / "nats")
    server.start()
    out: dict[str, Any] = {
        "loadavg_before": _loadavg(),
        "cpus": os.cpu_count(),
        "events": args.events,
        "runs": {},
    }
    try:
        for kind in args.kinds.split(","):
            run = await run_engine(
                kind,
                args.events,
                folder,
                server,
                drop_log_indexes=args.drop_log_indexes,
                profile=args.profile,
                daemon_workers=args.daemon_workers,
            )
            sample = run.pop("_sample")
            if not kind.startswith("https") and not args.no_bare:
                run["bare"] = await bare(kind, run["deliveries"], server)
                run["ratio_to_bare"] = round(run["deliveries_per_s"] / run["bare"]["msgs_per_s"], 3)
                same = await bare(kind, run["deliveries"], server, sample)
                run["bare_same_message"] = same
                run["ratio_to_bare_same_message"] = round(
                    run["deliveries_per_s"] / same["msgs_per_s"], 3
                )
            out["runs"][kind] = run
            print(json.dumps(run), flush=True)
    finally:
        server.cleanup()
        shutil.rmtree(folder, ignore_errors=True)
    out["loadavg_after"] = _loadavg()
    _write(args.output, out)


if __name__ == "__main__":
    asyncio.run(main())
