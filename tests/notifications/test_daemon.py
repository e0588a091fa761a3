"""The notifier runs inside ``hookproof serve``: a dead letter is announced over HTTPS to the
tenant's listener with no test driving the workers."""

from __future__ import annotations

import json
from pathlib import Path

import aiohttp
import trustme

from ..delivery.conftest import Subscriber
from ..live import Client, engine_env, new_tenant, start, stop, wait_for


async def test_daemon_announces_a_dead_letter(
    db_url: str, tmp_path: Path, subscriber: Subscriber, ca: trustme.CA
) -> None:
    env = engine_env(db_url, tmp_path, subscriber.port, ca)
    daemon = await start(env, tmp_path)
    try:
        _, token = await new_tenant(env, "acme")
        async with aiohttp.ClientSession() as http:
            acme = Client(http, daemon.base_url, token)
            await acme.subscribe(subscriber.url("ok-listener"), ["hookproof.delivery.*"])
            await acme.subscribe(
                subscriber.url("fail500-src"), ["t"], retryPolicy={"maxAttempts": 1}
            )
            out = await acme.publish("evt-1")
            [did] = [d["deliveryId"] for d in out["deliveries"]]

            async def heard() -> bool:
                return bool(subscriber.deliveries("ok-listener"))

            await wait_for(heard, what="the dead-letter notification")
            [got] = subscriber.deliveries("ok-listener")
            doc = json.loads(got.body)
            assert doc["type"] == "hookproof.delivery.dead_lettered"
            assert doc["payload"]["deliveryId"] == did
            status, view = await acme.call(
                "GET", f"/v1/deliveries/{got.headers['Webhook-Delivery-Id']}"
            )
            assert status == 200 and view["eventId"] == doc["eventId"]
            # tenants cannot forge the engine's topics
            status, problem = await acme.call(
                "POST",
                "/v1/events",
                {
                    "eventId": "forged",
                    "topic": "hookproof.delivery.dead_lettered",
                    "version": "1.0",
                    "aggregateId": "x",
                    "aggregateVersion": 1,
                    "occurredAt": "2026-11-30T10:00:00Z",
                    "payload": {},
                },
            )
            assert status == 400 and problem["code"] == "reserved_topic"
    finally:
        await stop(daemon)
