""" "Send a test event" with the README's quick-start receiver: the SDK recognises the test
(its id in the engine's reserved space), confirms it with a receipt without applying it, and
the engine sends it once. A receiver that answers 2xx but never sends receipts is not sent a
test event again either, while a real event to it is (the receipt timeout still works)."""

from __future__ import annotations

import asyncio
import ssl
from pathlib import Path
from typing import Any

import aiohttp
from aiohttp import web

from hookproof_subscriber import (
    JwksKeyResolver,
    SigningKey,
    Subscriber,
    aiohttp_handler,
    public_jwk,
)

from ..daemon import free_port, start_daemon
from .receiver import QuickReceiver, dev_endpoint, engine_env, subscribe, tenant, wait_for

ORDER_TYPE = {
    "description": "An order was placed",
    "versions": {"1": {"schema": {"type": "object"}, "example": {"order": "ord_example"}}},
}


async def _view(http: aiohttp.ClientSession, base: str, did: str) -> dict[str, Any]:
    async with http.get(f"{base}/v1/deliveries/{did}") as r:
        assert r.status == 200
        return dict(await r.json())


async def _send_test(http: aiohttp.ClientSession, base: str, sid: str) -> str:
    async with http.post(f"{base}/v1/subscriptions/{sid}/test-events", json={}) as r:
        sent = await r.json()
        assert r.status == 202, sent
    [delivery] = sent["deliveries"]
    return str(delivery["deliveryId"])


async def test_a_test_event_is_confirmed_by_the_quick_start_receiver_and_sent_once(
    db_url: str, tmp_path: Path
) -> None:
    dev = dev_endpoint(tmp_path)
    # receipts overdue after 1 s: a test event the engine would send again is sent again here
    env = engine_env(db_url, tmp_path, dev, HOOKPROOF_RECEIPT_TIMEOUT="1")
    silent_port = free_port()
    env["HOOKPROOF_EGRESS_ALLOW"] += f",127.0.0.1:{silent_port}"
    daemon = await asyncio.to_thread(start_daemon, env, tmp_path)
    base = daemon.base_url
    receiver = await QuickReceiver.start(dev, base)
    silent: web.AppRunner | None = None
    try:
        token = await tenant(env, "acme")
        async with aiohttp.ClientSession(headers={"Authorization": f"Bearer {token}"}) as http:
            async with http.put(f"{base}/v1/event-types/order.created", json=ORDER_TYPE) as r:
                assert r.status == 200, await r.text()
            sid = await subscribe(http, base, receiver.url, receiver.receipt_key())
            did = await _send_test(http, base, sid)

            async def confirmed() -> bool:
                view = await _view(http, base, did)
                return bool(view["state"] == "APPLICATION_CONFIRMED")

            await wait_for(confirmed, 60)
            await asyncio.sleep(3)  # three receipt timeouts: nothing more is sent
            view = await _view(http, base, did)
            assert view["test"] is True and view["evidence"]["application"] == "CONFIRMED"
            assert len(view["attempts"]) == 1, view["attempts"]
            # confirmed, not applied: the receiver's application never saw it
            assert "applied hookproof-test-" not in receiver.output()

            # a receiver on the SDK whose receipts never reach the engine: the test event's
            # 2xx is its answer (sent once); a real event to it is sent again (control)
            silent, url, key = await _silent_receiver(dev.folder, silent_port, base)
            sid2 = await subscribe(http, base, url, key)
            test_did = await _send_test(http, base, sid2)
            event = {
                "eventId": "order-1",
                "topic": "order.created",
                "version": "1.0",
                "aggregateId": "order-1",
                "aggregateVersion": 1,
                "occurredAt": "2026-12-07T12:00:00Z",
                "payload": {"order": "ord_1"},
            }
            async with http.post(f"{base}/v1/events", json=event) as r:
                assert r.status == 202, await r.text()
                deliveries = (await r.json())["deliveries"]
            [real] = [d["deliveryId"] for d in deliveries if d["subscriptionId"] == sid2]

            async def resent() -> bool:
                return len((await _view(http, base, real))["attempts"]) >= 2

            await wait_for(resent, 30)
            test_view = await _view(http, base, test_did)
            assert test_view["state"] == "ENDPOINT_ACCEPTED"
            assert len(test_view["attempts"]) == 1, test_view["attempts"]
    finally:
        receiver.stop()
        if silent is not None:
            await silent.cleanup()
        await asyncio.to_thread(daemon.stop)


async def _silent_receiver(
    folder: Path, port: int, engine: str
) -> tuple[web.AppRunner, str, dict[str, Any]]:
    """An HTTPS receiver on the SDK (the dev-endpoint certificate, on another allowed port)
    that answers challenges with its receipt key and drops every receipt it would send."""
    key = SigningKey.generate_ed25519("rk-silent")
    url = f"https://127.0.0.1:{port}/hooks"

    async def dropped(receipt: Any) -> None:
        return None

    sdk = Subscriber(
        keys=JwksKeyResolver.for_engine(engine),
        on_event=lambda event: None,
        endpoint=url,
        receipt_key=key,
        receipt_sender=dropped,
    )
    app = web.Application()
    app.router.add_post("/hooks", aiohttp_handler(sdk))
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    tls = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    tls.load_cert_chain(folder / "cert.pem", folder / "key.pem")
    await web.TCPSite(runner, "127.0.0.1", port, ssl_context=tls).start()
    return runner, url, {"keyId": key.key_id, "publicKeyJwk": public_jwk(key)}
