"""Issue 54 item 1: search deliveries and events with the filter languages.

Over real HTTPS deliveries and a real Postgres: by a payload field (plain, an array that
contains, an array of objects), by an attribute (exact, pushed down; CESQL, evaluated), by the
last status code and reason code, by time; across consumers, and a portal session confined
to its own; paged with a cursor, in a stable order; a bad filter is a 400 with the compiler's
code; a search the indexes cannot narrow is answered ``search_too_broad`` within its budget.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import aiohttp
import pytest

from hookproof.engine.filters import compile_filters
from hookproof.engine.runtime.daemon import Engine
from hookproof.engine.search import Search, SearchQuery, SearchTooBroad

from ..consumers.conftest import Tenant, event, new_tenant
from ..delivery.conftest import Subscriber, dispatch_all
from ..live import Client


@dataclass
class World:
    acme: Tenant
    portal: Client  # cust-a's session
    ok_a: str  # cust-a, answers 204
    bad_a: str  # cust-a, answers 500 (dead letter after one attempt)
    bad_b: str  # cust-b, answers 500
    mid: str  # a time between the first events and the last
    by_event: dict[str, list[dict[str, Any]]]


PAYLOADS = {
    "evt-1": ("cust-a", "order-1", {"customer": "c-1", "total": 10, "tags": ["vip", "eu"]}),
    "evt-2": ("cust-a", "order-2", {"customer": "c-2", "total": 20.0}),
    "evt-3": ("cust-b", "order-3", {"customer": "c-1", "total": 30}),
}
LATER = {
    "evt-4": ("cust-a", "order-9", {"customer": "c-1", "items": [{"sku": "x-1"}, {"sku": "y"}]}),
}


async def _publish(acme: Tenant, events: dict[str, tuple[str, str, Any]]) -> dict[str, Any]:
    out = {}
    for eid, (consumer, aggregate, payload) in events.items():
        status, body = await acme.call(
            "POST", "/v1/events", event(eid, consumer, aggregateId=aggregate, payload=payload)
        )
        assert status == 202, body
        out[eid] = body["deliveries"]
    return out


@pytest.fixture
async def world(
    engine: Engine, base: str, http: aiohttp.ClientSession, subscriber: Subscriber
) -> World:
    acme = await new_tenant(engine, http, base, "acme")
    await acme.consumer("cust-a")
    await acme.consumer("cust-b")
    ok_a = await acme.subscribe(subscriber.url("ok-a"), "cust-a")
    bad_a = await acme.subscribe(subscriber.url("fail500-a"), "cust-a")
    bad_b = await acme.subscribe(subscriber.url("fail500-b"), "cust-b")
    by_event = await _publish(acme, PAYLOADS)
    await asyncio.sleep(0.01)
    mid = datetime.now(UTC).isoformat()
    await asyncio.sleep(0.01)
    by_event |= await _publish(acme, LATER)
    while await dispatch_all(engine):
        pass
    status, session = await acme.call(
        "POST", "/v1/consumers/cust-a/portal-sessions", {"capabilities": ["read", "replay"]}
    )
    assert status == 201, session
    portal = Client(acme.client.http, base, session["token"])
    return World(acme, portal, ok_a, bad_a, bad_b, mid, by_event)


def _ids(world: World, *events: str, subs: tuple[str, ...] = ()) -> set[str]:
    return {
        d["deliveryId"]
        for e in events
        for d in world.by_event[e]
        if not subs or d["subscriptionId"] in subs
    }


async def _all(client: Tenant | Client, path: str, body: dict[str, Any]) -> list[dict[str, Any]]:
    """Every page of a search, following nextCursor."""
    items: list[dict[str, Any]] = []
    cursor = None
    for _ in range(50):
        status, page = await client.call("POST", path, {**body, "cursor": cursor})
        assert status == 200, page
        items += page["items"]
        cursor = page["nextCursor"]
        if cursor is None:
            return items
    raise AssertionError("the pages never ended")


async def _found(client: Tenant | Client, body: dict[str, Any]) -> set[str]:
    items = await _all(client, "/v1/deliveries/search", body)
    ids = [i["deliveryId"] for i in items]
    assert len(ids) == len(set(ids))
    return set(ids)


async def test_search_by_payload_field(world: World) -> None:
    one = [{"match": {"data": {"customer": "c-1"}}}]
    assert await _found(world.acme, {"filters": one}) == _ids(world, "evt-1", "evt-3", "evt-4")
    # numbers compare by value (20.0 is 20); an array contains; an array of objects
    twenty = [{"match": {"data": {"total": 20}}}]
    assert await _found(world.acme, {"filters": twenty}) == _ids(world, "evt-2")
    vip = [{"match": {"data": {"tags": "vip"}}}]
    assert await _found(world.acme, {"filters": vip}) == _ids(world, "evt-1")
    sku = [{"match": {"data": {"items": {"sku": "x-1"}}}}]
    assert await _found(world.acme, {"filters": sku}) == _ids(world, "evt-4")
    # operators the index cannot answer are evaluated on the candidates
    gt = [{"match": {"data": {"total": {"$gt": 15}}}}]
    assert await _found(world.acme, {"filters": gt}) == _ids(world, "evt-2", "evt-3")
    none = [{"match": {"data": {"customer": "c-404"}}}]
    assert await _found(world.acme, {"filters": none}) == set()
    # the events search answers the events themselves, newest first
    items = await _all(world.acme, "/v1/events/search", {"filters": one})
    assert [i["eventId"] for i in items] == ["evt-4", "evt-3", "evt-1"]
    assert items[0]["payload"]["customer"] == "c-1" and items[0]["aggregateId"] == "order-9"


async def test_search_by_attribute(world: World) -> None:
    exact = [{"exact": {"subject": "order-9"}}]
    assert await _found(world.acme, {"filters": exact}) == _ids(world, "evt-4")
    sql = [{"sql": "subject = 'order-9' OR id = 'evt-2'"}]
    assert await _found(world.acme, {"filters": sql}) == _ids(world, "evt-2", "evt-4")
    typed = [{"exact": {"type": "order.created"}}, {"prefix": {"id": "evt-"}}]
    assert await _found(world.acme, {"filters": typed}) == _ids(world, *PAYLOADS, *LATER)
    other = [{"exact": {"type": "order.shipped"}}]
    assert await _found(world.acme, {"filters": other}) == set()
    consumer = [{"exact": {"consumerid": "cust-b"}}]
    assert await _found(world.acme, {"filters": consumer}) == _ids(world, "evt-3")


async def test_search_by_status_reason_state_and_time(world: World, engine: Engine) -> None:
    failed = _ids(world, *PAYLOADS, *LATER, subs=(world.bad_a, world.bad_b))
    assert await _found(world.acme, {"statusCode": 500}) == failed
    accepted = _ids(world, *PAYLOADS, *LATER, subs=(world.ok_a,))
    assert await _found(world.acme, {"statusCode": 204}) == accepted
    assert await _found(world.acme, {"evidence": "ENDPOINT_ACCEPTED"}) == accepted
    [one] = _ids(world, "evt-2", subs=(world.bad_a,))
    view = await engine.services.reader.delivery(world.acme.tenant_id, one)
    reason = view["attempts"][-1]["code"]
    assert reason
    assert await _found(world.acme, {"reasonCode": reason}) >= {one}
    assert await _found(world.acme, {"reasonCode": "no-such-code"}) == set()
    state = view["state"]
    assert one in await _found(world.acme, {"state": state, "statusCode": 500})
    # time: since is inclusive, until exclusive, on when the delivery was planned
    assert await _found(world.acme, {"since": world.mid}) == _ids(world, "evt-4")
    before = await _found(world.acme, {"until": world.mid})
    assert before == _ids(world, *PAYLOADS)
    both = {"since": world.mid, "filters": [{"match": {"data": {"customer": "c-1"}}}]}
    assert await _found(world.acme, {**both, "statusCode": 500}) == _ids(
        world, "evt-4", subs=(world.bad_a,)
    )


async def test_consumers_and_the_portal_scope(world: World) -> None:
    c1 = [{"match": {"data": {"customer": "c-1"}}}]
    b = await _found(world.acme, {"filters": c1, "consumerId": "cust-b"})
    assert b == _ids(world, "evt-3")
    a = await _found(world.acme, {"filters": c1, "consumerId": "cust-a"})
    assert a == _ids(world, "evt-1", "evt-4")
    # the portal session of cust-a: never a delivery of cust-b, whatever it asks
    assert await _found(world.portal, {"filters": c1}) == a
    assert await _found(world.portal, {"subscriptionId": world.bad_b}) == set()
    status, problem = await world.portal.call(
        "POST", "/v1/deliveries/search", {"consumerId": "cust-b"}
    )
    assert status == 403 and problem["code"] == "portal_scope"
    events = await _all(world.portal, "/v1/events/search", {"filters": c1})
    assert {i["eventId"] for i in events} == {"evt-1", "evt-4"}
    # another tenant finds nothing of acme's
    other = await new_tenant(world.acme.engine, world.acme.client.http, world.portal.base, "globex")
    assert await _found(other, {"filters": c1}) == set()
    assert await _all(other, "/v1/events/search", {}) == []


async def test_paging_is_stable_and_complete(world: World) -> None:
    everything = _ids(world, *PAYLOADS, *LATER)
    items = await _all(world.acme, "/v1/deliveries/search", {"limit": 2})
    keys = [(i["createdAt"], i["deliveryId"]) for i in items]
    assert keys == sorted(keys, reverse=True) and len(keys) == len(everything)
    assert {i["deliveryId"] for i in items} == everything
    filtered = await _all(
        world.acme, "/v1/deliveries/search", {"limit": 1, "filters": [{"sql": "subject <> 'x'"}]}
    )
    assert [i["deliveryId"] for i in filtered] == [i["deliveryId"] for i in items]
    events = await _all(world.acme, "/v1/events/search", {"limit": 1})
    assert [i["eventId"] for i in events] == ["evt-4", "evt-3", "evt-2", "evt-1"]
    status, problem = await world.acme.call("POST", "/v1/deliveries/search", {"cursor": "nope"})
    assert status == 400 and problem["code"] == "invalid_cursor"


@pytest.mark.parametrize(
    ("filters", "code"),
    [
        ([{"sql": "subject ="}], "filter_parse_error"),
        ([{"bogus": {"a": "b"}}], "filter_unknown_dialect"),
        ([{"match": {"data": {"a": {"$ref": "x"}}}}], "filter_invalid_match"),
        ([{"exact": {}}], "filter_invalid"),
    ],
)
async def test_bad_filters_are_400_with_the_compilers_code(
    world: World, filters: Any, code: str
) -> None:
    for path in ("/v1/deliveries/search", "/v1/events/search", "/v1/replays"):
        status, problem = await world.acme.call("POST", path, {"filters": filters})
        assert status == 400, problem
        assert problem["code"] == code and problem["field"] == "filters"
        assert problem["type"].endswith(code)


async def test_other_bad_bodies(world: World) -> None:
    for body, code in (
        ({"state": "NOPE"}, "invalid_state"),
        ({"evidence": "NOPE"}, "invalid_evidence"),
        ({"since": "yesterday"}, "invalid_time"),
        ({"since": world.mid, "until": world.mid}, "invalid_time_range"),
        ({"subscriptionId": "sub_x"}, "invalid_id"),
        ({"consumerId": "bad id"}, "invalid_id"),
    ):
        status, problem = await world.acme.call("POST", "/v1/deliveries/search", body)
        assert (status, problem["code"]) == (400, code), problem
    status, problem = await world.acme.call("POST", "/v1/deliveries/search", {"limit": 0})
    assert status == 400
    status, problem = await world.acme.call("POST", "/v1/deliveries/search", {"x": 1})
    assert status == 400


async def test_search_too_broad_within_its_budget(world: World, engine: Engine) -> None:
    """A filter the indexes cannot narrow (CESQL) that matches nothing: the search reads its
    budget of candidates and says so, rather than reading the whole log."""
    small = Search(engine.pool, scan_rows=3)
    tenant = world.acme.tenant_id
    broad = SearchQuery(
        tenant_id=tenant, filters=compile_filters([{"sql": "subject = 'nowhere'"}]), limit=10
    )
    with pytest.raises(SearchTooBroad) as caught:
        await small.deliveries(broad)
    problem = caught.value.to_problem()
    assert problem["status"] == 422 and problem["code"] == "search_too_broad"
    assert problem["scanRows"] == 3
    # the same with an equality the index answers: no candidate to read, an empty page
    narrow = SearchQuery(
        tenant_id=tenant,
        filters=compile_filters([{"match": {"data": {"customer": "nowhere"}}}]),
        limit=10,
    )
    assert await small.deliveries(narrow) == ([], None)
    # a page the budget fills is answered (with a cursor to go on)
    first = SearchQuery(tenant_id=tenant, limit=1)
    items, nxt = await small.deliveries(first)
    assert len(items) == 1 and nxt is not None


async def test_a_body_jsonb_cannot_hold_is_still_ingested_and_found(world: World) -> None:
    """A payload with a NUL character (JSON ``\\u0000``, which jsonb refuses): its ingest is
    not refused by the search index, and a search the index does not answer finds it."""
    body = event("evt-nul", "cust-a", aggregateId="order-nul", payload={"note": "a\x00b"})
    status, answer = await world.acme.call("POST", "/v1/events", body)
    assert status == 202, answer
    ids = {d["deliveryId"] for d in answer["deliveries"]}
    assert await _found(world.acme, {"filters": [{"sql": "subject = 'order-nul'"}]}) == ids
    nul = [{"match": {"data": {"note": "a\x00b"}}}]  # not pushed down: evaluated
    assert await _found(world.acme, {"filters": nul}) == ids
