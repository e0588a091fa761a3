"""Relay subscriptions are limited per owner (issue 46): two tenants whose ``hookproof listen``
forward to the same local URL (the README's ``http://localhost:3000/webhooks`` is everyone's)
never share a circuit breaker or a concurrency room. A real engine, both CLIs as real
processes, one local receiver on the subscriber SDK that fails the first tenant's requests."""

from __future__ import annotations

import asyncio
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import aiohttp
from aiohttp import web

from hookproof_subscriber import InMemoryStore, JwksKeyResolver, Subscriber, aiohttp_handler
from tests.daemon import free_port

from .harness import Listener, engine_env, start_engine, tenant

TOPIC = "order.created"


async def _subscribe(http: aiohttp.ClientSession, base: str, url: str) -> str:
    body = {
        "endpoint": url,
        "topics": [TOPIC],
        "eventVersions": [1],
        "region": "local",
        "signatureAlgorithm": "ed25519",
        "owner": "dev",
        "destination": {"type": "relay"},
        "retryPolicy": {"initialDelayS": 0.2, "maxDelayS": 1.0, "maxAttempts": 100},
    }
    async with http.post(f"{base}/v1/subscriptions", json=body) as r:
        assert r.status == 201, await r.text()
        return str((await r.json())["id"])


async def _publish(http: aiohttp.ClientSession, base: str, eid: str) -> str:
    body = {
        "eventId": eid,
        "topic": TOPIC,
        "version": "1.0",
        "aggregateId": f"agg-{eid}",
        "aggregateVersion": 1,
        "occurredAt": datetime.now(UTC).isoformat(),
        "payload": {"id": eid},
    }
    async with http.post(f"{base}/v1/events", json=body) as r:
        assert r.status == 202, await r.text()
        [d] = (await r.json())["deliveries"]
        return str(d["deliveryId"])


async def _view(http: aiohttp.ClientSession, base: str, did: str) -> dict[str, Any]:
    async with http.get(f"{base}/v1/deliveries/{did}") as r:
        assert r.status == 200
        return dict(await r.json())


async def _wait(check: Any, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if await check():
            return True
        await asyncio.sleep(0.1)
    return False


async def test_two_tenants_listening_on_the_same_local_url_do_not_share_a_breaker(
    db_url: str, tmp_path: Path
) -> None:
    env = engine_env(db_url, tmp_path)
    daemon = await start_engine(env, tmp_path)
    base = daemon.base_url
    port = free_port()
    url = f"http://127.0.0.1:{port}/webhooks"
    failing: set[str] = set()  # subscriptions whose requests the receiver fails with 503
    failed: list[str] = []
    sdk = Subscriber(
        keys=JwksKeyResolver.for_engine(base),
        on_event=lambda event: None,
        endpoint=url,
        store=InMemoryStore(),
    )
    inner = aiohttp_handler(sdk)

    async def handle(request: web.Request) -> web.StreamResponse:
        sid = request.headers.get("Webhook-Subscription", "")
        if sid in failing:
            failed.append(sid)
            await asyncio.sleep(0.3)  # a slow failure: it holds its slot a while
            return web.Response(status=503)
        return await inner(request)

    app = web.Application()
    app.router.add_post("/webhooks", handle)
    runner = web.AppRunner(app)
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", port).start()
    listeners: list[Listener] = []
    try:
        tokens = [await tenant(env, "acme"), await tenant(env, "globex")]
        sessions = [aiohttp.ClientSession(headers={"Authorization": f"Bearer {t}"}) for t in tokens]
        try:
            sids = [await _subscribe(http, base, url) for http in sessions]
            for token, sid in zip(tokens, sids, strict=True):
                cli = Listener.start(
                    ["--to", url, "--topics", TOPIC, "--engine", base, "--token", token], {}
                )
                listeners.append(cli)
                assert await cli.first_line() == f"listening {sid} -> {url}"

            async def active() -> bool:
                for http, sid in zip(sessions, sids, strict=True):
                    async with http.get(f"{base}/v1/subscriptions/{sid}") as r:
                        if (await r.json())["state"] != "ACTIVE":
                            return False
                return True

            assert await _wait(active, 60), daemon.log()[-3000:]
            first, second = sessions
            # the second tenant's normal time: one delivery relayed and reported 200
            start = time.monotonic()
            did = await _publish(second, base, "evt-warm")

            async def reported(http: aiohttp.ClientSession, did: str) -> bool:
                view = await _view(http, base, did)
                return bool(view["evidence"]["endpoint"] == "RELAY_REPORTED")

            assert await _wait(lambda: reported(second, did), 30)
            normal_s = time.monotonic() - start

            # the first tenant's receiver fails (503, slowly) on every delivery: enough
            # failures to open a breaker (its own now: it holds the first tenant's deliveries
            # for 30 s) and to fill a room of 8
            failing.add(sids[0])
            for i in range(24):
                await _publish(first, base, f"evt-a{i}")

            async def opened() -> bool:  # the breaker's threshold (5 failures) reached
                return len(failed) >= 5

            assert await _wait(opened, 30), failed
            start = time.monotonic()
            dids = [await _publish(second, base, f"evt-b{i}") for i in range(3)]

            async def all_reported() -> bool:
                return all([await reported(second, d) for d in dids])

            # the breaker opens for 30 s: a shared one would hold these that long
            assert await _wait(all_reported, 10 + normal_s), [
                await _view(second, base, d) for d in dids
            ]
            took = time.monotonic() - start
            views = [await _view(second, base, d) for d in dids]
            assert all(v["evidence"]["reportedStatus"] == 200 for v in views), views
            assert took < 10 + normal_s
            # and the first tenant's failures were real and still going on
            assert set(failed) == {sids[0]} and len(failed) >= 5
        finally:
            for http in sessions:
                await http.close()
    finally:
        for cli in listeners:
            if cli.proc.poll() is None:
                cli.proc.kill()
            await cli.wait()
        await runner.cleanup()
        await asyncio.to_thread(daemon.stop)


def test_the_room_key_of_a_relay_is_its_subscription_and_of_anything_else_its_digest() -> None:
    from hookproof.engine.destinations.relay.endpoint import normalise_relay_endpoint, room_key

    ep = normalise_relay_endpoint("http://localhost:3000/webhooks")
    a, b = room_key("sub_a", ep.url, ep.digest), room_key("sub_b", ep.url, ep.digest)
    assert a != b and ep.digest not in (a, b) and len(a) == 64
    assert room_key("sub_a", ep.url, ep.digest) == a  # stable: one room per subscription
    https = "https://hooks.example.com/in"
    assert room_key("sub_a", https, "d" * 64) == room_key("sub_b", https, "d" * 64) == "d" * 64
