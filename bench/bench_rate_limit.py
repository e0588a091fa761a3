"""Rate-limit accuracy (issue 35, DESIGN.md section 14): two ``hookproof serve`` daemons on one
fresh database deliver to one subscription with ``rateLimit`` ``{"perSecond": --rate, "burst":
--burst}`` for about ``--seconds`` of sending; an HTTPS subscriber in this process (trustme,
loopback, an exact allowance) stamps every arrival on its own clock. Reported: the observed
rate after the burst (target: within 5% of ``perSecond``), the worst excess over ``burst +
perSecond * t`` in any window, the largest count in any one-second window, the load average;
and why a rate falls short: the share of 10 ms samples in which the bucket was full (its refill
being lost because no claim took from it in time), the number of takes (claims that reached
the bucket, from ``pg_stat_user_functions``), and the daemons' CPU per delivery.
``--other N`` (session 11): an unlimited subscription gets N events posted after the whole
limited backlog (the order in which a head-of-line wait would show: every limited row is
older), at its own path or, with ``--other-same-url``, at the limited one's URL; reported: how
fast it was delivered and how far the limited one had got when it was done.
Not a test; nothing is asserted.

    flock /tmp/bench.lock python bench/bench_rate_limit.py [--rate 100] [--burst 10] [--seconds 60]
        [--workers 2] [--other 3000 [--other-same-url]]
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import bisect
import contextlib
import json
import os
import secrets
import ssl
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import aiohttp
import asyncpg
import psutil
import structlog
import trustme
from aiohttp import web

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests.daemon import run_cli, start_daemon

RESULTS = Path(__file__).resolve().parent / "results" / "s11_rate_limit.json"


def _excess(times: list[float], rate: float, burst: int) -> float:
    """max over windows of count - (burst + rate * t) (O(n) per start with a moving end)."""
    worst = float("-inf")
    n = len(times)
    for i in range(n):
        # a window longer than this cannot hold the worst excess once the rate is kept
        for j in range(i, min(n, i + 4 * burst + int(rate) * 2)):
            worst = max(worst, (j - i + 1) - (burst + rate * (times[j] - times[i])))
    return worst


#: the bucket's level now (its refill since the last take, never above burst)
SQL_LEVEL = (
    "SELECT b.tokens + $2::float8 * extract(epoch FROM clock_timestamp() - b.updated_at)"
    " FROM subscription_rate_buckets AS b WHERE b.subscription_id = $1"
)


def _tree_cpu(proc: psutil.Process) -> float:
    """User + system CPU seconds of a process and its children (the daemon's workers)."""
    total = 0.0
    for p in [proc, *proc.children(recursive=True)]:
        with contextlib.suppress(psutil.Error):
            t = p.cpu_times()
            total += t.user + t.system
    return total


def _other_figures(
    limited: list[float], other: list[float], wanted: int, same_url: bool
) -> dict[str, Any]:
    """The unlimited subscription's delivery (``--other``): its rate, its first and last
    arrival after the limited one's first, and the limited one's share delivered by then."""
    if not wanted:
        return {}
    t0 = limited[0] if limited else 0.0
    done = other[-1] if other else 0.0
    span = other[-1] - other[0] if len(other) > 1 else 0.0
    return {
        "other": {
            "events": wanted,
            "same_url": same_url,
            "arrived": len(other),
            "first_s": round(other[0] - t0, 3) if other else None,
            "last_s": round(done - t0, 3) if other else None,
            "rate_per_s": round((len(other) - 1) / span, 1) if span else None,
            "limited_done_when_other_done": round(
                bisect.bisect_right(limited, done) / max(1, len(limited)), 3
            ),
        }
    }


async def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rate", type=float, default=100.0)
    ap.add_argument("--burst", type=int, default=10)
    ap.add_argument("--seconds", type=float, default=60.0)
    ap.add_argument("--workers", type=int, default=1, help="serve --workers per daemon")
    ap.add_argument("--output", type=Path, default=RESULTS)
    ap.add_argument("--other", type=int, default=0, help="events of an unlimited subscription")
    ap.add_argument("--other-same-url", action="store_true", help="at the limited one's URL")
    args = ap.parse_args()
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(40))
    server_url = os.environ.get(
        "HOOKPROOF_TEST_DATABASE_URL", "postgresql://postgres@127.0.0.1:5432/postgres"
    )
    name = "bench_rate_" + secrets.token_hex(4)
    admin = await asyncpg.connect(server_url)
    await admin.execute(f'CREATE DATABASE "{name}"')
    # count the bucket's takes (pg_stat_user_functions: the claims that reached the bucket)
    await admin.execute(f"ALTER DATABASE \"{name}\" SET track_functions = 'pl'")
    db_url = server_url.rsplit("/", 1)[0] + "/" + name
    tmp = Path(tempfile.mkdtemp())
    ca = trustme.CA()
    leaf = ca.issue_cert("127.0.0.1")
    ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    leaf.configure_cert(ctx)
    arrivals: list[float] = []
    other_at: list[float] = []
    all_in = asyncio.Event()
    target = [10**9]
    other_id = [""]

    async def hook(request: web.Request) -> web.Response:
        body = await request.read()
        if b"hookproof.challenge.v1" in body:
            from hookproof_subscriber import build_challenge_response

            return web.Response(
                body=build_challenge_response(body), content_type="application/json"
            )
        if other_id[0] and request.headers.get("Webhook-Subscription") == other_id[0]:
            other_at.append(time.monotonic())
        else:
            arrivals.append(time.monotonic())
        if len(arrivals) >= target[0] and len(other_at) >= args.other:
            all_in.set()
        return web.Response(status=204)

    app = web.Application()
    app.router.add_post("/hook", hook)
    app.router.add_post("/other", hook)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0, ssl_context=ctx)
    await site.start()
    port = runner.addresses[0][1]
    ca_file = tmp / "ca.pem"
    ca.cert_pem.write_to_path(str(ca_file))
    env = {
        "HOOKPROOF_DATABASE_URL": db_url,
        "HOOKPROOF_DATA_DIR": str(tmp),
        "HOOKPROOF_MASTER_KEY": base64.urlsafe_b64encode(b"k" * 32).decode().rstrip("="),
        "HOOKPROOF_EGRESS_ALLOW": f"127.0.0.1:{port}",
        "HOOKPROOF_EGRESS_CA_FILE": str(ca_file),
        "HOOKPROOF_DNS_SERVERS": "127.0.0.1:9",
        "HOOKPROOF_WORKERS": str(args.workers),
        "HOOKPROOF_LOG_LEVEL": "warning",
    }
    load_before = os.getloadavg()
    daemons = []
    out: dict[str, Any] = {}
    try:
        daemons.append(await asyncio.to_thread(start_daemon, env, tmp))
        daemons.append(await asyncio.to_thread(start_daemon, env, tmp))
        created = await asyncio.to_thread(run_cli, ["tenant", "create", "acme", "--json"], env)
        token = json.loads(created.stdout.strip().splitlines()[-1])["token"]
        n_events = int(args.burst + args.rate * args.seconds)
        target[0] = n_events
        async with aiohttp.ClientSession(headers={"Authorization": f"Bearer {token}"}) as http:
            base = daemons[0].base_url
            async with http.post(
                f"{base}/v1/subscriptions",
                json={
                    "endpoint": f"https://127.0.0.1:{port}/hook",
                    "topics": ["t"],
                    "eventVersions": [1],
                    "region": "eu",
                    "signatureAlgorithm": "ed25519",
                    "owner": "bench",
                    "rateLimit": {"perSecond": args.rate, "burst": args.burst},
                },
            ) as r:
                sid = (await r.json())["id"]
            for _ in range(300):
                async with http.get(f"{base}/v1/subscriptions/{sid}") as r:
                    if (await r.json())["state"] == "ACTIVE":
                        break
                await asyncio.sleep(0.1)
            if args.other:
                path = "hook" if args.other_same_url else "other"
                async with http.post(
                    f"{base}/v1/subscriptions",
                    json={
                        "endpoint": f"https://127.0.0.1:{port}/{path}",
                        "topics": ["u"],
                        "eventVersions": [1],
                        "region": "eu",
                        "signatureAlgorithm": "ed25519",
                        "owner": "bench",
                    },
                ) as r:
                    oid = (await r.json())["id"]
                for _ in range(300):
                    async with http.get(f"{base}/v1/subscriptions/{oid}") as r:
                        if (await r.json())["state"] == "ACTIVE":
                            break
                    await asyncio.sleep(0.1)
                other_id[0] = oid
            # the limited backlog first, then the other subscription's events (all younger)
            for topic, count in (("t", n_events), ("u", args.other)):
                for start in range(0, count, 1000):
                    events = [
                        {
                            "eventId": f"e-{topic}-{i}",
                            "topic": topic,
                            "version": "1.0",
                            "aggregateId": f"a-{i}",
                            "aggregateVersion": 1,
                            "occurredAt": "2026-11-30T10:00:00Z",
                            "payload": {"i": i},
                        }
                        for i in range(start, min(count, start + 1000))
                    ]
                    async with http.post(f"{base}/v1/events/batch", json={"events": events}) as r:
                        assert r.status < 300, await r.text()
        # every 10 ms, is the bucket full (refill being lost: no claim took from it in time)?
        probe = await asyncpg.connect(db_url)
        samples = [0, 0]
        procs = [psutil.Process(d.proc.pid) for d in daemons]
        cpu0 = sum(_tree_cpu(p) for p in procs)

        async def watch() -> None:
            while not all_in.is_set():
                level = await probe.fetchval(SQL_LEVEL, sid, args.rate)
                if level is not None:
                    samples[0] += 1
                    samples[1] += level >= args.burst - 1e-9
                await asyncio.sleep(0.01)

        watcher = asyncio.create_task(watch())
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(all_in.wait(), args.seconds * 3 + 60)
        await watcher
        engine_cpu = sum(_tree_cpu(p) for p in procs) - cpu0
        await probe.close()
        times = sorted(arrivals)
        span = times[-1] - times[0] if len(times) > 1 else 0.0
        observed = (len(times) - args.burst) / span if span else 0.0
        per_second = [bisect.bisect_left(times, t + 1.0) - k for k, t in enumerate(times)]
        out = {
            "rate_limit": {"perSecond": args.rate, "burst": args.burst},
            "daemons": 2,
            "workers_per_daemon": args.workers,
            "events": n_events,
            "arrived": len(times),
            "span_s": round(span, 3),
            "observed_rate_after_burst": round(observed, 2),
            "error_vs_perSecond_pct": round(100 * (observed - args.rate) / args.rate, 2),
            "max_in_any_1s_window": max(per_second) if per_second else 0,
            "bound_for_1s": args.burst + args.rate,
            "worst_excess_over_bound": round(_excess(times, args.rate, args.burst), 3),
            "bucket_full_fraction": round(samples[1] / samples[0], 4) if samples[0] else None,
            "bucket_samples": samples[0],
            "engine_cpu_s": round(engine_cpu, 2),
            "engine_cpu_ms_per_delivery": round(1e3 * engine_cpu / len(times), 3)
            if times
            else None,
            **_other_figures(times, sorted(other_at), args.other, args.other_same_url),
            "load_before": load_before,
            "load_after": os.getloadavg(),
            "cores": os.cpu_count(),
        }
    finally:
        for d in daemons:
            await asyncio.to_thread(d.stop)
        if out:  # read once the daemons are gone: a backend reports its counts as it exits
            stats = await asyncpg.connect(db_url)
            out["bucket_takes"] = await stats.fetchval(
                "SELECT coalesce(sum(calls), 0)::bigint FROM pg_stat_user_functions"
                " WHERE funcname = 'hookproof_rate_grant'"
            )
            out["takes_per_delivery"] = round(out["bucket_takes"] / max(1, out["arrived"]), 2)
            await stats.close()
        await runner.cleanup()
        await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        await admin.close()
    args.output.write_text(json.dumps(out, indent=2) + "\n")
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    asyncio.run(main())
