"""Event ids are unique per tenant, not globally (DESIGN section 11, "Tenancy of event ids").

Two tenants on one engine, each with its own subscriber path, talking to the real API over a
loopback socket. Every test here failed when ``event_bodies`` was keyed by ``event_id`` alone.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import aiohttp
import pytest
from aiohttp.test_utils import TestServer

from hookproof.engine.runtime.daemon import Engine
from hookproof.events.delivery_events import event_stream_id

from .conftest import Subscriber, active_subscription, dispatch_all


@dataclass
class Tenant:
    tenant_id: str
    token: str
    subscription_id: str
    path: str


class Api:
    def __init__(self, session: aiohttp.ClientSession, base: str) -> None:
        self.session = session
        self.base = base

    async def call(self, method: str, path: str, token: str, body: Any = None) -> tuple[int, Any]:
        headers = {"Authorization": f"Bearer {token}"}
        async with self.session.request(
            method, self.base + path, json=body, headers=headers
        ) as resp:
            return resp.status, await resp.json(content_type=None)

    async def post_event(self, t: Tenant, event_id: str, payload: Any) -> tuple[int, Any]:
        return await self.call("POST", "/v1/events", t.token, event(event_id, payload))


def event(event_id: str, payload: Any) -> dict[str, Any]:
    return {
        "eventId": event_id,
        "topic": "order.created",
        "version": "1.0",
        "aggregateId": "order-1",
        "aggregateVersion": 1,
        "occurredAt": "2026-11-30T10:00:00Z",
        "payload": payload,
    }


@pytest.fixture
async def api(engine: Engine) -> AsyncIterator[Api]:
    server = TestServer(engine.app(), host="127.0.0.1")
    await server.start_server()
    async with aiohttp.ClientSession() as session:
        yield Api(session, str(server.make_url("")).rstrip("/"))
    await server.close()


async def _tenant(engine: Engine, subscriber: Subscriber, name: str) -> Tenant:
    issued = await engine.tenants.create(name)
    path = f"ok-{name}"
    sid = await active_subscription(engine, issued.tenant_id, subscriber.url(path))
    return Tenant(issued.tenant_id, issued.token, sid, path)


@pytest.fixture
async def a(engine: Engine, subscriber: Subscriber) -> Tenant:
    return await _tenant(engine, subscriber, "alpha")


@pytest.fixture
async def b(engine: Engine, subscriber: Subscriber) -> Tenant:
    return await _tenant(engine, subscriber, "beta")


def bodies(subscriber: Subscriber, t: Tenant) -> list[dict[str, Any]]:
    return [json.loads(r.body) for r in subscriber.deliveries(t.path)]


async def test_another_tenant_posting_the_id_first_does_not_affect_the_owner(
    engine: Engine, api: Api, subscriber: Subscriber, a: Tenant, b: Tenant
) -> None:
    # B squats A's next event id, once with another payload and once with A's exact payload
    assert (await api.post_event(b, "order-1001", {"amount": 1}))[0] == 202
    assert (await api.post_event(b, "order-1002", {"amount": 7}))[0] == 202

    status, other = await api.post_event(a, "order-1001", {"amount": 99})
    assert status == 202, other  # not 409: B's event is not A's
    assert other["created"] is True
    assert [d["subscriptionId"] for d in other["deliveries"]] == [a.subscription_id]
    status, same = await api.post_event(a, "order-1002", {"amount": 7})
    assert status == 202 and same["created"] is True  # not "already ingested" by B
    assert [d["subscriptionId"] for d in same["deliveries"]] == [a.subscription_id]

    await dispatch_all(engine)
    got = sorted((x["eventId"], x["payload"]["amount"]) for x in bodies(subscriber, a))
    assert got == [("order-1001", 99), ("order-1002", 7)]
    got_b = sorted((x["eventId"], x["payload"]["amount"]) for x in bodies(subscriber, b))
    assert got_b == [("order-1001", 1), ("order-1002", 7)]
    for t, d in ((a, other), (a, same)):
        status, view = await api.call(
            "GET", f"/v1/deliveries/{d['deliveries'][0]['deliveryId']}", t.token
        )
        assert status == 200 and view["state"] == "ENDPOINT_ACCEPTED"


async def test_a_conflict_never_carries_another_tenants_digest(
    api: Api, a: Tenant, b: Tenant
) -> None:
    _, mine = await api.post_event(a, "evt-secret", {"card": "4111"})
    status, theirs = await api.post_event(b, "evt-secret", {"guess": 1})
    assert status == 202 and theirs["payloadDigest"] != mine["payloadDigest"]
    status, problem = await api.post_event(b, "evt-secret", {"guess": 2})
    assert status == 409 and problem["code"] == "event_payload_conflict"
    assert problem["payloadDigest"] == theirs["payloadDigest"]
    assert mine["payloadDigest"] not in json.dumps(problem)
    # and the owner's own idempotency still holds
    status, again = await api.post_event(a, "evt-secret", {"card": "4111"})
    assert status == 202 and again["created"] is False
    assert again["deliveries"] == mine["deliveries"]


async def test_the_same_payload_from_another_tenant_never_returns_the_owners_ids(
    engine: Engine, api: Api, a: Tenant, b: Tenant
) -> None:
    _, mine = await api.post_event(a, "evt-copy", {"amount": 5})
    status, theirs = await api.post_event(b, "evt-copy", {"amount": 5})
    assert status == 202 and theirs["created"] is True
    # same bytes, same digest (the canonical body has no tenant in it) ...
    assert theirs["payloadDigest"] == mine["payloadDigest"]
    # ... but none of A's ids
    text = json.dumps(theirs)
    assert a.subscription_id not in text
    assert all(d["deliveryId"] not in text for d in mine["deliveries"])
    assert [d["subscriptionId"] for d in theirs["deliveries"]] == [b.subscription_id]
    status, again = await api.post_event(b, "evt-copy", {"amount": 5})
    assert status == 202 and again["created"] is False
    assert again["deliveries"] == theirs["deliveries"]
    # GET /v1/events/{id} answers each tenant with its own event only
    status, view_b = await api.call("GET", "/v1/events/evt-copy", b.token)
    assert status == 200
    assert [d["subscriptionId"] for d in view_b["deliveries"]] == [b.subscription_id]
    status, _ = await api.call("GET", "/v1/events/evt-only-a", b.token)
    assert status == 404
    await api.post_event(a, "evt-only-a", {"amount": 1})
    status, problem = await api.call("GET", "/v1/events/evt-only-a", b.token)
    assert status == 404 and problem["code"] == "event_not_found"


async def test_another_tenant_cannot_append_to_the_owners_event_stream(
    engine: Engine, api: Api, a: Tenant, b: Tenant
) -> None:
    await api.post_event(a, "evt-stream", {"amount": 1})
    await api.post_event(b, "evt-stream", {"amount": 2})
    for i in range(3):
        status, _ = await api.post_event(b, "evt-stream", {"amount": 10 + i})
        assert status == 409
    a_stream = await engine.store.read_stream(event_stream_id(a.tenant_id, "evt-stream"))
    b_stream = await engine.store.read_stream(event_stream_id(b.tenant_id, "evt-stream"))
    assert [e.type for e in a_stream] == ["event.ingested"]
    assert [e.type for e in b_stream] == ["event.ingested"] + ["event.payload_conflict"] * 3
    assert all(e.meta().actor == f"tenant:{b.tenant_id}" for e in b_stream)
    assert await engine.store.read_stream("event-evt-stream") == []


async def test_two_tenants_same_ids_different_payloads_concurrently(
    engine: Engine, api: Api, subscriber: Subscriber, a: Tenant, b: Tenant
) -> None:
    ids = [f"evt-c{i}" for i in range(25)]

    async def post(t: Tenant, i: int) -> tuple[Tenant, str, int, Any]:
        status, body = await api.post_event(t, ids[i], {"who": t.tenant_id, "i": i})
        return t, ids[i], status, body

    # each tenant posts every id twice, interleaved with the other tenant's posts
    jobs = [post(t, i) for i in range(len(ids)) for t in (a, b, b, a)]
    answers = await asyncio.gather(*jobs)
    first: dict[tuple[str, str], Any] = {}
    for t, eid, status, body in answers:
        assert status == 202, body
        assert [d["subscriptionId"] for d in body["deliveries"]] == [t.subscription_id]
        key = (t.tenant_id, eid)
        if key in first:
            assert body["payloadDigest"] == first[key]["payloadDigest"]
            assert body["deliveries"] == first[key]["deliveries"]
        else:
            first[key] = body
    created = [body["created"] for _, _, _, body in answers]
    assert created.count(True) == 2 * len(ids)  # one creation per (tenant, eventId)
    for eid in ids:
        assert (
            first[(a.tenant_id, eid)]["payloadDigest"] != first[(b.tenant_id, eid)]["payloadDigest"]
        )
        for t in (a, b):
            status, view = await api.call("GET", f"/v1/events/{eid}", t.token)
            assert status == 200
            assert view["payloadDigest"] == first[(t.tenant_id, eid)]["payloadDigest"]
            assert [d["subscriptionId"] for d in view["deliveries"]] == [t.subscription_id]

    for _ in range(100):  # a claim takes a bounded batch: claim until nothing is due
        if not await dispatch_all(engine):
            break
    for t in (a, b):
        got = bodies(subscriber, t)
        assert sorted(x["eventId"] for x in got) == sorted(ids)
        assert {x["payload"]["who"] for x in got} == {t.tenant_id}
