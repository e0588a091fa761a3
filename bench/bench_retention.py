"""Retention under a steady delivery load: the hot log stays bounded, archival keeps up, and
delivery does not slow down while archival runs.

Everything local: an embedded PostgreSQL (``pgserver``, durable commits) in a temporary folder,
one ``hookproof serve`` with ``HOOKPROOF_RETENTION_DAYS`` set to the retention (one minute by
default) so its scheduler archives closed streams every ``--interval`` seconds, one local HTTPS
subscriber process answering 204 (and counting what it receives), and this process posting
events on a fixed schedule (open loop) through ``POST /v1/events``.

For the first ``--retention`` seconds nothing is old enough to archive (the scheduler runs and
finds nothing): that is the baseline. After it every run archives what closed a minute ago.
Every ``--sample`` seconds: rows and bytes of the hot ``events`` table, events archived so far,
deliveries received by the subscriber, queue depth. Archive throughput is the events archived
divided by the time the runs took (from the daemon's ``archive_run_done`` log lines).

    .venv/bin/python bench/bench_retention.py                         # 3 minutes, 40 events/s
    .venv/bin/python bench/bench_retention.py --duration 120 --rate 30

Writes ``bench/results/retention.json``. Not a test: nothing asserts a timing.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import json
import os
import re
import secrets
import signal
import ssl
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT))

import bench_e2e as e2e  # noqa: E402

RESULTS = ROOT / "results" / "retention.json"
TOPIC = "bench.retention"


def subscriber_main(port: int, cert_file: str) -> None:
    """HTTPS subscriber: 204 to deliveries, challenge answers, and ``GET /__stats``."""
    from aiohttp import web

    from hookproof_subscriber import build_challenge_response

    stats: dict[str, Any] = {"deliveries": 0, "latency_ms": []}

    async def handle(request: web.Request) -> web.Response:
        if request.path == "/__stats":
            lat = stats["latency_ms"]
            stats["latency_ms"] = []
            return web.json_response({"deliveries": stats["deliveries"], "latency_ms": lat})
        body = await request.read()
        if b'"type":"hookproof.challenge.v1"' in body:
            return web.Response(
                body=build_challenge_response(body), content_type="application/json"
            )
        stats["deliveries"] += 1
        doc = json.loads(body)
        sent = datetime.fromisoformat(doc["occurredAt"].replace("Z", "+00:00"))
        stats["latency_ms"].append((datetime.now(UTC) - sent).total_seconds() * 1000)
        return web.Response(status=204)

    async def main() -> None:
        ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        ctx.load_cert_chain(cert_file)
        app = web.Application()
        app.router.add_route("*", "/{tail:.*}", handle)
        runner = web.AppRunner(app, access_log=None, handle_signals=False)
        await runner.setup()
        await web.TCPSite(runner, "127.0.0.1", port, ssl_context=ctx, backlog=1024).start()
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, stop.set)
        await stop.wait()
        await runner.cleanup()

    asyncio.run(main())


def pct(values: list[float], q: float) -> float | None:
    if not values:
        return None
    s = sorted(values)
    return round(s[min(len(s) - 1, int(q * len(s)))], 1)


async def run(args: argparse.Namespace) -> dict[str, Any]:
    import aiohttp
    import asyncpg
    import trustme

    result: dict[str, Any] = {
        "benchmark": "retention",
        "machine": e2e.machine_info(),
        "config": vars(args).copy(),
        # archive throttle settings given to the daemon (unset: the Settings defaults)
        "archive_env": {k: v for k, v in os.environ.items() if k.startswith("HOOKPROOF_ARCHIVE")},
    }
    tmp = Path(tempfile.mkdtemp(prefix="hp-ret-"))
    procs: list[subprocess.Popen[bytes]] = []
    t_start = time.monotonic()

    def log(msg: str) -> None:
        print(f"[{time.monotonic() - t_start:6.1f}s] {msg}", flush=True)

    with e2e.postgres_server(None) as (db_url, pgdata):
        try:
            pool = await asyncpg.create_pool(db_url, min_size=1, max_size=3)
            ca = trustme.CA()
            cert = ca.issue_cert("127.0.0.1")
            ca_file, cert_file = tmp / "ca.pem", tmp / "server.pem"
            ca.cert_pem.write_to_path(str(ca_file))
            cert.private_key_and_cert_chain_pem.write_to_path(str(cert_file))
            port = e2e.free_port()
            sub = subprocess.Popen(  # noqa: ASYNC220 (setup, before anything is measured)
                [sys.executable, __file__, "--subscriber", str(port), str(cert_file)],
                stdout=subprocess.DEVNULL,
                stderr=(tmp / "sub.log").open("wb"),
            )
            procs.append(sub)
            e2e.wait_tcp(port, sub)
            env = {
                "HOOKPROOF_DATABASE_URL": db_url,
                "HOOKPROOF_DATA_DIR": str(tmp / "data"),
                "HOOKPROOF_MASTER_KEY": base64.urlsafe_b64encode(secrets.token_bytes(32))
                .decode()
                .rstrip("="),
                "HOOKPROOF_EGRESS_ALLOW": f"127.0.0.1:{port}",
                "HOOKPROOF_EGRESS_CA_FILE": str(ca_file),
                "HOOKPROOF_DNS_SERVERS": "127.0.0.1:9",
                **(
                    {}
                    if args.no_archive
                    else {"HOOKPROOF_RETENTION_DAYS": repr(args.retention / 86400)}
                ),
                "HOOKPROOF_ARCHIVE_INTERVAL": str(args.interval),
                "HOOKPROOF_RECEIPT_WINDOW": "0",
                "HOOKPROOF_REPLAY_WINDOW": "0",
            }
            daemon_log = tmp / "daemon.log"
            daemon, base = e2e.start_daemon(env, daemon_log)
            procs.append(daemon)
            tenant = json.loads(
                e2e.run_cli(["tenant", "create", "bench", "--json"], env).strip().splitlines()[-1]
            )
            ssl_ctx = ssl.create_default_context(cafile=str(ca_file))
            headers = {"Authorization": f"Bearer {tenant['token']}"}
            async with aiohttp.ClientSession(headers=headers) as http:
                sids = []
                for i in range(args.subscriptions):
                    async with http.post(
                        f"{base}/v1/subscriptions",
                        json={
                            "endpoint": f"https://127.0.0.1:{port}/s/{i}",
                            "topics": [TOPIC],
                            "eventVersions": [1],
                            "region": "eu",
                            "signatureAlgorithm": "ed25519",
                            "owner": "bench",
                        },
                    ) as r:
                        assert r.status == 201, await r.text()
                        sids.append((await r.json())["id"])
                for sid in sids:
                    for _ in range(300):
                        async with http.get(f"{base}/v1/subscriptions/{sid}") as r:
                            if (await r.json())["state"] == "ACTIVE":
                                break
                        await asyncio.sleep(0.1)
                log(f"{len(sids)} subscriptions ACTIVE; load {args.rate} events/s x {len(sids)}")

                samples: list[dict[str, Any]] = []
                me = os.getpid()
                meter = e2e.CpuMeter(
                    {
                        "engine": lambda: e2e.engine_pids(daemon.pid),
                        "postgres": lambda: e2e.postgres_pids(pgdata),
                        "subscriber": lambda: [sub.pid],
                        "load": lambda: [me],
                    }
                )
                meter.start()
                run_id = secrets.token_hex(3)
                load_start = time.monotonic()
                stop = asyncio.Event()
                errors = 0

                async def stats() -> dict[str, Any]:
                    async with http.get(f"https://127.0.0.1:{port}/__stats", ssl=ssl_ctx) as r:
                        return dict(await r.json())

                async def sampler() -> None:
                    while not stop.is_set():
                        s = await stats()
                        cpu = meter.stop()
                        meter.start()
                        row = await pool.fetchrow(
                            "SELECT (SELECT count(*) FROM events) AS hot_events,"
                            " pg_total_relation_size('events') AS hot_bytes,"
                            " (SELECT coalesce(sum(events), 0) FROM archive_segments)"
                            "   AS archived_events,"
                            " (SELECT count(*) FROM archive_segments) AS segments,"
                            " (SELECT count(*) FROM deliveries WHERE state IN"
                            "   ('PLANNED','RETRYABLE','DISPATCHING','UNKNOWN_TRANSPORT'))"
                            "   AS queue,"
                            " (SELECT count(*) FROM deliveries) AS ledger_rows,"
                            " pg_total_relation_size('deliveries') AS ledger_bytes"
                        )
                        samples.append(
                            {
                                "t_s": round(time.monotonic() - load_start, 1),
                                **{k: int(v) for k, v in dict(row).items()},
                                "delivered_total": s["deliveries"],
                                "latency_p50_ms": pct(s["latency_ms"], 0.5),
                                "latency_p99_ms": pct(s["latency_ms"], 0.99),
                                "latency_n": len(s["latency_ms"]),
                                "cpu_cores": cpu,
                            }
                        )
                        last = samples[-1]
                        log(
                            f"hot {last['hot_events']:>7} events "
                            f"({last['hot_bytes'] / 2**20:.1f} MiB), archived "
                            f"{last['archived_events']:>7}, delivered {last['delivered_total']:>7}, "
                            f"queue {last['queue']}, p50 {last['latency_p50_ms']} ms, cpu engine "
                            f"{cpu['engine']} pg {cpu['postgres']} busy {cpu['machine_busy']}"
                        )
                        try:
                            await asyncio.wait_for(stop.wait(), args.sample)
                        except TimeoutError:
                            pass

                async def post(first: int) -> None:
                    nonlocal errors
                    docs = [
                        e2e.event_doc(f"{run_id}-{i}", TOPIC, i)
                        for i in range(first, min(first + args.batch, n))
                    ]
                    try:
                        if args.batch == 1:
                            async with http.post(f"{base}/v1/events", json=docs[0]) as r:
                                errors += r.status != 202
                            return
                        async with http.post(f"{base}/v1/events/batch", json={"events": docs}) as r:
                            if r.status != 200:
                                errors += len(docs)
                                return
                            body = await r.json()
                            errors += sum(x["status"] != 202 for x in body["results"])
                    except aiohttp.ClientError:
                        errors += len(docs)

                sampling = asyncio.create_task(sampler())
                tasks = []
                n = int(args.rate * args.duration)
                # open loop: every batch/rate seconds the next ``--batch`` events
                for first in range(0, n, args.batch):
                    delay = load_start + first / args.rate - time.monotonic()
                    if delay > 0:
                        await asyncio.sleep(delay)
                    tasks.append(asyncio.create_task(post(first)))
                await asyncio.gather(*tasks)
                # let the last deliveries land, keep sampling one more interval
                await asyncio.sleep(max(args.sample, 5))
                stop.set()
                await sampling
            final_stats = {"posted": n, "ingest_errors": errors}
        finally:
            for p in reversed(procs):
                e2e.stop_process(p)
            await pool.close()

        # archive runs from the daemon's log
        runs = []
        for line in daemon_log.read_text(errors="replace").splitlines():
            if '"archive_run_done"' not in line:
                continue
            try:
                doc = json.loads(line[line.index("{") :])
            except ValueError:
                continue
            runs.append(
                {
                    k: doc.get(k)
                    for k in ("timestamp", "segments", "events", "removed", "seconds", "steps")
                }
            )
        busy = [r for r in runs if r["events"]]
        archived = sum(r["events"] or 0 for r in runs)
        run_s = sum(r["seconds"] or 0.0 for r in busy)
        # the throttle's pauses are part of a run's seconds, not of its work
        paced_s = sum((r["steps"] or {}).get("paced", 0.0) for r in busy)
        failures = len(re.findall(r"worker_tick_failed.*archiver", daemon_log.read_text()))

    # delivery rate before archiving starts vs while it runs, from the subscriber's counts
    first_archive_t = next((s["t_s"] for s in samples if s["archived_events"] > 0), None)
    warmup = 10.0
    t_before = (warmup, first_archive_t or args.retention)
    t_during = ((first_archive_t or args.retention) + args.sample, float(args.duration))
    before = rate_between(samples, *t_before)
    during = rate_between(samples, *t_during)
    control = None
    if args.control is not None:
        # the same load without archiving: its delivery rate over the very same windows
        # (a saturated machine delivers less as its tables and queue grow, archiving or not)
        c_samples = json.loads(args.control.read_text())["samples"]
        c_before, c_during = rate_between(c_samples, *t_before), rate_between(c_samples, *t_during)
        control = {
            "file": str(args.control),
            "before_per_s": c_before,
            "during_window_per_s": c_during,
            "drop_percent": pct_drop(c_before, c_during),
            "archive_run_vs_control_during_percent": pct_drop(c_during, during),
        }
    offered = args.rate * args.subscriptions
    hot_after = [s["hot_events"] for s in samples if s["t_s"] >= args.retention + 2 * args.interval]
    lat_before = [
        s["latency_p99_ms"]
        for s in samples
        if s["latency_p99_ms"] is not None and warmup <= s["t_s"] < (first_archive_t or 1e9)
    ]
    lat_during = [
        s["latency_p99_ms"]
        for s in samples
        if s["latency_p99_ms"] is not None and s["t_s"] >= (first_archive_t or 1e9)
    ]
    result.update(
        {
            "load": {
                "events_per_s": args.rate,
                "events_per_request": args.batch,
                "subscriptions": args.subscriptions,
                "offered_deliveries_per_s": offered,
                "duration_s": args.duration,
                "retention_s": args.retention,
                "archive_interval_s": args.interval,
                **final_stats,
            },
            "delivery_rate": {
                "before_archiving_per_s": before,
                "while_archiving_per_s": during,
                "drop_percent": pct_drop(before, during),
                "windows_s": {"before": t_before, "during": t_during},
                "first_archive_at_s": first_archive_t,
                "per_minute": [
                    rate_between(samples, t, t + 60.0) for t in range(0, int(args.duration), 60)
                ],
                "control_without_archiving": control,
                "p99_latency_ms_before_max": max(lat_before) if lat_before else None,
                "p99_latency_ms_while_max": max(lat_during) if lat_during else None,
            },
            "archive": {
                "runs": len(runs),
                "runs_that_archived": len(busy),
                "events_archived": archived,
                # segments anchored by runs still going when the load stopped count here too
                "events_in_segments_at_end": samples[-1]["archived_events"] if samples else None,
                "seconds_in_runs": round(run_s, 2),
                "seconds_paced_by_throttle": round(paced_s, 2),
                "throughput_events_per_s": (
                    round(archived / (run_s - paced_s), 1) if run_s > paced_s else None
                ),
                "events_per_s_over_the_archiving_window": (
                    round(archived / (t_during[1] - t_during[0] + args.sample), 1)
                    if t_during[1] > t_during[0]
                    else None
                ),
                "worker_failures": failures,
            },
            "hot_table": {
                "max_events_after_first_retention": max(hot_after) if hot_after else None,
                "last_events": samples[-1]["hot_events"] if samples else None,
                "max_bytes": max(s["hot_bytes"] for s in samples) if samples else None,
                "last_bytes": next(
                    (s["hot_bytes"] for s in reversed(samples) if s["hot_bytes"]), None
                ),
            },
            "cpu_cores": {
                "before": cpu_mean(samples, *t_before),
                "during": cpu_mean(samples, *t_during),
            },
            "samples": samples,
            "runs": runs,
        }
    )
    return result


def rate_between(samples: list[dict[str, Any]], t0: float, t1: float) -> float | None:
    """Deliveries per second the subscriber received between two sample times."""
    window = [s for s in samples if t0 <= s["t_s"] <= t1]
    if len(window) < 2:
        return None
    a, b = window[0], window[-1]
    return round((b["delivered_total"] - a["delivered_total"]) / (b["t_s"] - a["t_s"]), 2)


def pct_drop(base: float | None, value: float | None) -> float | None:
    return round(100 * (base - value) / base, 2) if base and value is not None else None


def cpu_mean(samples: list[dict[str, Any]], t0: float, t1: float) -> dict[str, float]:
    """Mean cores used per process group (and the machine's other load) in a window."""
    rows = [s["cpu_cores"] for s in samples if t0 < s["t_s"] <= t1 and "cpu_cores" in s]
    keys = ("engine", "postgres", "subscriber", "load", "other", "machine_busy")
    return {k: round(sum(r[k] for r in rows) / len(rows), 3) for k in keys} if rows else {}


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--subscriber":
        subscriber_main(int(sys.argv[2]), sys.argv[3])
        return
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rate", type=float, default=40.0, help="events/s posted (paced)")
    p.add_argument("--subscriptions", type=int, default=2, help="deliveries per event")
    p.add_argument(
        "--batch",
        type=int,
        default=1,
        help="events per request: 1 posts each to /v1/events, more use /v1/events/batch",
    )
    p.add_argument("--duration", type=int, default=180, help="seconds of load")
    p.add_argument("--retention", type=float, default=60.0, help="retention in seconds")
    p.add_argument("--interval", type=float, default=5.0, help="archive scheduler interval")
    p.add_argument("--sample", type=float, default=5.0, help="sampling interval")
    p.add_argument(
        "--no-archive",
        action="store_true",
        help="control run: the same load and windows, the daemon archives nothing",
    )
    p.add_argument(
        "--control",
        type=Path,
        default=None,
        help="JSON of a --no-archive run of the same load: compare over the same windows",
    )
    p.add_argument("--out", type=Path, default=RESULTS)
    args = p.parse_args()
    result = asyncio.run(run(args))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    result["config"]["out"] = str(result["config"]["out"])
    result["config"]["control"] = str(args.control) if args.control else None
    args.out.write_text(json.dumps(result, indent=2, default=str) + "\n")
    print(
        json.dumps(
            {k: result[k] for k in ("load", "delivery_rate", "archive", "hot_table")}, indent=2
        )
    )


if __name__ == "__main__":
    main()
