"""Projection rebuild rate and the timeline query of one delivery, over a log of 1,000,000 events.

The log is realistic delivery traffic: per business event ``event.ingested`` and a delivery
stream ``delivery.planned`` / ``delivery.attempt_admitted`` / ``delivery.endpoint_accepted``
(every 10th delivery takes a failed first attempt), hash-chained exactly as the store writes
them, bulk-loaded with COPY. Then: ``rebuild()`` of each projection (keyset pages, fold, COPY,
index build, swap with checkpoint), the ``delivery_timeline`` of random deliveries, and
``audit verify`` over the whole log.

Server: ``HOOKPROOF_BENCH_DATABASE_URL`` (an admin URL) or an embedded ``pgserver``.

    .venv/bin/python bench/bench_rebuild.py [--events 1000000] [--out bench/results/rebuild.json]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import platform
import random
import shutil
import statistics
import sys
import tempfile
import time
import urllib.parse
import uuid
import warnings
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import asyncpg

from hookproof.engine.audit import delivery_timeline, verify_log
from hookproof.engine.db.migrate import migrate
from hookproof.engine.recording.registry import async_projections, projections_by_name
from hookproof.events import EventStore, event_hash
from hookproof.events.canonical import canonical_json
from hookproof.events.delivery_events import (
    AttemptAdmitted,
    AttemptFailed,
    DeliveryPlanned,
    EndpointAccepted,
    EventIngested,
)
from hookproof.events.store import Metadata
from hookproof.projections import rebuild

COLUMNS = [
    "stream_id",
    "category",
    "stream_version",
    "event_id",
    "type",
    "schema_version",
    "data",
    "metadata",
    "prev_hash",
    "hash",
]


@contextlib.contextmanager
def postgres_server() -> Iterator[tuple[str, bool]]:
    external = os.environ.get("HOOKPROOF_BENCH_DATABASE_URL")
    if external:
        yield external, False
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import pgserver

    folder = tempfile.mkdtemp(prefix="hp-bench-rebuild-")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        server = pgserver.get_server(folder, cleanup_mode="delete")
    try:
        yield server.get_uri(), True
    finally:
        with contextlib.suppress(Exception):
            server.cleanup()
        shutil.rmtree(folder, ignore_errors=True)


def _with_db(url: str, name: str) -> str:
    parts = urllib.parse.urlsplit(url)
    return urllib.parse.urlunsplit(parts._replace(path="/" + name))


def _rows_for(n: int, base: datetime) -> tuple[list[tuple[Any, ...]], list[str]]:
    """The rows of business event ``n``: its ingest and one delivery of 3 or 5 events."""
    eid = f"evt-{n:08d}"
    did = f"dlv_{n:028x}"
    sid = f"sub_{n % 500:05d}"
    at = (base + timedelta(milliseconds=n)).isoformat()
    later = (base + timedelta(milliseconds=n + 40)).isoformat()
    common = {"delivery_id": did}
    admitted = dict(
        common,
        generation=1,
        subscription_version=4,
        endpoint=f"https://hooks.example/{sid}",
        payload_digest="sha-256=:q1hC2n3rYVNkE3vO7GxZ6w==:",
        key_id="key_engine_2",
        key_generation=2,
        signature_alg="ed25519",
        dispatcher="worker-1",
        lease_until=later,
        at=at,
    )
    delivery = [
        DeliveryPlanned(
            delivery_id=did,
            event_id=eid,
            subscription_id=sid,
            tenant_id="tenant-1",
            generation=1,
            endpoint=f"https://hooks.example/{sid}",
            endpoint_digest="sha-256=:x:",
            payload_digest="sha-256=:q1hC2n3rYVNkE3vO7GxZ6w==:",
            topic="order.created",
            owner="team-orders",
            receipts=n % 4 == 0,
            max_attempts=8,
            at=at,
        ),
        AttemptAdmitted(attempt=1, **admitted),
    ]
    if n % 10 == 0:
        delivery.append(
            AttemptFailed(
                delivery_id=did,
                attempt=1,
                outcome="RETRYABLE",
                code="http_503",
                status=503,
                request_written=True,
                retry_at=later,
                duration_ms=12.5,
                at=later,
            )
        )
        delivery.append(AttemptAdmitted(attempt=2, reconciles=False, **{**admitted, "at": later}))
    delivery.append(
        EndpointAccepted(
            delivery_id=did,
            attempt=2 if n % 10 == 0 else 1,
            status=204,
            peer_address="203.0.113.7",
            spki_sha256=None,
            duration_ms=8.25,
            at=later,
        )
    )
    ingest = EventIngested(
        event_id=eid,
        topic="order.created",
        version="1.0",
        aggregate_id=f"order-{n}",
        aggregate_version=1,
        occurred_at=at,
        payload_digest="sha-256=:q1hC2n3rYVNkE3vO7GxZ6w==:",
        body_size=412,
        deliveries=[did],
        at=at,
    )
    rows: list[tuple[Any, ...]] = []
    for stream, events, meta in (
        (f"event-{eid}", [ingest], Metadata(actor="tenant:tenant-1", correlation_id=eid)),
        (f"delivery-{did}", delivery, Metadata(actor="worker-1", correlation_id=eid)),
    ):
        m = canonical_json(meta)
        prev: bytes | None = None
        for v, ev in enumerate(events, 1):
            data = canonical_json(ev)
            ident = uuid.uuid4()
            h = event_hash(prev, stream, v, ident, ev.type, ev.schema_version, data, m)
            rows.append((stream, stream.split("-", 1)[0], v, ident, ev.type, 1, data, m, prev, h))
            prev = h
    return rows, [did]


async def build_log(conn: asyncpg.Connection, target: int) -> tuple[int, list[str], float]:
    started = time.perf_counter()
    base = datetime(2026, 1, 1, tzinfo=UTC)
    total, n, deliveries, chunk = 0, 0, [], []
    while total < target:
        rows, dids = _rows_for(n, base)
        n += 1
        chunk.extend(rows)
        deliveries.extend(dids)
        total += len(rows)
        if len(chunk) >= 50_000 or total >= target:
            await conn.copy_records_to_table("events", records=chunk, columns=COLUMNS)
            chunk = []
            print(f"\rlog: {total:,} events", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    await conn.execute("VACUUM ANALYZE events")
    return total, deliveries, time.perf_counter() - started


async def run(args: argparse.Namespace) -> dict[str, Any]:
    with postgres_server() as (admin_url, embedded):
        name = f"hookproof_bench_rebuild_{uuid.uuid4().hex[:6]}"
        admin = await asyncpg.connect(admin_url)
        await admin.execute(f'CREATE DATABASE "{name}"')
        await admin.close()
        url = _with_db(admin_url, name)
        try:
            return await _measure(url, args, embedded)
        finally:
            admin = await asyncpg.connect(admin_url)
            await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
            await admin.close()


async def _measure(url: str, args: argparse.Namespace, embedded: bool) -> dict[str, Any]:
    conn = await asyncpg.connect(url)
    await migrate(conn)
    total, deliveries, build_s = await build_log(conn, args.events)
    server_version = await conn.fetchval("SHOW server_version")
    await conn.close()
    pool = await asyncpg.create_pool(url, min_size=2, max_size=4)
    store = EventStore(pool)
    asynchronous = {p.name for p in async_projections()}
    rebuilds: dict[str, Any] = {}
    for pname, projection in projections_by_name().items():
        result = await rebuild(store, projection, inline=pname not in asynchronous)
        rebuilds[pname] = {
            "logEvents": total,
            "eventsFolded": result.events,  # only the categories the projection folds are read
            "rows": result.rows,
            "seconds": round(result.seconds, 3),
            "eventsPerSecond": round(total / result.seconds),
            "foldedEventsPerSecond": round(result.rate),
        }
        print(f"rebuild {pname}: {rebuilds[pname]}", file=sys.stderr)
    started = time.perf_counter()
    verify = await rebuild(store, projections_by_name()["deliveries"], verify=True, inline=True)
    verify_s = time.perf_counter() - started
    assert verify.differences == [], verify.differences[:5]

    rnd = random.Random(7)
    sample = rnd.sample(deliveries, 200)
    for did in sample[:10]:  # warm the pool's prepared statements
        await delivery_timeline(store, did)
    times = []
    for did in sample:
        t0 = time.perf_counter()
        t = await delivery_timeline(store, did)
        times.append((time.perf_counter() - t0) * 1000)
        assert t.state is not None and t.state["state"] == "ENDPOINT_ACCEPTED"
    times.sort()
    async with pool.acquire() as c:
        t0 = time.perf_counter()
        report = await verify_log(c)
        audit_s = time.perf_counter() - t0
    assert report.ok and report.events == total
    await pool.close()
    rate = min(r["eventsPerSecond"] for r in rebuilds.values())
    timeline_p50 = statistics.median(times)
    return {
        "benchmark": "projection rebuild and delivery timeline",
        "when": datetime.now(UTC).isoformat(timespec="seconds"),
        "machine": {
            "cpus": os.cpu_count(),
            "python": platform.python_version(),
            "postgres": server_version,
            "embeddedPostgres": embedded,
        },
        "log": {"events": total, "deliveries": len(deliveries), "buildSeconds": round(build_s, 1)},
        "rebuild": rebuilds,
        "rebuildVerifyDeliveriesSeconds": round(verify_s, 3),
        "timelineMs": {
            "samples": len(times),
            "p50": round(timeline_p50, 2),
            "p95": round(times[int(len(times) * 0.95)], 2),
            "max": round(times[-1], 2),
        },
        "auditVerify": {
            "events": report.events,
            "seconds": round(audit_s, 3),
            "eventsPerSecond": round(report.events / audit_s),
        },
        "goals": {
            "rebuildEventsPerSecond": {"goal": 150_000, "worst": rate, "met": rate >= 150_000},
            "timelineMs": {"goal": 50, "p50": round(timeline_p50, 2), "met": timeline_p50 < 50},
        },
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--events", type=int, default=1_000_000)
    p.add_argument("--out", default=str(Path(__file__).parent / "results" / "rebuild.json"))
    args = p.parse_args(argv)
    result = asyncio.run(run(args))
    text = json.dumps(result, indent=2)
    print(text)
    if args.out != "-":
        Path(args.out).write_text(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
