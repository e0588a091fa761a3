"""Consumers over the API: the lifecycle as events, bad input, tenancy, and routing by
consumer through real HTTPS deliveries (an event for consumer A never reaches B's or
consumer-less endpoints)."""

from __future__ import annotations

import json

import aiohttp
import pytest

from hookproof.engine.runtime.daemon import Engine
from hookproof.events.consumer_events import consumer_stream_id

from ..delivery.conftest import Subscriber, dispatch_all
from ..live import ADMIN_TOKEN, Client
from .conftest import event, new_tenant


async def test_lifecycle_is_events_in_the_consumer_stream(
    engine: Engine, base: str, http: aiohttp.ClientSession
) -> None:
    acme = await new_tenant(engine, http, base, "acme")
    status, created = await acme.call(
        "POST",
        "/v1/consumers",
        {"id": "cust-42", "name": "Customer 42", "metadata": {"plan": "pro"}},
    )
    assert status == 201, created
    assert created["id"] == "cust-42" and created["state"] == "ACTIVE"
    assert created["metadata"] == {"plan": "pro"}
    status, again = await acme.call("POST", "/v1/consumers", {"id": "cust-42", "name": "x"})
    assert status == 409 and again["code"] == "consumer_exists"

    status, patched = await acme.call("PATCH", "/v1/consumers/cust-42", {"name": "Customer 42 Ltd"})
    assert status == 200 and patched["name"] == "Customer 42 Ltd"
    assert patched["metadata"] == {"plan": "pro"}
    status, disabled = await acme.call("POST", "/v1/consumers/cust-42/disable", {"reason": "churn"})
    assert status == 200 and disabled["state"] == "DISABLED" and disabled["disabled"] is True
    status, read = await acme.call("GET", "/v1/consumers/cust-42")
    assert status == 200 and read["name"] == "Customer 42 Ltd" and read["disabled"] is True

    events = await engine.store.read_stream(consumer_stream_id(acme.tenant_id, "cust-42"))
    assert [e.type for e in events] == ["consumer.created", "consumer.updated", "consumer.disabled"]
    assert {e.meta().actor for e in events} == {f"tenant:{acme.tenant_id}"}


async def test_list_is_paged_in_creation_order(
    engine: Engine, base: str, http: aiohttp.ClientSession
) -> None:
    acme = await new_tenant(engine, http, base, "acme")
    for i in range(5):
        await acme.consumer(f"c{i}")
    seen: list[str] = []
    cursor = None
    while True:
        path = "/v1/consumers?limit=2" + (f"&cursor={cursor}" if cursor else "")
        status, page = await acme.call("GET", path)
        assert status == 200 and len(page["items"]) <= 2
        seen += [c["id"] for c in page["items"]]
        cursor = page["nextCursor"]
        if cursor is None:
            break
    assert seen == [f"c{i}" for i in range(5)]
    status, problem = await acme.call("GET", "/v1/consumers?cursor=bm9wZQ")
    assert status == 400 and problem["code"] == "invalid_cursor"


@pytest.mark.parametrize(
    ("method", "path", "body"),
    [
        ("GET", "/v1/consumers/has%20space", None),
        ("GET", "/v1/consumers/" + "x" * 65, None),
        ("PATCH", "/v1/consumers/" + "x" * 65, {"name": "n"}),
        ("POST", "/v1/consumers/" + "x" * 65 + "/disable", None),
        ("POST", "/v1/consumers/" + "x" * 65 + "/portal-sessions", None),
        ("POST", "/v1/consumers", {"id": "no/slash", "name": "n"}),
        ("POST", "/v1/consumers", {"id": "", "name": "n"}),
        ("DELETE", "/v1/portal-sessions/ps_nothex", None),
    ],
)
async def test_ids_outside_their_format_are_400(
    engine: Engine, base: str, http: aiohttp.ClientSession, method: str, path: str, body: object
) -> None:
    acme = await new_tenant(engine, http, base, "acme")
    status, problem = await acme.call(method, path, body)
    assert status == 400 and problem["code"] == "invalid_id", problem


async def test_bad_bodies_are_400_and_write_nothing(
    engine: Engine, base: str, http: aiohttp.ClientSession
) -> None:
    acme = await new_tenant(engine, http, base, "acme")
    big = {"k": "v" * 5000}
    status, problem = await acme.call(
        "POST", "/v1/consumers", {"id": "a", "name": "a", "metadata": big}
    )
    assert status == 400 and problem["code"] == "metadata_too_large"
    status, problem = await acme.call("POST", "/v1/consumers", {"id": "a", "name": ""})
    assert status == 400 and problem["field"] == "name"
    status, problem = await acme.call("POST", "/v1/consumers", {"id": "a", "name": "a", "x": 1})
    assert status == 400
    status, _ = await acme.call("GET", "/v1/consumers/a")
    assert status == 404
    await acme.consumer("a")
    status, problem = await acme.call("PATCH", "/v1/consumers/a", {"metadata": big})
    assert status == 400 and problem["code"] == "metadata_too_large"
    status, problem = await acme.call("GET", "/v1/consumers/nobody")
    assert status == 404 and problem["code"] == "consumer_not_found"


async def test_subscription_consumer_is_checked_and_immutable(
    engine: Engine, base: str, http: aiohttp.ClientSession, subscriber: Subscriber
) -> None:
    acme = await new_tenant(engine, http, base, "acme")
    await acme.consumer("cust-a")
    await acme.consumer("cust-b")
    await acme.consumer("gone")
    await acme.call("POST", "/v1/consumers/gone/disable")
    body = {
        "endpoint": subscriber.url("ok-x"),
        "topics": ["order.created"],
        "eventVersions": [1],
        "region": "eu",
        "signatureAlgorithm": "ed25519",
        "owner": "o",
    }
    for consumer, code in [
        ("nobody", "unknown_consumer"),
        ("gone", "consumer_disabled"),
        ("bad id", "invalid_id"),
    ]:
        status, problem = await acme.call(
            "POST", "/v1/subscriptions", {**body, "consumerId": consumer}
        )
        assert status == 400 and problem["code"] == code, problem
        assert problem["field"] == "consumerId"
    status, page = await acme.call("GET", "/v1/subscriptions")
    assert page["items"] == []  # nothing half-written

    sid = await acme.subscribe(subscriber.url("ok-a"), "cust-a")
    status, sub = await acme.call("GET", f"/v1/subscriptions/{sid}")
    assert sub["consumerId"] == "cust-a"
    for value in ("cust-b", None):
        status, problem = await http_patch(
            acme.client, sid, {"consumerId": value}, sub["generation"]
        )
        assert status == 400 and problem["code"] == "immutable_field", problem
    status, same = await http_patch(
        acme.client, sid, {"consumerId": "cust-a", "owner": "o2"}, sub["generation"]
    )
    assert status == 200 and same["consumerId"] == "cust-a" and same["owner"] == "o2"
    status, listed = await acme.call("GET", "/v1/subscriptions?consumerId=cust-b")
    assert status == 200 and listed["items"] == []
    status, listed = await acme.call("GET", "/v1/subscriptions?consumerId=cust-a")
    assert [s["id"] for s in listed["items"]] == [sid]


async def http_patch(client: Client, sid: str, body: object, generation: int) -> tuple[int, object]:
    async with client.http.patch(
        f"{client.base}/v1/subscriptions/{sid}",
        json=body,
        headers={"Authorization": f"Bearer {client.token}", "If-Match": f'"{generation}"'},
    ) as r:
        return r.status, await r.json(content_type=None)


async def test_events_for_unknown_or_disabled_consumers_are_400_and_write_nothing(
    engine: Engine, base: str, http: aiohttp.ClientSession
) -> None:
    acme = await new_tenant(engine, http, base, "acme")
    await acme.consumer("live")
    await acme.consumer("gone")
    await acme.call("POST", "/v1/consumers/gone/disable")
    for consumer, code in [
        ("nobody", "unknown_consumer"),
        ("gone", "consumer_disabled"),
        ("not valid!", "invalid_id"),
    ]:
        status, problem = await acme.call("POST", "/v1/events", event(f"e-{code}", consumer))
        assert status == 400 and problem["code"] == code, problem
        status, _ = await acme.call("GET", f"/v1/events/e-{code}")
        assert status == 404
    status, out = await acme.call(
        "POST",
        "/v1/events/batch",
        {
            "events": [
                event("b-1", "live"),
                event("b-2", "nobody"),
                event("b-3", "gone"),
                event("b-4"),
            ]
        },
    )
    assert status == 200
    assert [r["status"] for r in out["results"]] == [202, 400, 400, 202]
    assert [r.get("problem", {}).get("code") for r in out["results"]] == [
        None,
        "unknown_consumer",
        "consumer_disabled",
        None,
    ]
    assert (await acme.call("GET", "/v1/events/b-2"))[0] == 404
    assert (await acme.call("GET", "/v1/events/b-1"))[0] == 200


async def test_one_tenant_never_sees_another_tenants_consumers(
    engine: Engine, base: str, http: aiohttp.ClientSession, subscriber: Subscriber
) -> None:
    acme = await new_tenant(engine, http, base, "acme")
    globex = await new_tenant(engine, http, base, "globex")
    await acme.consumer("shared-id", "Acme's")
    status, listed = await globex.call("GET", "/v1/consumers")
    assert status == 200 and listed["items"] == []
    for method, path in [
        ("GET", "/v1/consumers/shared-id"),
        ("PATCH", "/v1/consumers/shared-id"),
        ("POST", "/v1/consumers/shared-id/disable"),
        ("POST", "/v1/consumers/shared-id/portal-sessions"),
    ]:
        status, problem = await globex.call(
            method, path, {"name": "x"} if method == "PATCH" else None
        )
        assert status == 404 and problem["code"] == "consumer_not_found", (path, problem)
    status, problem = await globex.call("POST", "/v1/events", event("g-1", "shared-id"))
    assert status == 400 and problem["code"] == "unknown_consumer"
    status, problem = await globex.call(
        "POST",
        "/v1/subscriptions",
        {
            "endpoint": subscriber.url("ok-g"),
            "topics": ["t"],
            "eventVersions": [1],
            "region": "eu",
            "signatureAlgorithm": "ed25519",
            "owner": "o",
            "consumerId": "shared-id",
        },
    )
    assert status == 400 and problem["code"] == "unknown_consumer"
    # the same id is free for globex, and stays apart from acme's
    await globex.consumer("shared-id", "Globex's")
    status, mine = await acme.call("GET", "/v1/consumers/shared-id")
    assert mine["name"] == "Acme's"
    status, listed = await globex.call("GET", "/v1/consumers")
    assert [c["name"] for c in listed["items"]] == ["Globex's"]


async def test_operator_provisions_tenants(
    engine: Engine, base: str, http: aiohttp.ClientSession
) -> None:
    op = Client(http, base, ADMIN_TOKEN)
    status, out = await op.call("POST", "/v1/tenants", {"name": "initech"})
    assert status == 201 and set(out) == {"tenantId", "token"}
    new = Client(http, base, out["token"])
    assert await new.call("GET", "/v1/whoami") == (
        200,
        {"kind": "tenant", "tenantId": out["tenantId"]},
    )
    acme = await new_tenant(engine, http, base, "acme")
    status, problem = await acme.call("POST", "/v1/tenants", {"name": "x"})
    assert status == 403 and problem["code"] == "operator_only"  # valid, of the wrong kind
    status, problem = await op.call("POST", "/v1/tenants", {"name": ""})
    assert status == 400 and problem["field"] == "name"
    events = await engine.store.read_stream(f"tenant-{out['tenantId']}")
    assert [e.type for e in events] == ["tenant.created", "tenant.token_issued"]
    assert out["token"].encode() not in b"".join(e.data for e in events)


async def test_events_reach_only_their_consumers_endpoints(
    engine: Engine, base: str, http: aiohttp.ClientSession, subscriber: Subscriber
) -> None:
    acme = await new_tenant(engine, http, base, "acme")
    await acme.consumer("cust-a")
    await acme.consumer("cust-b")
    sub_a = await acme.subscribe(subscriber.url("ok-a"), "cust-a")
    sub_b = await acme.subscribe(subscriber.url("ok-b"), "cust-b")
    sub_none = await acme.subscribe(subscriber.url("ok-none"))

    status, out_a = await acme.call("POST", "/v1/events", event("evt-a", "cust-a"))
    assert status == 202 and [d["subscriptionId"] for d in out_a["deliveries"]] == [sub_a]
    status, out_b = await acme.call("POST", "/v1/events", event("evt-b", "cust-b"))
    assert [d["subscriptionId"] for d in out_b["deliveries"]] == [sub_b]
    status, out_n = await acme.call("POST", "/v1/events", event("evt-none"))
    assert [d["subscriptionId"] for d in out_n["deliveries"]] == [sub_none]
    status, batch = await acme.call(
        "POST",
        "/v1/events/batch",
        {"events": [event("bat-a", "cust-a"), event("bat-b", "cust-b"), event("bat-none")]},
    )
    assert [[d["subscriptionId"] for d in r["deliveries"]] for r in batch["results"]] == [
        [sub_a],
        [sub_b],
        [sub_none],
    ]
    while await dispatch_all(engine):
        pass

    def received(path: str) -> list[str]:
        return sorted(json.loads(r.body)["eventId"] for r in subscriber.deliveries(path))

    assert received("ok-a") == ["bat-a", "evt-a"]
    assert received("ok-b") == ["bat-b", "evt-b"]
    assert received("ok-none") == ["bat-none", "evt-none"]
    # the delivered body is the same canonical body as before: no consumer in it
    assert b"consumer" not in subscriber.deliveries("ok-a")[0].body

    # disabled: nothing new is planned for it, its subscriptions stay as they were
    await acme.call("POST", "/v1/consumers/cust-a/disable")
    status, problem = await acme.call("POST", "/v1/events", event("evt-a2", "cust-a"))
    assert status == 400 and problem["code"] == "consumer_disabled"
    status, out = await acme.call("POST", "/v1/events", event("evt-b2", "cust-b"))
    assert [d["subscriptionId"] for d in out["deliveries"]] == [sub_b]
    # idempotency stays per (tenant, eventId)
    status, again = await acme.call("POST", "/v1/events", event("evt-b", "cust-b"))
    assert (
        status == 202 and again["created"] is False and again["deliveries"] == out_b["deliveries"]
    )
    ingested = (await engine.store.read_stream(f"event-{acme.tenant_id}/evt-b"))[0].decode()
    assert ingested.consumer_id == "cust-b"  # type: ignore[attr-defined]
