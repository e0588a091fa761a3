"""The ordering fields through the API: documented, validated, changed by PATCH without a new
generation; skip through the API; notifications are never held by ordering."""

from __future__ import annotations

from collections.abc import AsyncIterator

import aiohttp
import pytest
from aiohttp.test_utils import TestServer

from hookproof.engine.api.openapi import openapi_document
from hookproof.engine.runtime.daemon import Engine

from ..delivery.conftest import Subscriber, active_subscription, dispatch_all, publish
from ..live import Client
from ..support import log_settled


@pytest.fixture
async def base(engine: Engine) -> AsyncIterator[str]:
    server = TestServer(engine.app(), host="127.0.0.1")
    await server.start_server()
    yield str(server.make_url("")).rstrip("/")
    await server.close()


async def test_ordering_fields_and_skip_over_the_api(
    engine: Engine, base: str, subscriber: Subscriber
) -> None:
    schema = openapi_document()["components"]["schemas"]
    assert set(schema["SubscriptionCreate"]["properties"]["ordering"]["enum"]) == {
        "none",
        "aggregate",
    }
    assert "orderingGapTimeoutS" in schema["SubscriptionPatch"]["properties"]
    assert "/v1/deliveries/{id}/skip" in openapi_document()["paths"]
    acme = await engine.tenants.create("acme")
    other = await engine.tenants.create("other")
    sid = await active_subscription(
        engine, acme.tenant_id, subscriber.url("fail500-api"), retryPolicy={"maxAttempts": 1}
    )
    async with aiohttp.ClientSession() as http:
        a = Client(http, base, acme.token)
        status, sub = await a.call("GET", f"/v1/subscriptions/{sid}")
        assert (sub["ordering"], sub["orderingGapTimeoutS"]) == ("none", 60)
        async with http.patch(
            f"{base}/v1/subscriptions/{sid}",
            json={"ordering": "aggregate", "orderingGapTimeoutS": 5},
            headers={"Authorization": f"Bearer {acme.token}", "If-Match": '"1"'},
        ) as r:
            patched = await r.json()
            assert r.status == 200, patched
        assert (patched["ordering"], patched["orderingGapTimeoutS"]) == ("aggregate", 5)
        assert patched["generation"] == 1 and patched["state"] == "ACTIVE"
        async with http.patch(
            f"{base}/v1/subscriptions/{sid}",
            json={"orderingGapTimeoutS": -1},
            headers={"Authorization": f"Bearer {acme.token}", "If-Match": '"1"'},
        ) as r:
            assert r.status == 400 and (await r.json())["field"] == "orderingGapTimeoutS"

        result = await publish(engine, acme.tenant_id, "e-1", aggregateVersion=1)
        [did] = [d["deliveryId"] for d in result.deliveries]
        await dispatch_all(engine)
        status, view = await a.call("GET", f"/v1/deliveries/{did}")
        assert view["state"] == "DEAD_LETTER" and view["ordering"]["aggregateVersion"] == 1
        assert view["deadLetter"]["skip"] == f"POST /v1/deliveries/{did}/skip"
        # another tenant cannot skip it, nor learn it exists
        status, problem = await Client(http, base, other.token).call(
            "POST", f"/v1/deliveries/{did}/skip"
        )
        assert status == 404 and problem["code"] == "delivery_not_found"
        status, view = await a.call("POST", f"/v1/deliveries/{did}/skip")
        assert status == 200 and view["state"] == "SKIPPED"
        status, problem = await a.call("POST", f"/v1/deliveries/{did}/skip")
        assert status == 409 and problem["code"] == "skip_not_allowed"
        status, tl = await a.call("GET", f"/v1/deliveries/{did}/timeline")
        assert tl["entries"][-1]["type"] == "delivery.skipped"
        assert tl["entries"][-1]["state"] == "SKIPPED"


async def test_notifications_are_never_held_by_ordering(
    engine: Engine, subscriber: Subscriber
) -> None:
    tenant = (await engine.tenants.create("acme")).tenant_id
    await active_subscription(
        engine, tenant, subscriber.url("fail500-n"), retryPolicy={"maxAttempts": 1}
    )
    await active_subscription(
        engine,
        tenant,
        subscriber.url("ok-listener"),
        topics=["hookproof.delivery.dead_lettered"],
        ordering="aggregate",
    )
    await publish(engine, tenant, "e-1")
    await dispatch_all(engine)
    await log_settled(engine.store.pool)
    await engine.services.notifier.run_once()
    await dispatch_all(engine)  # version 3 of a delivery stream: not held waiting for 1 and 2
    assert len(subscriber.deliveries("ok-listener")) == 1
