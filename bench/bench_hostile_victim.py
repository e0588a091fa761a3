"""A victim tenant's HTTPS delivery latency with and without another tenant's hostile broker
destinations (issue 46; target: p99 within 20% of the calm figure).

One engine in this process with its dispatcher loop running, a trustme HTTPS receiver on
loopback (the victim's endpoint, challenge answered), and per kind (``--kinds amqp,nats``) the
hostile kit's fake broker (``tests/destinations/hostile``): 34 subscriptions of a second
tenant, verified while the broker behaved, then a broker that takes the TCP connection and
never answers the next step (AMQP ``Channel.Open``, NATS ``INFO``). The victim ingests
``--events`` events, one every ``--gap`` seconds; its latency is ingest to arrival at the
receiver (the receiver's clock, same process). ``calm``: nothing else happens. ``hostile``: the
second tenant ingests 10 events (340 attempts) every 2 s during the whole run. ``--rounds``:
that many rounds, each on a fresh engine and database, calm then hostile (the ratio's median
and spread are reported: on a shared machine one round's p99 is mostly its noise). Results to
``bench/results/bench_hostile_victim.json``. Not a test; the machine's load is recorded.

    flock /tmp/bench.lock python bench/bench_hostile_victim.py [--events 60] [--gap 0.05] [--rounds 1]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import ssl
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

import asyncpg
import msgspec
import trustme
from aiohttp import web

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from hookproof.config import Settings
from hookproof.engine.db.database import connect_pool
from hookproof.schemas.api import EventIn, SubscriptionCreate
from tests.delivery.conftest import Subscriber
from tests.destinations.engine_support import started
from tests.destinations.hostile.kinds import KINDS, HostileKind
from tests.destinations.hostile.test_hostile_victim import event, hostile_subscriptions

RESULTS = Path(__file__).resolve().parent / "results"
DB_URL = os.environ.get(
    "HOOKPROOF_TEST_DATABASE_URL", "postgresql://postgres@127.0.0.1:5432/postgres"
)


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


async def _database() -> tuple[str, str]:
    name = f"hookproof_bench_{uuid.uuid4().hex[:10]}"
    admin = await asyncpg.connect(DB_URL)
    try:
        await admin.execute(f'CREATE DATABASE "{name}"')
    finally:
        await admin.close()
    return name, DB_URL.rsplit("/", 1)[0] + "/" + name


async def _drop(name: str) -> None:
    admin = await asyncpg.connect(DB_URL)
    try:
        await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    finally:
        await admin.close()


async def _receiver(ca: trustme.CA) -> tuple[Subscriber, web.AppRunner]:
    sub = Subscriber()
    ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ca.issue_cert("127.0.0.1").configure_cert(ctx)
    app = web.Application()
    app.router.add_route("*", "/{tail:.*}", sub.handle)
    runner = web.AppRunner(app, access_log=None, shutdown_timeout=0.5)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0, ssl_context=ctx)
    await site.start()
    sub.port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    return sub, runner


async def _victim_run(
    engine: Any, sub: Subscriber, victim: str, tag: str, events: int, gap: float
) -> list[float]:
    """Latency (s) of each of the victim's events, ingest to arrival."""
    sent: dict[str, float] = {}
    for n in range(events):
        ev = msgspec.convert(event("order.created", n, tag), EventIn)
        sent[f"evt-{tag}-{n}"] = time.monotonic()
        await engine.services.ingest.ingest(victim, ev, actor="bench")
        await asyncio.sleep(gap)
    arrived: dict[str, float] = {}
    async with asyncio.timeout(120):
        while len(arrived) < events:
            for r in sub.deliveries():
                eid = json.loads(r.body).get("eventId", "")
                if eid in sent:
                    arrived.setdefault(eid, r.at)
            await asyncio.sleep(0.02)
    return [arrived[e] - sent[e] for e in sent]


async def _storm(engine: Any, tenant: str, stop: asyncio.Event) -> int:
    """10 events of the hostile tenant every 2 s until *stop*."""
    rounds = 0
    while not stop.is_set():
        batch = [
            msgspec.convert(event("order.created", n, f"storm{rounds}"), EventIn) for n in range(10)
        ]
        await engine.services.ingest.ingest_batch(tenant, batch, actor="bench")
        rounds += 1
        try:
            await asyncio.wait_for(stop.wait(), 2.0)
        except TimeoutError:
            pass
    return rounds


async def run_kind(kind: HostileKind, events: int, gap: float) -> dict[str, Any]:
    name, url = await _database()
    ca = trustme.CA()
    sub, runner = await _receiver(ca)
    fake = kind.make()
    await fake.start()
    folder = Path(tempfile.mkdtemp(prefix="bench-hostile-"))
    ca_file = folder / "ca.pem"
    ca.cert_pem.write_to_path(str(ca_file))
    settings = Settings(
        data_dir=folder,
        egress_allow=(("127.0.0.1", sub.port), ("127.0.0.1", fake.port)),
        egress_ca_file=str(ca_file),
        dns_servers=(("127.0.0.1", 9),),
        connect_timeout_s=1.0,
        request_timeout_s=3.0,
    )
    pool = await connect_pool(url, min_size=1, max_size=8)
    try:
        async with started(pool, settings) as (engine, api):
            hostile = await engine.tenants.create("hostile")
            victim = (await engine.tenants.create("victim")).tenant_id
            await hostile_subscriptions(engine, api, hostile.token, kind, fake)
            body = {
                "endpoint": sub.url("ok-victim"),
                "topics": ["order.created"],
                "eventVersions": [1],
                "region": "eu",
                "signatureAlgorithm": "ed25519",
                "owner": "victim",
            }
            state, _ = await engine.subscriptions.register(
                victim, msgspec.convert(body, SubscriptionCreate), actor="bench"
            )
            outcome = await engine.services.challenger.run(state.subscription_id, actor="bench")
            assert outcome["passed"], outcome
            stop = asyncio.Event()
            running = asyncio.create_task(engine.services.dispatcher.run(stop))
            try:
                await _victim_run(engine, sub, victim, "warm", 10, gap)
                cpu0 = time.process_time()
                calm = await _victim_run(engine, sub, victim, "calm", events, gap)
                calm_cpu = time.process_time() - cpu0
                fake.mode = kind.hung
                fake.drop_all()
                storm_stop = asyncio.Event()
                storm = asyncio.create_task(_storm(engine, hostile.tenant_id, storm_stop))
                await asyncio.sleep(0.5)  # the first hostile round is in flight
                cpu0 = time.process_time()
                hostile_lat = await _victim_run(engine, sub, victim, "hostile", events, gap)
                hostile_cpu = time.process_time() - cpu0
                storm_stop.set()
                rounds = await storm
            finally:
                stop.set()
                await running
            opened = sum(v == "open" for v in engine.services.dispatcher.gates.states().values())
            admitted = await engine.pool.fetchval(
                "SELECT count(*) FROM events AS e JOIN deliveries AS d"
                " ON e.stream_id = 'delivery-' || d.delivery_id"
                " WHERE e.type = 'delivery.attempt_admitted' AND d.tenant_id = $1",
                hostile.tenant_id,
            )
    finally:
        await pool.close()
        await fake.close()
        await runner.cleanup()
        await _drop(name)

    def figures(values: list[float]) -> dict[str, float]:
        return {
            "p50_ms": round(statistics.median(values) * 1000, 1),
            "p99_ms": round(_pct(values, 0.99) * 1000, 1),
            "max_ms": round(max(values) * 1000, 1),
        }

    out = {
        "calm": figures(calm),
        "hostile": figures(hostile_lat),
        "hostile_rounds": rounds,
        "hostile_attempts_planned": rounds * 10 * 34,
        "breakers_open_after": opened,
        "hostile_attempts_admitted": admitted,
        # this process's CPU seconds per phase (the engine's; Postgres not counted)
        "cpu_s": {"calm": round(calm_cpu, 2), "hostile": round(hostile_cpu, 2)},
    }
    out["p99_ratio"] = round(out["hostile"]["p99_ms"] / out["calm"]["p99_ms"], 3)
    return out


async def measure(args: argparse.Namespace) -> dict[str, Any]:
    wanted = set(args.kinds.split(","))
    results: dict[str, Any] = {
        "events": args.events,
        "gap_s": args.gap,
        "hostile_destinations": 34,
        "loadavg_before": os.getloadavg(),
        "cpus": os.cpu_count(),
        "kinds": {},
    }
    for n in range(args.rounds):
        for kind in KINDS:
            if kind.name in wanted:
                out = await run_kind(kind, args.events, args.gap)
                if args.rounds == 1:
                    results["kinds"][kind.name] = out
                else:
                    results["kinds"].setdefault(kind.name, {"rounds": []})["rounds"].append(out)
                print(n, kind.name, json.dumps(out), flush=True)
    if args.rounds > 1:  # each round: a fresh engine and database, calm then hostile
        for figures in results["kinds"].values():
            ratios = sorted(r["p99_ratio"] for r in figures["rounds"])
            figures["p99_ratio_median"] = statistics.median(ratios)
            figures["p99_ratio_spread"] = [ratios[0], ratios[-1]]
            p50 = sorted(r["hostile"]["p50_ms"] / r["calm"]["p50_ms"] for r in figures["rounds"])
            figures["p50_ratio_median"] = round(statistics.median(p50), 3)
    results["loadavg_after"] = os.getloadavg()
    return results


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--events", type=int, default=60)
    parser.add_argument("--gap", type=float, default=0.05)
    parser.add_argument("--kinds", default="amqp,nats")
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--out", default=str(RESULTS / "bench_hostile_victim.json"))
    args = parser.parse_args()
    results = asyncio.run(measure(args))
    Path(args.out).write_text(json.dumps(results, indent=2) + "\n")


if __name__ == "__main__":
    main()
