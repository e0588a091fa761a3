"""100,000 idle subscriptions beside 10 busy ones (issue 37; bench/HISTORY.md "Session 9").

One ``hookproof serve`` (one worker) on a Postgres of its own (pgserver, temporary folder), the
subscriber sites and the load generator in this process. Phase ``subs_10``: 10 subscriptions
registered through the API, ``--events`` events posted (10 deliveries each), ingest rate and
delivery rate (until all ENDPOINT_ACCEPTED), engine RSS, kernel CPU per delivery. Then 100,000
idle subscriptions are added (``tests/delivery/idle_subscriptions_seed.sql``: projection rows
copied from a registered one, each with its own id, endpoint and topic; no key, no delivery) and
the same phase runs again (``subs_100k``).

What the seed does not hold: the key ring's share. Every registered subscription has a key
stream (its shared secret), and each worker folds every key into memory
(``engine/keys/ring.py``); ``key_ring_estimate`` measures (tracemalloc) what 100,000 folded
subscription keys take, built from ``key.created`` events as the ring builds them.

    flock /tmp/bench.lock .venv/bin/python bench/bench_idle_subscriptions.py
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import json
import os
import secrets
import shutil
import sys
import tempfile
import time
import tracemalloc
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_e2e as e2e

ROOT = Path(__file__).resolve().parent
SEED = ROOT.parent / "tests" / "delivery" / "idle_subscriptions_seed.sql"
TOPIC = e2e.SMALL_TOPIC


def key_ring_estimate(n: int) -> dict[str, Any]:
    """Bytes that ``n`` folded subscription keys hold (``KeyView`` per key, as the ring's fold)."""
    from hookproof.events.key_events import KeyCreated, KeyState
    from hookproof.projections.key_ring import evolve

    now = datetime.now(UTC)
    events = [
        KeyCreated(
            key_id=f"k_{i:022d}",
            algorithm="hmac-sha256",
            purpose="subscription",
            subscription_id=f"sub_{i:024x}",
            generation=1,
            state=KeyState.ACTIVE,
            max_message_lifetime_s=300,
            created_at=now,
            activated_at=now,
        )
        for i in range(n)
    ]
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    ring = {e.key_id: evolve(None, e, 1) for e in events}
    after = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    t0 = time.process_time()
    from hookproof.engine.keys.machine import active_by_scope, active_in

    for _ in range(10):
        active_in(ring, "engine")
    scan_ms = (time.process_time() - t0) * 100
    t0 = time.process_time()
    active_by_scope(ring)
    index_ms = (time.process_time() - t0) * 1000
    return {
        "keys": len(ring),
        "mb": round((after - before) / 2**20, 1),
        "bytes_per_key": round((after - before) / n),
        "active_in_scan_cpu_ms": round(scan_ms, 2),
        "active_by_scope_index_cpu_ms_once_per_fold": round(index_ms, 2),
    }


async def phase(
    name: str,
    args: argparse.Namespace,
    http: Any,
    base: str,
    pool: Any,
    daemon: Any,
    tenant: str,
    pgdata: str,
) -> dict[str, Any]:
    loader = e2e.Loader(http, base, f"{name}-{secrets.token_hex(3)}")
    meter = e2e.CpuMeter(
        {
            "engine": lambda: e2e.engine_pids(daemon.pid),
            "postgres": lambda: e2e.postgres_pids(pgdata),
        }
    )
    load0 = os.getloadavg()
    meter.start()
    t0 = time.monotonic()
    sent = await loader.open_loop(args.events, TOPIC, name, args.concurrency)
    states = await e2e.wait_accepted(pool, sent["ids"], sent["planned"], 300, tenant)
    wall = time.monotonic() - t0
    cpu = meter.stop()
    n = states.get("ENDPOINT_ACCEPTED", 0)
    import psutil

    rss = sum(psutil.Process(p).memory_info().rss for p in e2e.engine_pids(daemon.pid))
    return {
        "events": args.events,
        "deliveries": n,
        "ingest_events_per_s": round(args.events / sent["ingest_wall_s"], 1),
        "deliveries_per_s": round(n / wall, 1),
        "engine_cpu_ms_per_delivery": round(cpu["engine"] * cpu["wall_s"] * 1000 / max(n, 1), 3),
        "postgres_cpu_ms_per_delivery": round(
            cpu["postgres"] * cpu["wall_s"] * 1000 / max(n, 1), 3
        ),
        "engine_rss_mb": round(rss / 2**20, 1),
        "cpu_cores": cpu,
        "loadavg_before": load0,
        "loadavg_after": os.getloadavg(),
    }


async def run(args: argparse.Namespace) -> dict[str, Any]:
    import aiohttp
    import asyncpg
    import trustme

    result: dict[str, Any] = {"benchmark": "idle_subscriptions", "machine": e2e.machine_info()}
    result["key_ring_estimate"] = key_ring_estimate(args.idle)
    tmp = Path(tempfile.mkdtemp(prefix="hp-idle-"))
    runners = []
    with e2e.postgres_server(None) as (db_url, pgdata):
        try:
            ca = trustme.CA()
            cert = ca.issue_cert("127.0.0.1", f"*.{e2e.SITE_ZONE}")
            dns_transport, dns_port = await e2e.start_site_dns()
            ca_file, cert_file = tmp / "ca.pem", tmp / "server.pem"
            ca.cert_pem.write_to_path(str(ca_file))
            cert.private_key_and_cert_chain_pem.write_to_path(str(cert_file))
            ports = [e2e.free_port() for _ in range(2)]
            for port in ports:
                runners.append(
                    await e2e.start_subscriber(
                        port, str(cert_file), {"deliveries": 0, "challenges": 0}
                    )
                )
            env = {
                "HOOKPROOF_DATABASE_URL": db_url,
                "HOOKPROOF_DATA_DIR": str(tmp / "data"),
                "HOOKPROOF_MASTER_KEY": base64.urlsafe_b64encode(secrets.token_bytes(32))
                .decode()
                .rstrip("="),
                "HOOKPROOF_EGRESS_ALLOW": ",".join(f"127.0.0.1:{p}" for p in ports),
                "HOOKPROOF_EGRESS_CA_FILE": str(ca_file),
                "HOOKPROOF_DNS_SERVERS": f"127.0.0.1:{dns_port}",
                "HOOKPROOF_WORKERS": "1",
            }
            e2e.run_cli(["migrate"], env)
            daemon, base = e2e.start_daemon(env, tmp / "daemon.log")
            pool = await asyncpg.create_pool(db_url, min_size=1, max_size=2)
            tenant = json.loads(
                e2e.run_cli(["tenant", "create", "bench", "--json"], env).strip().splitlines()[-1]
            )
            headers = {"Authorization": f"Bearer {tenant['token']}"}
            async with aiohttp.ClientSession(headers=headers) as http:
                sids = []
                for i in range(10):
                    body = {
                        "endpoint": e2e.site_url(ports[i % 2], i, "small"),
                        "topics": [TOPIC],
                        "eventVersions": [1],
                        "region": "eu",
                        "signatureAlgorithm": "ed25519",
                        "owner": "bench",
                    }
                    async with http.post(f"{base}/v1/subscriptions", json=body) as r:
                        sids.append((await r.json())["id"])
                for sid in sids:
                    for _ in range(300):
                        async with http.get(f"{base}/v1/subscriptions/{sid}") as r:
                            if (await r.json())["state"] == "ACTIVE":
                                break
                        await asyncio.sleep(0.1)
                warm = e2e.Loader(http, base, "warm")
                w = await warm.open_loop(50, TOPIC, "warm", args.concurrency)
                await e2e.wait_accepted(pool, w["ids"], w["planned"], 120, tenant["tenantId"])
                result["subs_10"] = await phase(
                    "subs_10", args, http, base, pool, daemon, tenant["tenantId"], pgdata
                )
                print(json.dumps({"subs_10": result["subs_10"]}), flush=True)
                t0 = time.monotonic()
                await pool.execute(SEED.read_text(), sids[0], args.idle)
                # what autovacuum would do next (inserted rows pass its threshold): done here,
                # so it is not counted as Postgres's CPU of the phase
                await pool.execute("VACUUM (ANALYZE) subscriptions")
                result["seed_s"] = round(time.monotonic() - t0, 1)
                result["subscriptions"] = await pool.fetchval("SELECT count(*) FROM subscriptions")
                result["subs_100k"] = await phase(
                    "subs_100k", args, http, base, pool, daemon, tenant["tenantId"], pgdata
                )
                print(json.dumps({"subs_100k": result["subs_100k"]}), flush=True)
            await pool.close()
            e2e.stop_process(daemon)
            dns_transport.close()
        finally:
            for runner in runners:
                await runner.cleanup()
            shutil.rmtree(tmp, ignore_errors=True)
    a, b = result["subs_10"], result["subs_100k"]
    result["summary"] = {
        "ingest_ratio_100k_vs_10": round(b["ingest_events_per_s"] / a["ingest_events_per_s"], 3),
        "delivery_ratio_100k_vs_10": round(b["deliveries_per_s"] / a["deliveries_per_s"], 3),
        "engine_rss_mb": [a["engine_rss_mb"], b["engine_rss_mb"]],
        "key_ring_mb_at_100k_keys": result["key_ring_estimate"]["mb"],
    }
    return result


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--events", type=int, default=300)
    ap.add_argument("--idle", type=int, default=100_000)
    ap.add_argument("--concurrency", type=int, default=16)
    ap.add_argument("--output", default=str(ROOT / "results" / "s9_100k_idle_subscriptions.json"))
    args = ap.parse_args()
    result = asyncio.run(run(args))
    result["args"] = vars(args)
    Path(args.output).write_text(json.dumps(result, indent=2, default=str) + "\n")
    print(json.dumps(result["summary"], indent=2))


if __name__ == "__main__":
    main()
