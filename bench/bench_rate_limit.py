"""Rate-limit accuracy (issue 35, DESIGN.md section 14): two ``hookproof serve`` daemons on one
fresh database deliver to one subscription with ``rateLimit`` ``{"perSecond": --rate, "burst":
--burst}`` for about ``--seconds`` of sending; an HTTPS subscriber in this process (trustme,
loopback, an exact allowance) stamps every arrival on its own clock. Reported: the observed
rate after the burst (target: within 5% of ``perSecond``), the worst excess over ``burst +
perSecond * t`` in any window, the largest count in any one-second window, the load average.
Not a test; nothing is asserted.

    flock /tmp/bench.lock python bench/bench_rate_limit.py [--rate 100] [--burst 10] [--seconds 60]
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
import structlog
import trustme
from aiohttp import web

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests.daemon import run_cli, start_daemon

RESULTS = Path(__file__).resolve().parent / "results" / "s9_auth_rate_limit.json"


def _excess(times: list[float], rate: float, burst: int) -> float:
    """max over windows of count - (burst + rate * t) (O(n) per start with a moving end)."""
    worst = float("-inf")
    n = len(times)
    for i in range(n):
        # a window longer than this cannot hold the worst excess once the rate is kept
        for j in range(i, min(n, i + 4 * burst + int(rate) * 2)):
            worst = max(worst, (j - i + 1) - (burst + rate * (times[j] - times[i])))
    return worst


async def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rate", type=float, default=100.0)
    ap.add_argument("--burst", type=int, default=10)
    ap.add_argument("--seconds", type=float, default=60.0)
    ap.add_argument("--workers", type=int, default=1, help="serve --workers per daemon")
    ap.add_argument("--output", type=Path, default=RESULTS)
    args = ap.parse_args()
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(40))
    server_url = os.environ.get(
        "HOOKPROOF_TEST_DATABASE_URL", "postgresql://postgres@127.0.0.1:5432/postgres"
    )
    name = "bench_rate_" + secrets.token_hex(4)
    admin = await asyncpg.connect(server_url)
    await admin.execute(f'CREATE DATABASE "{name}"')
    db_url = server_url.rsplit("/", 1)[0] + "/" + name
    tmp = Path(tempfile.mkdtemp())
    ca = trustme.CA()
    leaf = ca.issue_cert("127.0.0.1")
    ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    leaf.configure_cert(ctx)
    arrivals: list[float] = []
    all_in = asyncio.Event()
    target = [10**9]

    async def hook(request: web.Request) -> web.Response:
        body = await request.read()
        if b"hookproof.challenge.v1" in body:
            from hookproof_subscriber import build_challenge_response

            return web.Response(
                body=build_challenge_response(body), content_type="application/json"
            )
        arrivals.append(time.monotonic())
        if len(arrivals) >= target[0]:
            all_in.set()
        return web.Response(status=204)

    app = web.Application()
    app.router.add_post("/hook", hook)
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
            for start in range(0, n_events, 1000):
                events = [
                    {
                        "eventId": f"e-{i}",
                        "topic": "t",
                        "version": "1.0",
                        "aggregateId": f"a-{i}",
                        "aggregateVersion": 1,
                        "occurredAt": "2026-11-30T10:00:00Z",
                        "payload": {"i": i},
                    }
                    for i in range(start, min(n_events, start + 1000))
                ]
                async with http.post(f"{base}/v1/events/batch", json={"events": events}) as r:
                    assert r.status < 300, await r.text()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(all_in.wait(), args.seconds * 3 + 60)
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
            "load_before": load_before,
            "load_after": os.getloadavg(),
            "cores": os.cpu_count(),
        }
    finally:
        for d in daemons:
            await asyncio.to_thread(d.stop)
        await runner.cleanup()
        await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        await admin.close()
    args.output.write_text(json.dumps(out, indent=2) + "\n")
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    asyncio.run(main())
