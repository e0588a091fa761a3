"""What the relay's Postgres handoff costs per attempt (issue 36, ``hookproof listen``).

Two hubs on two pools stand for two ``serve`` workers: one holds the relay session, the other
claims the attempts; every exchange goes insert + NOTIFY -> take -> (the relay answers at once,
in-process, no WebSocket and no local receiver) -> report + NOTIFY -> close. Measured: wall
time per exchange, one at a time and 16 at once, on a fresh database of the server at
``HOOKPROOF_TEST_DATABASE_URL``. The WebSocket and the receiver add their own time on top; the
HTTPS path has no such handoff. Writes ``bench/results/s9_relay_handoff.json``.

    flock /tmp/bench.lock .venv/bin/python bench/bench_relay_handoff.py [--exchanges 400]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import secrets
import statistics
import time
from pathlib import Path
from typing import Any

import asyncpg

from hookproof.engine.db.migrate import migrate
from hookproof.engine.relay.hub import LocalSession, RelayHub
from hookproof.engine.relay.repository import RelayRepository

OUT = Path(__file__).parent / "results" / "s9_relay_handoff.json"
SID = "sub_" + "b" * 24


def _pct(xs: list[float], p: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(p * len(xs)))]


async def run(server: str, exchanges: int) -> dict[str, Any]:
    name = "bench_relay_" + secrets.token_hex(4)
    admin = await asyncpg.connect(server)
    await admin.execute(f'CREATE DATABASE "{name}"')
    url = server.rsplit("/", 1)[0] + "/" + name
    try:
        holder_pool = await asyncpg.create_pool(url, min_size=2, max_size=8)
        claim_pool = await asyncpg.create_pool(url, min_size=2, max_size=20)
        async with holder_pool.acquire() as conn:
            await migrate(conn)
        holder = RelayHub(RelayRepository(holder_pool), report_timeout_s=30)
        claimer = RelayHub(RelayRepository(claim_pool), report_timeout_s=30)

        pending: set[asyncio.Future[bool]] = set()

        async def send(text: str) -> None:  # the relay answers at once
            frame = json.loads(text)
            report = {
                "type": "report",
                "exchangeId": frame["exchangeId"],
                "deliveryId": frame["deliveryId"],
                "attempt": frame["attempt"],
                "status": 200,
            }
            task = asyncio.ensure_future(holder.report("rs_bench", json.dumps(report)))
            pending.add(task)
            task.add_done_callback(pending.discard)

        async def close(reason: str) -> None:
            pass

        await holder.attach(SID, "ten_bench", LocalSession("rs_bench", SID, send, close))
        body = b'{"payload": "' + b"x" * 1000 + b'"}'

        async def one(i: int) -> float:
            t0 = time.perf_counter()
            result = await claimer.exchange(
                subscription_id=SID,
                delivery_id=f"dlv_{i}",
                attempt=1,
                kind="delivery",
                headers={"Content-Type": "application/json"},
                body=body,
            )
            assert result.status == 200, result
            return time.perf_counter() - t0

        for i in range(20):  # warm-up
            await one(-1 - i)
        serial = [await one(i) for i in range(exchanges)]
        t0 = time.perf_counter()
        sem = asyncio.Semaphore(16)

        async def limited(i: int) -> float:
            async with sem:
                return await one(i)

        concurrent = await asyncio.gather(*(limited(exchanges + i) for i in range(exchanges)))
        concurrent_wall = time.perf_counter() - t0
        await holder.close()
        await claimer.close()
        await holder_pool.close()
        await claim_pool.close()
    finally:
        await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        await admin.close()
    ms = 1000.0
    return {
        "exchanges": exchanges,
        "serial_ms": {
            "p50": round(statistics.median(serial) * ms, 3),
            "p95": round(_pct(serial, 0.95) * ms, 3),
            "max": round(max(serial) * ms, 3),
        },
        "concurrent16_ms": {
            "p50": round(statistics.median(concurrent) * ms, 3),
            "p95": round(_pct(list(concurrent), 0.95) * ms, 3),
        },
        "concurrent16_per_s": round(exchanges / concurrent_wall, 1),
    }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--exchanges", type=int, default=400)
    args = ap.parse_args()
    server = os.environ.get(
        "HOOKPROOF_TEST_DATABASE_URL", "postgresql://postgres@127.0.0.1:5432/postgres"
    )
    load_before = Path("/proc/loadavg").read_text().split()[:3]
    result = asyncio.run(run(server, args.exchanges))
    result["loadavg_before"] = load_before
    result["loadavg_after"] = Path("/proc/loadavg").read_text().split()[:3]
    result["cpus"] = os.cpu_count()
    print(json.dumps(result, indent=2))
    OUT.write_text(json.dumps(result, indent=2) + "\n")


if __name__ == "__main__":
    main()
