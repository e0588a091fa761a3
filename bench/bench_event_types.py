"""Event types: ingest of a typed topic against the same ingest of an untyped one.

The same daemon, the same database, the same subscriptions and the same ~1 KiB order payload
(15 constrained top-level fields, 4 order lines: bench/event_type_payloads.py); the only
difference is the topic: ``bench.typed`` has an event type whose major version 1 the payload
must validate against, ``bench.untyped`` has none. Rounds alternate the two arms (A B B A ...)
for single ``POST /v1/events`` (concurrency 32) and ``POST /v1/events/batch`` (1,000 events,
concurrency 4), each answer is checked (202 with 10 deliveries). Reported per arm: events/s,
and CPU ms per event of the daemon and of Postgres (the machine is shared: CPU per event does
not depend on what other users run, throughput does).

In-process, the validation cost itself: the compiled validator's ``is_valid`` on the payload,
the work-bound check, and the error path (10 errors), in microseconds per event.

Writes bench/results/s6_event_types.json. Not a test: nothing asserts a timing.

    .venv/bin/python bench/bench_event_types.py --database-url postgresql://postgres@127.0.0.1:5432/postgres
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import json
import os
import platform
import secrets
import shutil
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_ingest import (
    CpuMeter,
    fresh_database,
    postgres_pids,
    postgres_server,
    start_daemon,
    stop_process,
    tree_pids,
)
from event_type_payloads import ORDER_SCHEMA, order_payload

ROOT = Path(__file__).resolve().parent
RESULTS = ROOT / "results" / "s6_event_types.json"
TYPED, UNTYPED = "bench.typed", "bench.untyped"
SUBSCRIPTIONS = 10


async def setup(db_url: str, env: dict[str, str], folder: Path) -> dict[str, Any]:
    """A tenant, 10 ACTIVE subscriptions of both topics, the type of ``bench.typed``."""
    import logging
    import ssl

    import msgspec
    import structlog
    import trustme
    from aiohttp import web
    from bench_ingest import free_port

    from hookproof.config import Settings
    from hookproof.engine.db.database import connect_pool
    from hookproof.engine.runtime.daemon import build_engine
    from hookproof.schemas.api import EventTypeIn, SubscriptionCreate
    from hookproof_subscriber import build_challenge_response

    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.ERROR))
    ca = trustme.CA()
    ca_file = folder / "ca.pem"
    ca.cert_pem.write_to_path(str(ca_file))
    ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ca.issue_cert("127.0.0.1").configure_cert(ctx)

    async def handle(request: web.Request) -> web.Response:
        body = await request.read()
        return web.Response(body=build_challenge_response(body), content_type="application/json")

    app = web.Application()
    app.router.add_route("*", "/{tail:.*}", handle)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    port = free_port()
    await web.TCPSite(runner, "127.0.0.1", port, ssl_context=ctx).start()
    settings = Settings.from_env(
        {
            **env,
            "HOOKPROOF_LISTEN": "127.0.0.1:1",
            "HOOKPROOF_EGRESS_ALLOW": f"127.0.0.1:{port}",
            "HOOKPROOF_EGRESS_CA_FILE": str(ca_file),
        }
    )
    pool = await connect_pool(db_url, min_size=1, max_size=8)
    engine = await build_engine(settings, pool)
    try:
        issued = await engine.tenants.create("bench")
        for i in range(SUBSCRIPTIONS):
            body = msgspec.convert(
                {
                    "endpoint": f"https://127.0.0.1:{port}/s/{i}",
                    "topics": [TYPED, UNTYPED],
                    "eventVersions": [1],
                    "region": "eu",
                    "signatureAlgorithm": "ed25519",
                    "owner": "bench",
                },
                SubscriptionCreate,
            )
            state, _ = await engine.subscriptions.register(issued.tenant_id, body, actor="bench")
            outcome = await engine.services.challenger.run(state.subscription_id, actor="bench")
            if not outcome["passed"]:
                raise RuntimeError(f"challenge failed: {outcome}")
        definition = msgspec.convert(
            {
                "description": "An order (benchmark)",
                "versions": {"1": {"schema": ORDER_SCHEMA, "example": order_payload(0)}},
            },
            EventTypeIn,
        )
        await engine.services.event_types.define(issued.tenant_id, TYPED, definition, actor="bench")
    finally:
        await engine.close()
        await pool.close()
        await runner.cleanup()
    return {"tenant": issued.tenant_id, "token": issued.token}


def event_doc(topic: str, event_id: str, i: int) -> dict[str, Any]:
    return {
        "eventId": event_id,
        "topic": topic,
        "version": "1.0",
        "aggregateId": f"order-{i % 997}",
        "aggregateVersion": i,
        "occurredAt": "2026-11-30T10:00:00Z",
        "payload": order_payload(i),
    }


async def load(
    base: str,
    token: str,
    topic: str,
    run: str,
    seconds: float,
    *,
    batch: int,
    concurrency: int,
    meter: CpuMeter,
) -> dict[str, Any]:
    """``batch`` 0: single POSTs; otherwise batches of that size. Bodies encoded up front."""
    import aiohttp

    headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
    counter = iter(range(10**9))
    ok = 0
    bad: dict[str, int] = {}
    deadline = 0.0

    def body() -> tuple[bytes, str]:
        n = next(counter)
        if not batch:
            return json.dumps(event_doc(topic, f"{run}-{n}", n)).encode(), "/v1/events"
        docs = [event_doc(topic, f"{run}-{n}-{j}", n * batch + j) for j in range(batch)]
        return json.dumps({"events": docs}).encode(), "/v1/events/batch"

    async def worker(http: aiohttp.ClientSession) -> None:
        nonlocal ok
        while time.monotonic() < deadline:
            data, path = body()
            async with http.post(base + path, data=data, headers=headers) as r:
                doc = await r.read()
                if not batch:
                    if r.status == 202 and len(json.loads(doc)["deliveries"]) == SUBSCRIPTIONS:
                        ok += 1
                    else:
                        bad[f"{r.status}:{doc[:120]!r}"] = bad.get(f"{r.status}", 0) + 1
                    continue
                if r.status != 200:
                    bad[f"{r.status}"] = bad.get(f"{r.status}", 0) + 1
                    continue
                for res in json.loads(doc)["results"]:
                    if res["status"] == 202 and len(res["deliveries"]) == SUBSCRIPTIONS:
                        ok += 1
                    else:
                        bad[f"result {res['status']}"] = bad.get(f"result {res['status']}", 0) + 1

    timeout = aiohttp.ClientTimeout(total=120)
    conn = aiohttp.TCPConnector(limit=concurrency)
    async with aiohttp.ClientSession(connector=conn, timeout=timeout) as http:
        deadline = time.monotonic() + 1.0  # warm-up
        await asyncio.gather(*(worker(http) for _ in range(concurrency)))
        ok = 0
        t0 = time.monotonic()
        deadline = t0 + seconds
        meter.start()
        await asyncio.gather(*(worker(http) for _ in range(concurrency)))
        wall = time.monotonic() - t0
        cpu = meter.stop(ok)
    return {
        "topic": topic,
        "seconds": round(wall, 2),
        "events": ok,
        "events_per_s": round(ok / wall, 1),
        "failures": bad,
        "cpu": cpu,
    }


def validation_cost(n: int = 20_000) -> dict[str, Any]:
    """In-process: what judging one payload costs beyond the group's one lookup."""
    from hookproof.engine.event_types.limits import compile_schema, errors_of
    from hookproof.events.canonical import canonical_json

    compiled = compile_schema(ORDER_SCHEMA)
    payloads = [order_payload(i) for i in range(1000)]
    bodies = [canonical_json(p) for p in payloads]
    t = time.perf_counter()
    for i in range(n):
        compiled.validator.is_valid(payloads[i % 1000])
    valid_us = (time.perf_counter() - t) / n * 1e6
    t = time.perf_counter()
    for i in range(n):
        compiled.work(bodies[i % 1000])
    work_us = (time.perf_counter() - t) / n * 1e6
    bad = {**payloads[0], "currency": "XXX", "total": -1, "country": "de"}
    bad_body = canonical_json(bad)
    t = time.perf_counter()
    for _ in range(n // 10):
        errors_of(compiled, bad, bad_body)
    errors_us = (time.perf_counter() - t) / (n // 10) * 1e6
    return {
        "payload_bytes": len(bodies[0]),
        "subschemas": compiled.nodes,
        "patterns": compiled.patterns,
        "work_units": compiled.work(bodies[0]),
        "is_valid_us": round(valid_us, 2),
        "work_bound_check_us": round(work_us, 2),
        "errors_path_us_3_errors": round(errors_us, 2),
    }


def summarise(rounds: list[dict[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for mode in ("single", "batch"):
        arms: dict[str, dict[str, list[float]]] = {TYPED: {}, UNTYPED: {}}
        for r in rounds:
            if r["mode"] != mode:
                continue
            a = arms[r["topic"]]
            a.setdefault("events_per_s", []).append(r["events_per_s"])
            for k in ("daemon_cpu_ms_per_event", "postgres_cpu_ms_per_event"):
                a.setdefault(k, []).append(r["cpu"].get(k, 0.0))
        mean = {t: {k: sum(v) / len(v) for k, v in m.items()} for t, m in arms.items() if m}
        if len(mean) == 2:
            typed, untyped = mean[TYPED], mean[UNTYPED]
            out[mode] = {
                "typed": {k: round(v, 3) for k, v in typed.items()},
                "untyped": {k: round(v, 3) for k, v in untyped.items()},
                "throughput_typed_over_untyped": round(
                    typed["events_per_s"] / untyped["events_per_s"], 3
                ),
                "daemon_cpu_typed_minus_untyped_ms": round(
                    typed["daemon_cpu_ms_per_event"] - untyped["daemon_cpu_ms_per_event"], 4
                ),
            }
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--database-url", help="an admin URL of a Postgres server to use")
    ap.add_argument("--seconds", type=float, default=6.0)
    ap.add_argument("--rounds", type=int, default=2, help="A B B A pairs per mode")
    ap.add_argument("--workers", help="HOOKPROOF_WORKERS for the daemon (default: cores)")
    ap.add_argument("--output", default=str(RESULTS))
    ap.add_argument(
        "--in-process-only",
        action="store_true",
        help="only the in-process comparison (no gate / gate untyped / gate typed); merged "
        "into --output under in_process",
    )
    args = ap.parse_args()
    if args.in_process_only:
        with postgres_server(args.database_url) as (admin_url, _):
            found = asyncio.run(in_process(admin_url))
        out = Path(args.output)
        doc = json.loads(out.read_text()) if out.exists() else {}
        doc["in_process"] = {**found, "load_avg_1m": os.getloadavg()[0]}
        out.write_text(json.dumps(doc, indent=2) + "\n")
        print(json.dumps(doc["in_process"], indent=2))
        return

    folder = Path(tempfile.mkdtemp(prefix="hp-evtypes-"))
    result: dict[str, Any] = {
        "benchmark": "s6_event_types",
        "when": datetime.now(UTC).isoformat(timespec="seconds"),
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version()},
        "load_before": os.getloadavg(),
        "validation": validation_cost(),
    }
    print("validation:", result["validation"], flush=True)
    rounds: list[dict[str, Any]] = []
    try:
        with postgres_server(args.database_url) as (admin_url, pgdata):
            db_url = asyncio.run(fresh_database(admin_url))
            master = base64.urlsafe_b64encode(secrets.token_bytes(32)).rstrip(b"=").decode()
            env = {
                "HOOKPROOF_DATABASE_URL": db_url,
                "HOOKPROOF_MASTER_KEY": master,
                "HOOKPROOF_DATA_DIR": str(folder),
                "HOOKPROOF_DNS_SERVERS": "127.0.0.1:9",
                "HOOKPROOF_ROLES": "api,projector",
            }
            if args.workers:
                env["HOOKPROOF_WORKERS"] = args.workers
            who = asyncio.run(setup(db_url, env, folder))
            proc, base = start_daemon(env, folder / "daemon.log", None)
            meter = CpuMeter(
                {
                    "daemon": lambda: tree_pids(proc.pid),
                    "postgres": lambda: postgres_pids(pgdata),
                    "client": lambda: [os.getpid()],
                }
            )
            try:
                order = [TYPED, UNTYPED, UNTYPED, TYPED] * args.rounds
                for mode, batch, conc in (("single", 0, 32), ("batch", 1000, 4)):
                    for topic in (TYPED, UNTYPED):  # warm-up, not counted: pools, caches
                        asyncio.run(
                            load(
                                base,
                                who["token"],
                                topic,
                                f"warm{mode}-{topic}",
                                args.seconds / 2,
                                batch=batch,
                                concurrency=conc,
                                meter=meter,
                            )
                        )
                    for k, topic in enumerate(order):
                        run = f"{mode}{k}-" + secrets.token_hex(3)
                        r = asyncio.run(
                            load(
                                base,
                                who["token"],
                                topic,
                                run,
                                args.seconds,
                                batch=batch,
                                concurrency=conc,
                                meter=meter,
                            )
                        )
                        r["mode"] = mode
                        rounds.append(r)
                        print(mode, topic, r["events_per_s"], r["cpu"], r["failures"], flush=True)
            finally:
                stop_process(proc)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    result["rounds"] = rounds
    result["summary"] = summarise(rounds)
    result["load_after"] = os.getloadavg()
    Path(args.output).parent.mkdir(parents=True, exist_ok=True)
    Path(args.output).write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result["summary"], indent=2))


async def in_process(admin_url: str, events: int = 3000, rounds: int = 3) -> dict[str, Any]:
    """The ingest service alone (no HTTP), concurrency 32, process CPU per event of three arms
    alternating: no schema gate at all (main before event types), the gate with an untyped
    topic (what every tenant pays now: one lookup per group), the gate with a typed topic."""
    import asyncpg
    import msgspec

    from hookproof.engine.db.database import connect_pool
    from hookproof.engine.db.migrate import migrate
    from hookproof.engine.event_types.gate import SchemaGate
    from hookproof.engine.event_types.repository import EventTypeRepository
    from hookproof.engine.event_types.service import EventTypeService
    from hookproof.engine.ingest.ingest import IngestService
    from hookproof.engine.recording.registry import inline_hooks
    from hookproof.events import EventStore
    from hookproof.schemas.api import EventIn, EventTypeIn

    db_url = await fresh_database(admin_url)
    conn = await asyncpg.connect(db_url)
    try:
        await migrate(conn)
    finally:
        await conn.close()
    pool = await connect_pool(db_url, min_size=1, max_size=8)
    try:
        store = EventStore(pool, inline=inline_hooks())
        await EventTypeService(store).define(
            "ten_bench",
            TYPED,
            msgspec.convert(
                {
                    "description": "x",
                    "versions": {"1": {"schema": ORDER_SCHEMA, "example": order_payload(0)}},
                },
                EventTypeIn,
            ),
            actor="bench",
        )
        plain = IngestService(store)
        gated = IngestService(store, gate=SchemaGate(EventTypeRepository.of(store)))
        arms = {
            "no_gate_untyped": (plain, UNTYPED),
            "gate_untyped": (gated, UNTYPED),
            "gate_typed": (gated, TYPED),
        }
        cpu: dict[str, list[float]] = {k: [] for k in arms}
        for r in range(rounds):
            names = list(arms) if r % 2 == 0 else list(reversed(arms))
            for name in names:
                service, topic = arms[name]
                docs = [
                    msgspec.convert(event_doc(topic, f"{name}-{r}-{i}", i), EventIn)
                    for i in range(events)
                ]
                t = time.process_time()
                for k in range(0, events, 32):
                    await asyncio.gather(
                        *(service.ingest("ten_bench", e, actor="bench") for e in docs[k : k + 32])
                    )
                cpu[name].append((time.process_time() - t) / events * 1000)
        return {
            "events_per_arm_round": events,
            "rounds": rounds,
            "process_cpu_ms_per_event": {k: [round(x, 4) for x in v] for k, v in cpu.items()},
            "mean_ms": {k: round(sum(v) / len(v), 4) for k, v in cpu.items()},
        }
    finally:
        await pool.close()


if __name__ == "__main__":
    main()
