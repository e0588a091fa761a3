"""The notifier's tail, with and without ``payload_types``: what a page of the log costs the
engine process when only the five cause types are read whole.

Writes 10,000 deliveries' worth of ledger events (planned, admitted, accepted: the events of
``tests``' delivery harness, copied from a real run's shapes) plus 10 dead letters into a fresh
database, then pages through them as the notifier does (``consume`` over the categories
``subscription, delivery, key, rollout``, pages of 500) several times each way, alternating,
and reports the engine process's CPU (``time.process_time``) and wall time per event, and the
bytes of payload, metadata and hashes that left the server. Not a test: nothing asserts.

    .venv/bin/python bench/bench_notifier_tail.py [--deliveries 10000] [--rounds 5]

The server: embedded Postgres (``pgserver``) unless ``HOOKPROOF_BENCH_DATABASE_URL`` names an
admin URL (bench_event_store.py's rule). Results: ``bench/results/notifier_tail.json``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import time
import uuid
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import asyncpg

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_event_store import create_databases, postgres_server, with_database

from hookproof.engine.db.migrate import migrate
from hookproof.engine.notifications.decide import CAUSE_TYPES
from hookproof.engine.notifications.service import CATEGORIES
from hookproof.events import NO_STREAM, EventStore, Metadata, StreamAppend
from hookproof.events.delivery_events import (
    AttemptAdmitted,
    DeadLettered,
    DeliveryPlanned,
    EndpointAccepted,
)
from hookproof.projections.projector import consume

RESULTS = Path(__file__).resolve().parent / "results" / "notifier_tail.json"


def delivery_events(n: int, at: str) -> tuple[list[Any], str]:
    """A delivery's three events, field values of the size a real run writes."""
    did = f"dlv_{uuid.uuid4().hex[:28]}"
    digest = "1dd5e5b24324c8497436d059c1ea53b56bcb3709638280553fb844a00fefdf7e"
    return [
        DeliveryPlanned(
            delivery_id=did,
            event_id=f"evt-{n}",
            tenant_id="ten_5aeddb23254590ca",
            subscription_id="sub_a07ca1c18b165944af85c85f",
            generation=1,
            endpoint="https://127.0.0.1:46261/ok-0",
            endpoint_digest=digest,
            payload_digest="sha-256=:tVg+u1tNvl0iKQlPJf2D957jsPlNAJUrLXZNNCzMXr8=:",
            topic="order.created",
            owner="team-orders",
            receipts=False,
            max_attempts=8,
            at=at,
        ),
        AttemptAdmitted(
            delivery_id=did,
            attempt=1,
            dispatcher="vm:5802:8bf794",
            endpoint="https://127.0.0.1:46261/ok-0",
            generation=1,
            key_id="k_V3_GMzyCYQRckRjuvM7IYA",
            key_generation=1,
            lease_until=at,
            payload_digest="sha-256=:tVg+u1tNvl0iKQlPJf2D957jsPlNAJUrLXZNNCzMXr8=:",
            signature_alg="ed25519",
            subscription_version=4,
            at=at,
        ),
        EndpointAccepted(
            delivery_id=did,
            attempt=1,
            status=204,
            duration_ms=23.9,
            peer_address="127.0.0.1",
            spki_sha256=digest,
            at=at,
        ),
    ], did


async def fill(store: EventStore, deliveries: int, dead: int) -> None:
    now = datetime.now(UTC).isoformat()
    meta = Metadata(actor="dispatcher:vm:5802:8bf794", correlation_id="evt-0")
    batch: list[StreamAppend] = []
    for n in range(deliveries):
        events, did = delivery_events(n, now)
        if n < dead:
            events = [
                events[0],
                DeadLettered(
                    delivery_id=did,
                    attempt=1,
                    owner="team-orders",
                    reason="max_attempts",
                    replay="allowed",
                    at=now,
                ),
            ]
        batch.append(StreamAppend(f"delivery-{did}", events, NO_STREAM, meta))
        if len(batch) == 100:
            await store.append(batch)
            batch = []
    if batch:
        await store.append(batch)


async def one_pass(store: EventStore, name: str, payload: bool) -> dict[str, float]:
    await store.pool.execute("DELETE FROM projection_checkpoints WHERE name = $1", name)
    seen = {"events": 0, "bytes": 0, "causes": 0}

    async def handle(_conn: Any, page: list[Any]) -> int:
        for rec in page:
            seen["events"] += 1
            seen["bytes"] += len(rec.data) + len(rec.metadata) + len(rec.hash)
            if rec.type in CAUSE_TYPES:
                rec.decode()
                seen["causes"] += 1
        return len(page)

    cpu, wall = time.process_time(), time.perf_counter()
    await consume(
        store,
        name,
        handle,
        batch=500,
        categories=CATEGORIES,
        payload_types=sorted(CAUSE_TYPES) if payload else None,
    )
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    n = seen["events"]
    return {
        "events": n,
        "causes_decoded": seen["causes"],
        "cpu_us_per_event": round(cpu / n * 1e6, 2),
        "wall_us_per_event": round(wall / n * 1e6, 2),
        "bytes_per_event": round(seen["bytes"] / n, 1),
    }


async def run(args: argparse.Namespace) -> dict[str, Any]:
    with postgres_server(None) as (admin, info):
        name = f"hp_notifier_tail_{uuid.uuid4().hex[:6]}"
        await create_databases(admin, [name])
        url = with_database(admin, name)
        conn = await asyncpg.connect(url)
        await migrate(conn)
        await conn.close()
        pool = await asyncpg.create_pool(url, min_size=1, max_size=2)
        store = EventStore(pool)
        await fill(store, args.deliveries, args.dead)
        await pool.execute("VACUUM ANALYZE events")
        runs: dict[str, list[dict[str, float]]] = {"whole_rows": [], "payload_types": []}
        for _ in range(args.rounds):
            runs["whole_rows"].append(await one_pass(store, "bench_whole", False))
            runs["payload_types"].append(await one_pass(store, "bench_causes", True))
        await pool.close()
    summary = {
        k: {
            m: statistics.median(r[m] for r in v)
            for m in ("cpu_us_per_event", "wall_us_per_event", "bytes_per_event")
        }
        | {"events": v[0]["events"], "causes_decoded": v[0]["causes_decoded"]}
        for k, v in runs.items()
    }
    return {
        "benchmark": "notifier_tail",
        "deliveries": args.deliveries,
        "dead_letters": args.dead,
        "rounds": args.rounds,
        "postgres": info,
        "median": summary,
        "runs": runs,
        "recorded_at": datetime.now(UTC).isoformat(timespec="seconds"),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deliveries", type=int, default=10_000)
    ap.add_argument("--dead", type=int, default=10)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--output", default=str(RESULTS))
    args = ap.parse_args()
    result = asyncio.run(run(args))
    Path(args.output).write_text(json.dumps(result, indent=2, default=str) + "\n")
    print(json.dumps(result["median"], indent=2))
    print(f"wrote {args.output}")


if __name__ == "__main__":
    main()
