"""Delivery throughput while a reader polls the read routes at 50 requests/s, with the read routes
on a hot standby (``HOOKPROOF_READ_DATABASE_URL``), on the primary alone, and with no reader
(issue 37; bench/HISTORY.md "Session 9").

Everything local: a primary (pgserver in a temporary folder) and its streaming standby
(``pg_basebackup -R -X stream``, started with the same binaries on its own port and socket
folder); ``hookproof serve`` (all roles, ``--workers`` as serve's default) once without and once
with the read URL; the subscriber sites and the load generator in this process (bench_e2e's
one-process layout). Each phase posts ``--events`` events (10 subscriptions each) with bounded
concurrency and times until every delivery is ENDPOINT_ACCEPTED; the reader (the same tenant, so
its reads chase that tenant's writes: the read-your-writes wait is in the figure) alternates
``GET /v1/deliveries?limit=50`` and ``GET /v1/deliveries/{id}/timeline`` on a fixed schedule.
CPU is counted by the kernel per process group (engine, primary, standby, this process).

    flock /tmp/bench.lock .venv/bin/python bench/bench_standby.py --events 400
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import pwd
import secrets
import shutil
import sys
import tempfile
import time
import urllib.parse
import warnings
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_e2e as e2e

RESULTS = Path(__file__).resolve().parent / "results"
TOPIC = e2e.SMALL_TOPIC


def make_replica(tmp: Path) -> dict[str, Any]:
    """A primary and its streaming hot standby; their URLs, folders and system user."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import pgserver
    primary_dir = Path(tempfile.mkdtemp(prefix="hp-sb-primary-"))
    server = pgserver.get_server(str(primary_dir), cleanup_mode=None)
    url, user = server.get_uri(), server.system_user
    sock = urllib.parse.parse_qs(urllib.parse.urlsplit(url).query)["host"][0]
    parent = Path(tempfile.mkdtemp(prefix="hp-sb-standby-"))
    if user is not None:
        pw = pwd.getpwnam(user)
        os.chown(parent, pw.pw_uid, pw.pw_gid)
    data = parent / "data"
    pgserver.pg_basebackup(
        ["-D", str(data), "-R", "-X", "stream", "-h", sock, "-U", "postgres"],
        user=user,
        timeout=300,
    )
    sbsock = parent / "sock"
    sbsock.mkdir()
    sbsock.chmod(0o777)
    port = e2e.free_port()
    pgserver.pg_ctl(
        [
            "-w",
            "-o",
            '-h ""',
            "-o",
            f"-k {sbsock}",
            "-o",
            f"-p {port}",
            "-l",
            str(parent / "standby.log"),
            "start",
        ],
        pgdata=data,
        user=user,
        timeout=120,
    )
    return {
        "primary_url": url,
        "primary_dir": primary_dir,
        "standby_url": f"postgresql://postgres@/postgres?host={sbsock}&port={port}",
        "standby_dir": data,
        "standby_parent": parent,
        "user": user,
    }


def drop_replica(r: dict[str, Any]) -> None:
    import pgserver

    for pgdata in (r["standby_dir"], r["primary_dir"]):
        with contextlib.suppress(Exception):
            pgserver.pg_ctl(["-w", "-m", "fast", "stop"], pgdata=pgdata, user=r["user"], timeout=60)
    shutil.rmtree(r["standby_parent"], ignore_errors=True)
    shutil.rmtree(r["primary_dir"], ignore_errors=True)


async def standby_counters(url: str) -> dict[str, float]:
    import asyncpg

    conn = await asyncpg.connect(url)
    try:
        row = await conn.fetchrow(
            "SELECT xact_commit, tup_returned, tup_fetched FROM pg_stat_database"
            " WHERE datname = current_database()"
        )
        return {k: float(row[k]) for k in row.keys()}
    finally:
        await conn.close()


class Reader:
    """GETs on a fixed schedule (open loop), alternating the list and a delivery's timeline."""

    def __init__(self, http: Any, base: str, rate: float, pool: Any, tenant_id: str) -> None:
        self.http, self.base, self.rate = http, base, rate
        self.pool, self.tenant_id = pool, tenant_id
        self.done = 0
        self.errors: dict[str, int] = {}
        self.latencies: list[float] = []

    async def one(self, path: str) -> None:
        t0 = time.monotonic()
        try:
            async with self.http.get(self.base + path) as r:
                await r.read()
                if r.status != 200:
                    self.errors[str(r.status)] = self.errors.get(str(r.status), 0) + 1
        except Exception as exc:  # a bench: count it, go on
            self.errors[type(exc).__name__] = self.errors.get(type(exc).__name__, 0) + 1
        self.latencies.append(time.monotonic() - t0)
        self.done += 1

    async def run(self, stop: asyncio.Event) -> None:
        some = await self.pool.fetchval(
            "SELECT delivery_id FROM deliveries WHERE tenant_id = $1 LIMIT 1", self.tenant_id
        )
        tasks: set[asyncio.Task[None]] = set()
        t0 = time.monotonic()
        i = 0
        while not stop.is_set():
            delay = t0 + i / self.rate - time.monotonic()
            if delay > 0:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(stop.wait(), delay)
                if stop.is_set():
                    break
            path = (
                "/v1/deliveries?limit=50"
                if i % 2 == 0 or some is None
                else f"/v1/deliveries/{some}/timeline"
            )
            task = asyncio.create_task(self.one(path))
            tasks.add(task)
            task.add_done_callback(tasks.discard)
            i += 1
        if tasks:
            await asyncio.gather(*tasks)

    def summary(self, wall: float) -> dict[str, Any]:
        lat = sorted(self.latencies)
        return {
            "requests": self.done,
            "per_s": round(self.done / wall, 1) if wall else None,
            "errors": self.errors,
            "p50_ms": round(e2e.pct(lat, 0.5) * 1000, 1) if lat else None,
            "p99_ms": round(e2e.pct(lat, 0.99) * 1000, 1) if lat else None,
        }


async def run_daemon(
    args: argparse.Namespace,
    replica: dict[str, Any],
    tmp: Path,
    ports: list[int],
    env: dict[str, str],
    phases: list[tuple[str, float]],
    out: dict[str, Any],
    tag: str,
) -> None:
    import aiohttp
    import asyncpg

    daemon_env = {**env, "HOOKPROOF_WORKERS": str(args.workers)}
    daemon, base = e2e.start_daemon(daemon_env, tmp / f"daemon-{tag}.log")
    pool = await asyncpg.create_pool(replica["primary_url"], min_size=1, max_size=2)
    try:
        tenant = json.loads(
            e2e.run_cli(["tenant", "create", f"bench-{tag}", "--json"], env)
            .strip()
            .splitlines()[-1]
        )
        headers = {"Authorization": f"Bearer {tenant['token']}"}
        connector = aiohttp.TCPConnector(limit=args.concurrency + 64)
        async with aiohttp.ClientSession(headers=headers, connector=connector) as http:
            sids = []
            for i in range(10):
                body = {
                    "endpoint": e2e.site_url(ports[i % len(ports)], i, f"small-{tag}"),
                    "topics": [TOPIC],
                    "eventVersions": [1],
                    "region": "eu",
                    "signatureAlgorithm": "ed25519",
                    "owner": "bench",
                }
                async with http.post(f"{base}/v1/subscriptions", json=body) as r:
                    if r.status != 201:
                        raise RuntimeError(f"register: {r.status} {await r.text()}")
                    sids.append((await r.json())["id"])
            for sid in sids:
                for _ in range(300):
                    async with http.get(f"{base}/v1/subscriptions/{sid}") as r:
                        if (await r.json())["state"] == "ACTIVE":
                            break
                    await asyncio.sleep(0.1)
            loader = e2e.Loader(http, base, f"{tag}-{secrets.token_hex(3)}")
            warm = await loader.open_loop(50, TOPIC, "warm", args.concurrency)
            await e2e.wait_accepted(pool, warm["ids"], warm["planned"], 120, tenant["tenantId"])
            groups = {
                "engine": lambda: e2e.engine_pids(daemon.pid),
                "primary": lambda: e2e.postgres_pids(str(replica["primary_dir"])),
                "standby": lambda: e2e.postgres_pids(str(replica["standby_dir"])),
                "bench_loadgen": lambda: [os.getpid()],
            }
            for name, rate in phases:
                meter = e2e.CpuMeter(groups)
                sb0 = await standby_counters(replica["standby_url"])
                load0 = os.getloadavg()
                stop = asyncio.Event()
                reader = Reader(http, base, rate, pool, tenant["tenantId"])
                meter.start()
                t0 = time.monotonic()
                reading = asyncio.create_task(reader.run(stop)) if rate > 0 else None
                sent = await loader.open_loop(args.events, TOPIC, name, args.concurrency)
                states = await e2e.wait_accepted(
                    pool, sent["ids"], sent["planned"], 300, tenant["tenantId"]
                )
                wall = time.monotonic() - t0
                stop.set()
                if reading is not None:
                    await reading
                cpu = meter.stop()
                sb1 = await standby_counters(replica["standby_url"])
                n = states.get("ENDPOINT_ACCEPTED", 0)
                out[name] = {
                    "daemon": tag,
                    "reader_per_s_target": rate,
                    "events": args.events,
                    "deliveries": n,
                    "planned": sent["planned"],
                    "wall_s": round(wall, 2),
                    "deliveries_per_s": round(n / wall, 1),
                    "cpu_cores": cpu,
                    "engine_plus_primary_cpu_ms_per_delivery": round(
                        (cpu["engine"] + cpu["primary"]) * wall * 1000 / max(n, 1), 3
                    ),
                    "standby_cpu_ms_per_delivery": round(
                        cpu["standby"] * wall * 1000 / max(n, 1), 3
                    ),
                    "reader": reader.summary(wall) if rate > 0 else None,
                    "standby_counters_delta": {k: sb1[k] - sb0[k] for k in sb1},
                    "loadavg_before": load0,
                    "loadavg_after": os.getloadavg(),
                }
                print(json.dumps({name: out[name]}, default=str), flush=True)
    finally:
        await pool.close()
        e2e.stop_process(daemon)


async def run(args: argparse.Namespace) -> dict[str, Any]:
    import base64

    import trustme

    tmp = Path(tempfile.mkdtemp(prefix="hp-sb-"))
    replica = await asyncio.to_thread(make_replica, tmp)
    result: dict[str, Any] = {
        "benchmark": "standby_reads",
        "machine": e2e.machine_info(),
        "loadavg_start": os.getloadavg(),
        "phases": {},
    }
    runners = []
    try:
        ca = trustme.CA()
        cert = ca.issue_cert("127.0.0.1", f"*.{e2e.SITE_ZONE}")
        dns_transport, dns_port = await e2e.start_site_dns()
        ca_file, cert_file = tmp / "ca.pem", tmp / "server.pem"
        ca.cert_pem.write_to_path(str(ca_file))
        cert.private_key_and_cert_chain_pem.write_to_path(str(cert_file))
        ports = [e2e.free_port() for _ in range(2)]
        counts = [{"deliveries": 0, "challenges": 0} for _ in ports]
        for i, port in enumerate(ports):
            runners.append(await e2e.start_subscriber(port, str(cert_file), counts[i]))
        env = {
            "HOOKPROOF_DATABASE_URL": replica["primary_url"],
            "HOOKPROOF_DATA_DIR": str(tmp / "data"),
            "HOOKPROOF_MASTER_KEY": base64.urlsafe_b64encode(secrets.token_bytes(32))
            .decode()
            .rstrip("="),
            "HOOKPROOF_EGRESS_ALLOW": ",".join(f"127.0.0.1:{p}" for p in ports),
            "HOOKPROOF_EGRESS_CA_FILE": str(ca_file),
            "HOOKPROOF_DNS_SERVERS": f"127.0.0.1:{dns_port}",
        }
        e2e.run_cli(["migrate"], env)
        rate = args.reader_rate
        await run_daemon(
            args, replica, tmp, ports, env,
            [("none_primary_daemon", 0.0), ("reader_on_primary", rate)],
            result["phases"], "primary",
        )  # fmt: skip
        with_standby = {**env, "HOOKPROOF_READ_DATABASE_URL": replica["standby_url"]}
        await run_daemon(
            args, replica, tmp, ports, with_standby,
            [("none_standby_daemon", 0.0), ("reader_on_standby", rate)],
            result["phases"], "standby",
        )  # fmt: skip
        dns_transport.close()
    finally:
        for runner in runners:
            await runner.cleanup()
        await asyncio.to_thread(drop_replica, replica)
        shutil.rmtree(tmp, ignore_errors=True)
    p = result["phases"]
    result["summary"] = {
        "none_deliveries_per_s": [p["none_primary_daemon"]["deliveries_per_s"],
                                  p["none_standby_daemon"]["deliveries_per_s"]],
        "reader_on_primary_deliveries_per_s": p["reader_on_primary"]["deliveries_per_s"],
        "reader_on_standby_deliveries_per_s": p["reader_on_standby"]["deliveries_per_s"],
        "primary_reader_vs_none": round(
            p["reader_on_primary"]["deliveries_per_s"] / p["none_primary_daemon"]["deliveries_per_s"], 3
        ),
        "standby_reader_vs_none": round(
            p["reader_on_standby"]["deliveries_per_s"] / p["none_standby_daemon"]["deliveries_per_s"], 3
        ),
    }  # fmt: skip
    result["loadavg_end"] = os.getloadavg()
    return result


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--events", type=int, default=400, help="events per phase (10 deliveries each)")
    ap.add_argument("--concurrency", type=int, default=16)
    ap.add_argument("--reader-rate", type=float, default=50.0, help="reader GETs per second")
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--output", default=str(RESULTS / "s9_standby_reads.json"))
    args = ap.parse_args()
    result = asyncio.run(run(args))
    result["args"] = vars(args)
    Path(args.output).write_text(json.dumps(result, indent=2, default=str) + "\n")
    print(json.dumps(result["summary"], indent=2))
    print(f"wrote {args.output}")


if __name__ == "__main__":
    main()
