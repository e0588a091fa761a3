"""What unauthenticated challenge answers cost another tenant (issue 46, item 6).

A real ``hookproof serve`` (one worker) on a fresh database. Tenant A's subscription gets a
history of ``--history`` events (drift checks, appended through the engine's event store) and
a pending challenge; tenant B's subscription is the victim, read (``GET
/v1/subscriptions/{id}``) every 10 ms from a thread of its own. Reported per history size and
answer rate (open loop): B's read latency (p50, p99) quiet and while ``--answers`` answers name
A's subscription (half guesses of the challenge id, half the pending id with a wrong nonce),
and the server's CPU per answer (user + system from /proc, B's reads included).

Not a test: nothing is asserted. Results: ``bench/results/s15_challenge_answers.json`` (one key
per ``--label``, e.g. ``before``/``after`` a change).

    flock /tmp/bench.lock python bench/bench_challenge_answers.py --label after
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import secrets
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import aiohttp
import asyncpg

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from hookproof.engine.db.migrate import migrate
from hookproof.engine.recording.registry import inline_hooks
from hookproof.events import EventStore, Metadata, StreamAppend
from hookproof.events.subscription_events import DriftDetected
from tests.challenge.test_answer_cost import (
    _cpu_s,
    _env,
    _issue,
    _settled,
    _subscribe,
    _tenant,
    paced_answers,
    probed,
)
from tests.daemon import start_daemon

OUT = Path(__file__).resolve().parent / "results" / "s15_challenge_answers.json"


def _pct(xs: list[float], p: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(p * len(xs)))]


def _ms(xs: list[float]) -> dict[str, float]:
    return {"p50_ms": round(_pct(xs, 0.5) * 1e3, 2), "p99_ms": round(_pct(xs, 0.99) * 1e3, 2)}


async def _case(
    http: aiohttp.ClientSession,
    base: str,
    daemon: Any,
    victim: tuple[str, str],
    target: tuple[str, str],
    *,
    answers: int,
    rate: float,
) -> dict[str, Any]:
    path, victim_token = victim
    sid, cid = target
    port = int(base.rsplit(":", 1)[1])
    quiet = await probed(port, path, victim_token, asyncio.sleep(answers / rate))
    cpu0 = _cpu_s(daemon)
    start = time.perf_counter()
    flooding = asyncio.ensure_future(paced_answers(http, base, sid, cid, answers, rate))
    busy = await probed(port, path, victim_token, flooding)
    wall = time.perf_counter() - start
    cpu = _cpu_s(daemon) - cpu0
    return {
        "rate": rate,
        "victim_quiet": _ms(quiet),
        "victim_busy": _ms(busy),
        "victim_reads": [len(quiet), len(busy)],
        "victim_p50_ratio": round(statistics.median(busy) / statistics.median(quiet), 2),
        "answers_wall_s": round(wall, 2),
        "answer_codes": sorted({f"{s} {c}" for s, c in flooding.result()}),
        "server_cpu_ms_per_answer": round(cpu * 1e3 / answers, 2),
    }


async def run(
    server: str, histories: list[int], rates: list[float], answers: int
) -> dict[str, Any]:
    name = "bench_chl_" + secrets.token_hex(4)
    admin = await asyncpg.connect(server)
    await admin.execute(f'CREATE DATABASE "{name}"')
    url = server.rsplit("/", 1)[0] + "/" + name
    tmp = Path(tempfile.mkdtemp(prefix="bench-chl-"))
    out: dict[str, Any] = {"answers": answers, "cases": []}
    try:
        pool = await asyncpg.create_pool(url, min_size=1, max_size=4)
        async with pool.acquire() as conn:
            await migrate(conn)
        store = EventStore(pool, inline=inline_hooks())
        env = _env(url, tmp)
        daemon = await asyncio.to_thread(start_daemon, env, tmp)
        try:
            a_token, b_token = await _tenant(env, "acme"), await _tenant(env, "globex")
            async with aiohttp.ClientSession() as http:
                base = daemon.base_url
                victim_sid = await _subscribe(http, base, b_token)
                await _settled(pool, victim_sid)
                victim = (f"/v1/subscriptions/{victim_sid}", b_token)
                port = int(base.rsplit(":", 1)[1])
                await probed(port, victim[0], b_token, asyncio.sleep(0.5))  # warm
                for history in histories:
                    sid = await _subscribe(http, base, a_token)
                    version = await _settled(pool, sid)
                    at = datetime.now(UTC).isoformat()
                    for start in range(0, history, 1000):
                        n = min(1000, history - start)
                        drift = [
                            DriftDetected(
                                subscription_id=sid,
                                generation=1,
                                reason="dns_changed",
                                addresses=[],
                                at=at,
                            )
                            for _ in range(n)
                        ]
                        await store.append(
                            [
                                StreamAppend(
                                    f"subscription-{sid}", drift, version, Metadata(actor="bench")
                                )
                            ]
                        )
                        version += n
                    cid, _ = await _issue(store, sid, version, ttl_s=3600)
                    for rate in rates:
                        case = await _case(
                            http, base, daemon, victim, (sid, cid), answers=answers, rate=rate
                        )
                        case["history"] = history
                        print(json.dumps(case))
                        out["cases"].append(case)
        finally:
            await asyncio.to_thread(daemon.stop)
            await pool.close()
    finally:
        await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        await admin.close()
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--label", default="after")
    ap.add_argument("--history", default="0,3000,10000")
    ap.add_argument("--rates", default="50,200")
    ap.add_argument("--answers", type=int, default=200)
    args = ap.parse_args()
    server = os.environ.get(
        "HOOKPROOF_TEST_DATABASE_URL", "postgresql://postgres@127.0.0.1:5432/postgres"
    )
    load_before = Path("/proc/loadavg").read_text().split()[:3]
    histories = [int(h) for h in args.history.split(",")]
    rates = [float(r) for r in args.rates.split(",")]
    result = asyncio.run(run(server, histories, rates, args.answers))
    result["loadavg_before"] = load_before
    result["loadavg_after"] = Path("/proc/loadavg").read_text().split()[:3]
    result["cpus"] = os.cpu_count()
    saved = json.loads(OUT.read_text()) if OUT.exists() else {}
    saved[args.label] = result
    OUT.write_text(json.dumps(saved, indent=2) + "\n")


if __name__ == "__main__":
    main()
