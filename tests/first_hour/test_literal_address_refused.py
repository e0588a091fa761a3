"""The quick start's engine restarted without the ``hookproof dev-endpoint`` exports: the
receiver's literal address (no DNS involved) is no longer allowed, and the subscription says
so: ``endpoint_ip_forbidden`` (never ``dns_rebinding_denied``) with a detail naming the address
and the setting that would allow it; the operator log names ``HOOKPROOF_EGRESS_ALLOW`` too."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from ..daemon import free_port, start_daemon
from .receiver import QuickReceiver, dev_endpoint, engine_env, subscribe, tenant, wait_for


def _event(n: int) -> dict[str, Any]:
    return {
        "eventId": f"order-{n}",
        "topic": "order.created",
        "version": "1.0",
        "aggregateId": "order",
        "aggregateVersion": n,
        "occurredAt": "2026-12-07T12:00:00Z",
        "payload": {"n": n},
    }


@pytest.mark.solo  # a restart races its drift check with the claim: alone, after the parallel part
async def test_a_literal_address_no_longer_allowed_is_reported_as_not_allowed(
    db_url: str, tmp_path: Path
) -> None:
    dev = dev_endpoint(tmp_path)
    with_exports = engine_env(db_url, tmp_path, dev)
    port = free_port()
    daemon = await asyncio.to_thread(start_daemon, with_exports, tmp_path, port=port)
    base = daemon.base_url
    receiver = await QuickReceiver.start(dev, base)
    try:
        token = await tenant(with_exports, "acme")
        auth = {"Authorization": f"Bearer {token}"}
        async with aiohttp.ClientSession(headers=auth) as http:
            sid = await subscribe(http, base, receiver.url, receiver.receipt_key())
            async with http.post(f"{base}/v1/events", json=_event(1)) as r:
                assert r.status == 202, await r.text()
            await wait_for(lambda: "applied order-1" in receiver.output(), 60)

            # the same engine, its database and port, started again without the two exports
            await asyncio.to_thread(daemon.stop)
            without = engine_env(db_url, tmp_path, None)
            daemon = await asyncio.to_thread(start_daemon, without, tmp_path, port=port)
            async with http.post(f"{base}/v1/events", json=_event(2)) as r:
                assert r.status == 202, await r.text()
                [did] = [d["deliveryId"] for d in (await r.json())["deliveries"]]

            async def view() -> dict[str, Any]:
                async with http.get(f"{base}/v1/subscriptions/{sid}") as r:
                    return dict(await r.json())

            async def suspended() -> bool:
                return bool((await view())["state"] == "SUSPENDED")

            await wait_for(suspended, 60)
            doc = await view()
            assert doc["lastReason"] == "endpoint_ip_forbidden", doc
            detail = doc["lastReasonDetail"]
            assert "127.0.0.1" in detail and "no DNS is involved" in detail, detail
            assert f"HOOKPROOF_EGRESS_ALLOW=127.0.0.1:{dev.port}" in detail, detail
            async with http.get(f"{base}/v1/subscriptions/{sid}/history") as r:
                history = (await r.json())["items"]
            reasons = {e["data"].get("reason") for e in history}
            assert "endpoint_ip_forbidden" in reasons and "dns_rebinding_denied" not in reasons
            # the delivery's attempt says the same, in the same words
            async with http.get(f"{base}/v1/deliveries/{did}") as r:
                delivery = await r.json()
            assert delivery["lastCode"] == "endpoint_ip_forbidden", delivery
            assert f"HOOKPROOF_EGRESS_ALLOW=127.0.0.1:{dev.port}" in delivery["lastCodeDetail"]
        assert "applied order-2" not in receiver.output()  # nothing was sent to it
        lines = [json.loads(x) for x in daemon.log().splitlines() if x.startswith("{")]
        suspend = [x for x in lines if x.get("event") == "drift_suspend"]
        assert suspend and suspend[0]["reason"] == "endpoint_ip_forbidden", suspend
        assert suspend[0]["allow_with"] == f"HOOKPROOF_EGRESS_ALLOW=127.0.0.1:{dev.port}"
    finally:
        receiver.stop()
        await asyncio.to_thread(daemon.stop)
