"""The request side of an attempt in ``GET /v1/deliveries/{id}`` (issue 39, item 3): the
headers rebuilt from the delivery's events and the little recorded with the outcome, compared
with what a real HTTPS receiver got; signatures redacted; the body shown once, from the event's
stored body; tenants isolated. And the latency percentiles of ``attempt-stats``: bad
``interval`` refused with its code, percentiles served from the rollup."""

from __future__ import annotations

from collections.abc import AsyncIterator

import aiohttp
import msgspec
import pytest
from aiohttp.test_utils import TestServer

from hookproof.engine.runtime.daemon import Engine
from hookproof.schemas.api import SubscriptionCreate

from ..delivery.conftest import Subscriber, active_subscription, dispatch_all, publish
from ..delivery.stats_support import fold_stats
from ..live import Client


@pytest.fixture
async def base(engine: Engine) -> AsyncIterator[str]:
    server = TestServer(engine.app(), host="127.0.0.1")
    await server.start_server()
    yield str(server.make_url("")).rstrip("/")
    await server.close()


@pytest.mark.parametrize("profile", ["hookproof.sig.v1", "standard-webhooks.v1"])
async def test_the_request_shown_is_the_request_the_receiver_got(
    engine: Engine, base: str, subscriber: Subscriber, profile: str
) -> None:
    acme = await engine.tenants.create("acme")
    other = await engine.tenants.create("other")
    path = f"ok-{profile}"
    body = {
        "endpoint": subscriber.url(path),
        "topics": ["order.created"],
        "eventVersions": [1],
        "region": "eu",
        "signatureAlgorithm": "hmac-sha256",
        "signatureProfile": profile,
        "owner": "o",
    }
    state, secret = await engine.subscriptions.register(
        acme.tenant_id, msgspec.convert(body, SubscriptionCreate), actor="test"
    )
    assert secret is not None
    subscriber.secrets[path] = secret
    assert (await engine.services.challenger.run(state.subscription_id, actor="test"))["passed"]
    result = await publish(engine, acme.tenant_id, "evt-req", payload={"amount": 7, "note": "é"})
    await dispatch_all(engine)
    did = result.deliveries[0]["deliveryId"]
    got = subscriber.deliveries(path)[-1]
    async with aiohttp.ClientSession() as http:
        status, view = await Client(http, base, acme.token).call("GET", f"/v1/deliveries/{did}")
        o_status, o_view = await Client(http, base, other.token).call(
            "GET", f"/v1/deliveries/{did}"
        )
    assert status == 200, view
    assert (o_status, o_view["code"]) == (404, "delivery_not_found")
    request = view["attempts"][0]["request"]
    assert request["method"] == "POST" and request["target"] == subscriber.url(path)
    assert request["recorded"] is True
    sent = {k.lower(): v for k, v in got.headers.items()}
    shown = {k.lower(): v for k, v in request["headers"]}
    secret = {"signature-input", "signature", "webhook-signature"}
    for name, value in shown.items():
        assert name in sent, name  # every header shown was sent
        if name in secret:
            assert value == "[redacted]"
            assert sent[name] not in str(view)  # no signature value anywhere in the view
        else:
            assert value == sent[name], name  # traceparent, ids, digest, timestamp: as sent
    # every header the engine put on the request is shown (the transport's own are not)
    engine_made = {"content-type", "traceparent", "content-digest"} | {
        k for k in sent if k.startswith("webhook-") or k.startswith("signature")
    }
    assert engine_made <= set(shown)
    if profile == "standard-webhooks.v1":
        assert "webhook-timestamp" in shown and "signature" not in shown
    else:
        assert "signature-input" in shown and "webhook-timestamp" not in shown
    # the body: the event's canonical body, once per delivery
    body = view["requestBody"]
    assert body["text"].encode() == got.body and body["bytes"] == len(got.body)
    assert (body["truncated"], body["archived"]) == (False, False)


async def test_latency_percentiles_come_from_the_rollup_and_bad_input_is_refused(
    engine: Engine, base: str, subscriber: Subscriber
) -> None:
    acme = await engine.tenants.create("acme")
    other = await engine.tenants.create("other")
    fast = await active_subscription(engine, acme.tenant_id, subscriber.url("ok-fast"))
    slow = await active_subscription(engine, acme.tenant_id, subscriber.url("slow-lat"))
    for i in range(3):
        await publish(engine, acme.tenant_id, f"evt-l{i}")
    await dispatch_all(engine)
    await fold_stats(engine.store)
    async with aiohttp.ClientSession() as http:
        a = Client(http, base, acme.token)
        status, stats = await a.call(
            "GET", f"/v1/attempt-stats?subscriptionId={fast}&subscriptionId={slow}"
        )
        assert status == 200, stats
        by = {s["subscriptionId"]: s for s in stats["items"]}
        for sid in (fast, slow):
            lat = by[sid]["latency"]
            assert lat["count"] == 3 and 0 < lat["p50"] <= lat["p90"] <= lat["p99"]
            hours = [b for b in by[sid]["buckets"] if b["counts"]]
            assert sum(b["latency"]["count"] for b in hours) == 3
        # the slow endpoint answers after its delay: its median is the larger
        assert by[slow]["latency"]["p50"] > by[fast]["latency"]["p50"]
        status, days = await a.call(
            "GET", f"/v1/attempt-stats?subscriptionId={fast}&window=7d&interval=day"
        )
        assert status == 200 and days["items"][0]["interval"] == "day"
        assert len(days["items"][0]["buckets"]) == 7
        assert days["items"][0]["buckets"][-1]["latency"]["count"] == 3
        status, one = await a.call("GET", f"/v1/subscriptions/{fast}/attempt-stats")
        assert status == 200 and one["latency"]["count"] == 3
        for bad, code in (
            ("&interval=minute", "invalid_interval"),
            ("&interval=", "invalid_interval"),
            ("&window=1y", "invalid_window"),
        ):
            status, problem = await a.call("GET", f"/v1/attempt-stats?subscriptionId={fast}{bad}")
            assert (status, problem["code"]) == (400, code), bad
        # another tenant sees nothing of acme's latency
        status, problem = await Client(http, base, other.token).call(
            "GET", f"/v1/attempt-stats?subscriptionId={fast}"
        )
        assert (status, problem["code"]) == (404, "subscription_not_found")
