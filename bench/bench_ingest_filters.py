"""Ingest with 10,000 filtered subscriptions on one topic (issue 50 item 5).

What one event costs to ingest (validate, canonicalise, plan, append with the inline ledger,
commit; group commit at concurrency 32) when its tenant has 10,000 ACTIVE subscriptions on
the event's topic, each with its own equality filter, against the same with no filters:

- ``none``: 10,000 subscriptions without filters, each on a topic of its own (an event of
  topic ``t-<i>`` is planned for one: the topic, not a filter, selects);
- ``exact``: 10,000 on one topic, each ``[{"exact": {"subject": "c-<i>"}}]``;
- ``match``: 10,000 on one topic, each ``[{"match": {"data": {"customer": "c-<i>"}}}]``;
- ``one``: a tenant with one subscription, no filter (the floor);
- ``unindexed`` (fewer events): 10,000 on one topic, each ``[{"prefix": {"subject":
  "c-<i>."}}]``: no equality to index, so every event evaluates all 10,000 (what the index
  saves).

Every event is planned for exactly one subscription (checked). Each phase runs in its own
tenant of one fresh database on the local Postgres (``--database-url``, default
``HOOKPROOF_TEST_DATABASE_URL``); subscriptions are written as log events (registered, then
activated; no challenge is sent) and projected inline. Rounds alternate the phases;
per phase the median over rounds of microseconds per event. Target: ``exact`` and ``match``
within 20% of ``none``. Writes bench/results/s16_ingest_filters.json. Not a test.

    .venv/bin/python bench/bench_ingest_filters.py                 # ~2 minutes
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import statistics
import sys
import time
import urllib.parse
import uuid
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import asyncpg
import msgspec

from hookproof.engine.db.migrate import migrate
from hookproof.engine.ingest.ingest import IngestService
from hookproof.engine.recording.registry import inline_hooks
from hookproof.engine.subscriptions.filter_spec import filter_spec
from hookproof.events import NO_STREAM, EventStore, Metadata, StreamAppend
from hookproof.events.subscription_events import (
    SubscriptionConfig,
    SubscriptionRegistered,
    SubscriptionStateChanged,
    subscription_stream_id,
)
from hookproof.schemas.api import EventIn

RESULTS = Path(__file__).resolve().parent / "results" / "s16_ingest_filters.json"
TOPIC = "bench.filters"


def _with_db(url: str, name: str) -> str:
    parts = urllib.parse.urlsplit(url)
    return urllib.parse.urlunsplit(parts._replace(path="/" + name))


def _filters(phase: str, i: int) -> Any:
    if phase == "exact":
        return [{"exact": {"subject": f"c-{i}"}}]
    if phase == "match":
        return [{"match": {"data": {"customer": f"c-{i}"}}}]
    if phase == "unindexed":
        return [{"prefix": {"subject": f"c-{i}."}}]
    return None


def _subject(phase: str, i: int) -> str:
    return f"c-{i}." if phase == "unindexed" else f"c-{i}"


async def seed(store: EventStore, tenant: str, phase: str, n: int) -> None:
    """``n`` ACTIVE subscriptions of ``tenant`` for ``phase``, written as log events."""
    at = datetime.now(UTC).isoformat()
    meta = Metadata(actor="bench")
    batch: list[StreamAppend] = []
    for i in range(n):
        sid = f"sub_{uuid.uuid4().hex[:24]}"
        config = SubscriptionConfig(
            endpoint=f"https://127.0.0.1:9443/{phase}/{i}",
            endpoint_digest=f"sha256:{i:064x}",
            topics=[f"t-{i}" if phase == "none" else TOPIC],
            filters=filter_spec(_filters(phase, i)),
            event_versions=[1],
            region="local",
            signature_algorithm="ed25519",
            owner="bench",
        )
        batch.append(
            StreamAppend(
                subscription_stream_id(sid),
                [
                    SubscriptionRegistered(
                        subscription_id=sid, tenant_id=tenant, generation=1, config=config, at=at
                    ),
                    SubscriptionStateChanged(
                        subscription_id=sid,
                        command="activate",
                        from_state="PENDING_CHALLENGE",
                        to_state="ACTIVE",
                        generation=1,
                        at=at,
                    ),
                ],
                NO_STREAM,
                meta,
            )
        )
        if len(batch) == 500:
            await store.append(batch)
            batch = []
    if batch:
        await store.append(batch)


def _event(phase: str, n: int, i: int, run: str) -> EventIn:
    k = (i * 7919) % n  # a spread of the subscriptions
    return msgspec.convert(
        {
            "eventId": f"{run}-{phase}-{i}",
            "topic": f"t-{k}" if phase == "none" else TOPIC,
            "version": "1.0",
            "aggregateId": _subject(phase, k),
            "aggregateVersion": 1,
            "occurredAt": "2026-12-07T12:00:00Z",
            "payload": {"customer": f"c-{k}", "amount": i},
        },
        EventIn,
    )


async def measure(
    ingest: IngestService, tenant: str, phase: str, n: int, events: int, run: str
) -> float:
    """Microseconds per event of ``events`` events at concurrency 32."""
    todo = [_event(phase if phase != "one" else "one", n, i, run) for i in range(events)]
    if phase == "one":
        todo = [msgspec.structs.replace(e, topic=TOPIC) for e in todo]
    queue = iter(todo)

    async def worker() -> None:
        for e in queue:
            result = await ingest.ingest(tenant, e, actor="bench")
            assert len(result.deliveries) == 1, (phase, e.event_id, result.deliveries)

    started = time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(32)))
    return (time.perf_counter() - started) / events * 1e6


async def run(args: argparse.Namespace) -> dict[str, Any]:
    name = f"hookproof_bench_filters_{uuid.uuid4().hex[:6]}"
    admin = await asyncpg.connect(args.database_url)
    await admin.execute(f'CREATE DATABASE "{name}"')
    await admin.close()
    url = _with_db(args.database_url, name)
    try:
        return await _run(url, args)
    finally:
        admin = await asyncpg.connect(args.database_url)
        await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        await admin.close()


async def _run(url: str, args: argparse.Namespace) -> dict[str, Any]:
    conn = await asyncpg.connect(url)
    await migrate(conn)
    await conn.close()
    pool = await asyncpg.create_pool(url, min_size=4, max_size=8)
    store = EventStore(pool, inline=inline_hooks())
    ingest = IngestService(store)
    phases = ["none", "exact", "match", "one", "unindexed"]
    sizes = {p: (1 if p == "one" else args.subscriptions) for p in phases}
    tenants = {p: f"ten_bench_{p}" for p in phases}
    started = time.perf_counter()
    for p in phases:
        await seed(store, tenants[p], p, sizes[p])
        print(f"seeded {p}: {sizes[p]}", file=sys.stderr)
    seed_s = time.perf_counter() - started
    async with pool.acquire() as c:
        await c.execute("VACUUM ANALYZE subscriptions")
    loadavg = os.getloadavg()
    timings: dict[str, list[float]] = {p: [] for p in phases}
    for r in range(args.rounds + 1):  # round 0 warms the caches and the plans
        for p in phases:
            events = args.events if p != "unindexed" else max(20, args.events // 20)
            us = await measure(ingest, tenants[p], p, sizes[p], events, f"r{r}")
            if r:
                timings[p].append(us)
            print(f"round {r} {p}: {us:,.0f} us/event", file=sys.stderr)
    await pool.close()
    median = {p: statistics.median(v) for p, v in timings.items()}
    return {
        "bench": "bench/bench_ingest_filters.py",
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "machine": {
            "cpus": os.cpu_count(),
            "python": platform.python_version(),
            "platform": platform.platform(),
        },
        "subscriptions": args.subscriptions,
        "eventsPerRound": args.events,
        "rounds": args.rounds,
        "concurrency": 32,
        "loadavg": [round(x, 2) for x in loadavg],
        "seedSeconds": round(seed_s, 1),
        "usPerEvent": {p: round(v, 1) for p, v in median.items()},
        "usPerEventRounds": {p: [round(x, 1) for x in v] for p, v in timings.items()},
        "ratioToNone": {p: round(median[p] / median["none"], 3) for p in phases},
        "target": "exact and match within 1.20 of none",
        "met": median["exact"] <= 1.2 * median["none"] and median["match"] <= 1.2 * median["none"],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--database-url",
        default=os.environ.get(
            "HOOKPROOF_TEST_DATABASE_URL", "postgresql://postgres@127.0.0.1:5432/postgres"
        ),
    )
    parser.add_argument("--subscriptions", type=int, default=10_000)
    parser.add_argument("--events", type=int, default=2_000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    result = asyncio.run(run(args))
    RESULTS.parent.mkdir(exist_ok=True)
    RESULTS.write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result["usPerEvent"]), json.dumps(result["ratioToNone"]))
    print(f"wrote {RESULTS}", file=sys.stderr)


if __name__ == "__main__":
    main()
