"""``POST /v1/subscriptions/{id}/test-events``: the catalogue's example reaches one real HTTPS
endpoint through the normal delivery path, marked as a test in the log and in its event; the
reserved id space; refusals with codes; tenants and consumers isolated."""

from __future__ import annotations

import json
import time
from typing import Any

import aiohttp
import pytest

from hookproof.engine.runtime.daemon import Engine
from hookproof.events.delivery_events import EventIngested, event_stream_id

from ..delivery.conftest import Subscriber, dispatch_all
from ..live import Client
from .conftest import event, new_tenant
from .test_portal import start_session

ORDER_TYPE = {
    "description": "An order was placed",
    "versions": {
        "1": {
            "schema": {"type": "object", "properties": {"order": {"type": "string"}}},
            "example": {"order": "ord_example"},
        }
    },
}


async def test_a_test_event_reaches_one_endpoint_and_says_it_is_a_test(
    engine: Engine, base: str, http: aiohttp.ClientSession, subscriber: Subscriber
) -> None:
    acme = await new_tenant(engine, http, base, "acme")
    other = await new_tenant(engine, http, base, "other")
    await acme.consumer("cust-a")
    await acme.consumer("cust-b")
    target = await acme.subscribe(subscriber.url("ok-target"), "cust-a")
    sibling = await acme.subscribe(subscriber.url("ok-sibling"), "cust-a")
    foreign = await acme.subscribe(subscriber.url("ok-foreign"), "cust-b")
    path = f"/v1/subscriptions/{target}/test-events"

    status, problem = await acme.call("POST", path, {})
    assert (status, problem["code"]) == (404, "event_type_not_found")  # nothing in the catalogue
    assert (await acme.call("PUT", "/v1/event-types/order.created", ORDER_TYPE))[0] == 200

    status, sent = await acme.call("POST", path, {})
    assert status == 202, sent
    assert sent["eventId"].startswith("hookproof-test-") and sent["test"] is True
    assert [d["subscriptionId"] for d in sent["deliveries"]] == [target]
    while await dispatch_all(engine):
        pass
    [got] = subscriber.deliveries("ok-target")
    body = json.loads(got.body)
    assert body["eventId"] == sent["eventId"] and body["payload"] == {"order": "ord_example"}
    assert subscriber.deliveries("ok-sibling") == [] and subscriber.deliveries("ok-foreign") == []

    status, page = await acme.call("GET", f"/v1/deliveries?eventId={sent['eventId']}")
    [item] = page["items"]
    assert item["test"] is True and item["state"] == "ENDPOINT_ACCEPTED"
    _, real = await acme.call("POST", "/v1/events", event("evt-real", "cust-a"))
    status, page = await acme.call("GET", "/v1/deliveries?eventId=evt-real")
    assert {i["test"] for i in page["items"]} == {False}
    status, view = await acme.call("GET", f"/v1/deliveries/{item['deliveryId']}")
    assert view["test"] is True
    [first] = await engine.store.read_stream(
        event_stream_id(acme.tenant_id, sent["eventId"]), to_version=1
    )
    ingested = first.decode()
    assert isinstance(ingested, EventIngested) and ingested.test is True

    # the consumer's own portal session may test its endpoint, not another consumer's
    session = await start_session(acme, "cust-a")
    portal = Client(http, base, session["token"])
    status, out = await portal.call("POST", path, {"topic": "order.created", "version": 1})
    assert status == 202 and out["deliveries"][0]["subscriptionId"] == target
    status, _ = await portal.call("POST", f"/v1/subscriptions/{foreign}/test-events", {})
    assert status == 404
    # another tenant: the subscription does not exist for it
    status, problem = await other.call("POST", path, {})
    assert (status, problem["code"]) == (404, "subscription_not_found")
    assert sibling  # untouched above

    # refusals, each with its code; nothing is ingested by any of them
    before = len(subscriber.deliveries())
    for body_in, code in (
        ({"topic": "invoice.paid"}, "topic_not_subscribed"),
        ({"version": 7}, "no_example"),
        ({"colour": "red"}, "invalid_request"),
    ):
        status, problem = await acme.call("POST", path, body_in)
        assert status in (400, 409, 422) and problem["code"] == code, (body_in, problem)
    status, problem = await acme.call("POST", "/v1/events", event("hookproof-test-0123", "cust-a"))
    assert (status, problem["code"]) == (400, "reserved_event_id")
    status, problem = await acme.call("POST", "/v1/subscriptions/sub_nope/test-events", {})
    assert (status, problem["code"]) == (400, "invalid_id")
    await acme.call("POST", f"/v1/subscriptions/{target}/revoke", {})
    status, problem = await acme.call("POST", path, {})
    assert (status, problem["code"]) == (409, "subscription_not_active")
    while await dispatch_all(engine):
        pass
    assert len(subscriber.deliveries()) == before + 1  # evt-real's one delivery only
    assert real["deliveries"]


@pytest.mark.solo  # timing across processes: after the parallel part, alone (Makefile)
async def test_test_events_are_rate_limited_per_caller_with_a_429_and_retry_after(
    engine: Engine, base: str, http: aiohttp.ClientSession, subscriber: Subscriber
) -> None:
    """A portal link sending test events without end (issue 46: 300 in 11 s wrote 1,200
    events) gets its burst, then 429 ``rate_limited`` with ``Retry-After``, nothing ingested;
    the tenant's own token and another tenant are not held by that caller's budget."""
    from hookproof.engine.api.test_events import (
        TENANT_TEST_EVENT_BURST,
        TENANT_TEST_EVENTS_PER_S,
        TEST_EVENT_BURST,
    )

    acme = await new_tenant(engine, http, base, "acme")
    other = await new_tenant(engine, http, base, "other")
    await acme.consumer("cust-a")
    await other.consumer("cust-o")
    target = await acme.subscribe(subscriber.url("ok-target"), "cust-a")
    theirs = await other.subscribe(subscriber.url("ok-theirs"), "cust-o")
    for t in (acme, other):
        assert (await t.call("PUT", "/v1/event-types/order.created", ORDER_TYPE))[0] == 200
    session = await start_session(acme, "cust-a")
    path = f"/v1/subscriptions/{target}/test-events"

    async def events_now() -> int:
        return int(await engine.pool.fetchval("SELECT count(*) FROM events"))

    first = time.monotonic()  # the tenant's budget starts being spent here
    codes: list[int] = []
    refused: list[tuple[dict[str, Any], str | None, str]] = []
    for _ in range(int(TEST_EVENT_BURST) + 20):
        before = await events_now()
        async with http.post(
            base + path, json={}, headers={"Authorization": f"Bearer {session['token']}"}
        ) as r:
            codes.append(r.status)
            if r.status == 429:
                refused.append((await r.json(), r.headers.get("Retry-After"), r.content_type))
                assert await events_now() == before  # nothing ingested, nothing written
    assert codes[: int(TEST_EVENT_BURST)] == [202] * int(TEST_EVENT_BURST), codes
    assert codes.count(429) >= 19, codes  # one more token at most refilled meanwhile
    problem, retry_after, content_type = refused[0]
    assert content_type == "application/problem+json"
    assert problem["code"] == "rate_limited" and problem["status"] == 429
    assert retry_after is not None and 1 <= int(retry_after) <= 2
    # the tenant itself and another tenant are not held by the portal link's budget
    status, sent = await acme.call("POST", path, {})
    assert status == 202, sent
    status, sent = await other.call("POST", f"/v1/subscriptions/{theirs}/test-events", {})
    assert status == 202, sent
    # however many portal sessions the tenant opens, all of them together have the tenant's
    # budget (30 at once, 2 a second)
    accepted = sum(c == 202 for c in codes) + 1  # the portal link's and the tenant's own
    for _ in range(4):
        more = await start_session(acme, "cust-a")
        for _ in range(int(TEST_EVENT_BURST)):
            async with http.post(
                base + path, json={}, headers={"Authorization": f"Bearer {more['token']}"}
            ) as r:
                accepted += r.status == 202
                assert r.status in (202, 429)
    cap = TENANT_TEST_EVENT_BURST + TENANT_TEST_EVENTS_PER_S * (time.monotonic() - first) + 1
    assert accepted <= cap, (accepted, cap)
    assert accepted < int(TEST_EVENT_BURST) * 5 + 1  # the callers' own budgets alone: 51
