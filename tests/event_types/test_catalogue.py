"""The event catalogue (DESIGN.md section 11, "Event types"): definitions as events, checked
schemas and examples, enforcement at ingest (single and batch), tenancy."""

from __future__ import annotations

import copy
from typing import Any

import msgspec

from hookproof.engine.runtime.daemon import Engine
from hookproof.events.event_type_events import event_type_stream_id

from .conftest import ORDER_EXAMPLE, ORDER_SCHEMA, Api, new_tenant, order, order_type


async def _stream(engine: Engine, tenant_id: str, topic: str) -> list[Any]:
    return await engine.store.read_stream(event_type_stream_id(tenant_id, topic))


async def test_definition_round_trip_is_an_event_in_the_log(engine: Engine, api: Api) -> None:
    t = await new_tenant(engine, "acme")
    status, doc = await api.define(t, "order.created", order_type())
    assert status == 200, doc
    assert doc["topic"] == "order.created"
    assert doc["versions"]["1"] == {"schema": ORDER_SCHEMA, "example": ORDER_EXAMPLE}
    assert doc["version"] == 1 and doc["deprecated"] is False

    status, got, headers = await api.call("GET", "/v1/event-types/order.created", t.token)
    assert status == 200 and got == doc and headers["etag"] == '"1"'
    status, listed, _ = await api.call("GET", "/v1/event-types", t.token)
    assert status == 200 and listed == {"items": [doc], "nextCursor": None}

    [recorded] = await _stream(engine, t.tenant_id, "order.created")
    assert recorded.type == "event_type.defined" and recorded.category == "event_type"
    assert recorded.meta().actor == f"tenant:{t.tenant_id}"
    data = msgspec.json.decode(recorded.data)
    assert data["versions"]["1"]["schema"] == ORDER_SCHEMA and data["digest"] == doc["digest"]

    # the same definition again: no change, no event
    status, again = await api.define(t, "order.created", order_type())
    assert status == 200 and again["version"] == 1
    assert len(await _stream(engine, t.tenant_id, "order.created")) == 1

    # a new definition: a second event; the first schema stays in the log
    looser = copy.deepcopy(ORDER_SCHEMA)
    looser["properties"]["currency"] = {"type": "string"}
    status, changed = await api.define(
        t, "order.created", order_type(versions={"1": {"schema": looser, "example": ORDER_EXAMPLE}})
    )
    assert status == 200 and changed["version"] == 2 and changed["digest"] != doc["digest"]
    first, second = await _stream(engine, t.tenant_id, "order.created")
    assert msgspec.json.decode(first.data)["versions"]["1"]["schema"] == ORDER_SCHEMA
    assert msgspec.json.decode(second.data)["versions"]["1"]["schema"] == looser


async def test_if_match_is_a_compare_and_set(engine: Engine, api: Api) -> None:
    t = await new_tenant(engine, "acme")
    assert (await api.define(t, "order.created", order_type()))[0] == 200
    status, doc = await api.define(
        t, "order.created", order_type(description="changed"), headers={"If-Match": '"7"'}
    )
    assert status == 412 and doc["code"] == "version_mismatch" and doc["etag"] == '"1"'
    status, doc = await api.define(
        t, "order.created", order_type(description="changed"), headers={"If-Match": '"1"'}
    )
    assert status == 200 and doc["version"] == 2


async def test_invalid_schemas_are_refused_and_nothing_is_written(engine: Engine, api: Api) -> None:
    t = await new_tenant(engine, "acme")
    bad: list[Any] = [
        {"type": 12},  # not a 2020-12 schema
        {"minLength": -1},
        {"pattern": "(?<=a)b"},  # look-behind: not in the linear-time regex syntax
        {"pattern": "(a)\\1"},  # back-reference
        {"$ref": "https://schemas.example/order.json"},  # nothing is ever fetched
        {"$schema": "http://json-schema.org/draft-07/schema#", "type": "object"},
        {"$defs": {"a": {"$ref": "#/$defs/a"}}, "$ref": "#/$defs/a"},  # recursive
        {"$ref": "#/$defs/missing"},
        "not a schema",
    ]
    for schema in bad:
        status, doc = await api.define(
            t,
            "order.created",
            {"description": "x", "versions": {"1": {"schema": schema, "example": {}}}},
        )
        assert status == 400 and doc["code"] == "schema_invalid", (schema, doc)
        assert doc["field"] == "versions.1.schema"
    assert await _stream(engine, t.tenant_id, "order.created") == []
    status, doc, _ = await api.call("GET", "/v1/event-types/order.created", t.token)
    assert status == 404 and doc["code"] == "event_type_not_found"


async def test_example_must_validate(engine: Engine, api: Api) -> None:
    t = await new_tenant(engine, "acme")
    example = {**ORDER_EXAMPLE, "currency": "XXX", "total": -1}
    status, doc = await api.define(
        t, "order.created", order_type(versions={"1": {"schema": ORDER_SCHEMA, "example": example}})
    )
    assert status == 400 and doc["code"] == "example_invalid", doc
    assert doc["field"] == "versions.1.example"
    assert {e["pointer"] for e in doc["errors"]} == {"/currency", "/total"}
    status, doc = await api.define(
        t, "order.created", {"description": "x", "versions": {"1": {"schema": ORDER_SCHEMA}}}
    )
    assert status == 400 and doc["field"] == "versions.1.example"
    assert await _stream(engine, t.tenant_id, "order.created") == []


async def test_reserved_and_malformed_topics(engine: Engine, api: Api) -> None:
    t = await new_tenant(engine, "acme")
    status, doc = await api.define(t, "hookproof.delivery.dead_lettered", order_type())
    assert status == 400 and doc["code"] == "reserved_topic", doc
    # the export's own path takes GET only (405 with Allow: GET, never a definition)
    status, doc = await api.define(t, "openapi.json", order_type())
    assert status == 405 and doc["code"] == "method_not_allowed", doc
    status, doc = await api.define(
        t, "order.created", order_type(versions={"01": {"schema": True, "example": 1}})
    )
    assert status == 400 and doc["field"] == "versions"
    status, doc = await api.define(t, "order.created", order_type(versions={}))
    assert status == 400 and doc["field"] == "versions"


async def test_single_ingest_is_judged(engine: Engine, api: Api) -> None:
    t = await new_tenant(engine, "acme")
    assert (await api.define(t, "order.created", order_type()))[0] == 200

    status, doc = await api.publish(t, order("e-ok"))
    assert status == 202, doc

    bad = {**ORDER_EXAMPLE, "orderId": "nope", "lines": [{"sku": "x", "quantity": 0}], "extra": 1}
    status, doc = await api.publish(t, order("e-bad", bad))
    assert status == 400 and doc["code"] == "payload_schema_invalid", doc
    pointers = {e["pointer"] for e in doc["errors"]}
    assert {"/orderId", "/lines/0/sku", "/lines/0/quantity", "/lines/0"} <= pointers | {"/lines/0"}
    assert "/lines/0/sku" in pointers and "/orderId" in pointers
    assert all(set(e) == {"pointer", "message"} for e in doc["errors"])
    # nothing half-written: the refused event does not exist, and its id is still free
    status, doc, _ = await api.call("GET", "/v1/events/e-bad", t.token)
    assert status == 404
    status, doc = await api.publish(t, order("e-bad"))
    assert status == 202 and doc["created"] is True

    # undeclared major of a typed topic; untyped topics as before
    status, doc = await api.publish(t, order("e-v2", version="2.0"))
    assert status == 400 and doc["code"] == "event_version_undeclared", doc
    status, doc = await api.publish(t, order("e-free", {"anything": [1]}, topic="order.other"))
    assert status == 202, doc


async def test_at_most_ten_errors(engine: Engine, api: Api) -> None:
    t = await new_tenant(engine, "acme")
    schema = {"type": "object", "properties": {f"f{i}": {"type": "integer"} for i in range(30)}}
    example = {f"f{i}": i for i in range(30)}
    body = {"description": "wide", "versions": {"1": {"schema": schema, "example": example}}}
    assert (await api.define(t, "wide", body))[0] == 200
    status, doc = await api.publish(t, order("w1", {f"f{i}": "s" for i in range(30)}, topic="wide"))
    assert status == 400 and len(doc["errors"]) == 10


async def test_batch_entries_are_judged_one_by_one(engine: Engine, api: Api) -> None:
    t = await new_tenant(engine, "acme")
    assert (await api.define(t, "order.created", order_type()))[0] == 200
    events = [
        order("b1"),
        order("b2", {**ORDER_EXAMPLE, "total": "12"}),
        order("b3", version="3.1"),
        order("b4", {"free": True}, topic="order.other"),
        order("b5"),
    ]
    status, doc, _ = await api.call("POST", "/v1/events/batch", t.token, {"events": events})
    assert status == 200, doc
    r = doc["results"]
    assert [e["status"] for e in r] == [202, 400, 400, 202, 202]
    assert [e["eventId"] for e in r] == ["b1", "b2", "b3", "b4", "b5"]
    assert r[1]["problem"]["code"] == "payload_schema_invalid"
    assert r[1]["problem"]["errors"] == [
        {"pointer": "/total", "message": r[1]["problem"]["errors"][0]["message"]}
    ]
    assert r[2]["problem"]["code"] == "event_version_undeclared"
    for eid, expected in (("b1", 200), ("b2", 404), ("b3", 404), ("b4", 200), ("b5", 200)):
        status, _, _ = await api.call("GET", f"/v1/events/{eid}", t.token)
        assert status == expected, eid


async def test_one_tenant_never_sees_or_meets_another_tenants_types(
    engine: Engine, api: Api
) -> None:
    a = await new_tenant(engine, "alpha")
    b = await new_tenant(engine, "beta")
    assert (await api.define(a, "order.created", order_type()))[0] == 200

    status, doc, _ = await api.call("GET", "/v1/event-types/order.created", b.token)
    assert status == 404 and doc["code"] == "event_type_not_found"
    status, doc, _ = await api.call("GET", "/v1/event-types", b.token)
    assert doc == {"items": [], "nextCursor": None}
    status, doc, _ = await api.call("GET", "/v1/event-types/openapi.json", b.token)
    assert status == 200 and doc["webhooks"] == {}
    # b's events of the same topic are not judged by a's schema
    status, doc = await api.publish(b, order("same-id", {"whatever": 1}))
    assert status == 202, doc
    # b defines its own type of the same name: a's is untouched
    other = {"description": "b's", "versions": {"1": {"schema": {"type": "object"}, "example": {}}}}
    status, doc = await api.define(b, "order.created", other)
    assert status == 200 and doc["version"] == 1
    status, doc, _ = await api.call("GET", "/v1/event-types/order.created", a.token)
    assert doc["description"] == "An order was placed"
    status, doc = await api.publish(a, order("same-id", {"whatever": 1}))
    assert status == 400 and doc["code"] == "payload_schema_invalid"
    # a tenant token is required
    status, doc, _ = await api.call("GET", "/v1/event-types", "hp_nope_nope")
    assert status == 401


async def test_list_is_paged_by_topic(engine: Engine, api: Api) -> None:
    t = await new_tenant(engine, "acme")
    body = {"description": "t", "versions": {"1": {"schema": True, "example": None}}}
    for i in range(5):
        assert (await api.define(t, f"topic.{i}", body))[0] == 200
    seen: list[str] = []
    cursor = None
    while True:
        q = "?limit=2" + (f"&cursor={cursor}" if cursor else "")
        status, doc, _ = await api.call("GET", "/v1/event-types" + q, t.token)
        assert status == 200 and len(doc["items"]) <= 2
        seen += [i["topic"] for i in doc["items"]]
        cursor = doc["nextCursor"]
        if cursor is None:
            break
    assert seen == [f"topic.{i}" for i in range(5)]
    status, doc, _ = await api.call("GET", "/v1/event-types?cursor=bad", t.token)
    assert status == 400 and doc["code"] == "invalid_cursor"


async def test_per_tenant_bounds(engine: Engine, api: Api, monkeypatch: Any) -> None:
    """At most MAX_TYPES_PER_TENANT types (lowered here), and an export of at most
    MAX_EXPORT_BYTES of definitions; another tenant is not counted."""
    from hookproof.engine.event_types import service

    monkeypatch.setattr(service, "MAX_TYPES_PER_TENANT", 2)
    t = await new_tenant(engine, "acme")
    other = await new_tenant(engine, "other")
    body = {"description": "t", "versions": {"1": {"schema": True, "example": None}}}
    for topic in ("a.one", "a.two"):
        assert (await api.define(t, topic, body))[0] == 200
    status, doc = await api.define(t, "a.three", body)
    assert status == 400 and doc["code"] == "event_type_limit", doc
    assert (await api.define(t, "a.two", {**body, "description": "again"}))[0] == 200
    assert (await api.define(other, "a.three", body))[0] == 200

    monkeypatch.setattr(service, "MAX_EXPORT_BYTES", 100)
    status, doc, _ = await api.call("GET", "/v1/event-types/openapi.json", t.token)
    assert status == 400 and doc["code"] == "catalogue_too_large", doc
