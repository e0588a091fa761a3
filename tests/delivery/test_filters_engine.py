"""Subscriptions' ``filters`` through the engine (issue 50): each dialect's subscription
receives exactly the events its filters select, delivered for real to a real HTTPS receiver;
the planning records the digest of the filters that decided (the delivery view, the audit
timeline, ``event.ingested``'s refusals, the reasons of an event planned for none); a rebuild
reproduces the projections; bad filters are refused 400 with their codes."""

from __future__ import annotations

import hashlib
import json
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import pytest
from aiohttp.test_utils import TestServer

from hookproof.engine.audit.timeline import delivery_timeline
from hookproof.engine.recording.registry import projections_by_name
from hookproof.engine.runtime.daemon import Engine
from hookproof.events.delivery_events import EventIngested, event_stream_id
from hookproof.projections import rebuild, table_rows
from tests.support import log_settled

from .conftest import Subscriber, active_subscription, delivery, dispatch_all, publish

#: path -> filters (the legacy ``filter`` under "legacy", none under "all")
FILTERS: dict[str, Any] = {
    "ok-exact": [{"exact": {"subject": "order-7"}}],
    "ok-prefix": [{"prefix": {"subject": "vip-"}}],
    "ok-suffix": [{"suffix": {"subject": "-eu"}}],
    "ok-any": [{"any": [{"exact": {"subject": "order-1"}}, {"exact": {"subject": "order-2"}}]}],
    "ok-not": [{"not": {"exact": {"eventversion": "1.0"}}}],
    "ok-allsql": [{"all": [{"sql": "aggregateversion > 5"}, {"sql": "subject LIKE 'order-%'"}]}],
    "ok-match": [{"match": {"data": {"amount": {"$gte": 100}, "currency": {"$in": ["EUR"]}}}}],
}

#: eventId -> (aggregateId, aggregateVersion, version, payload, the paths that receive it)
EVENTS: dict[str, tuple[str, int, str, dict[str, Any], set[str]]] = {
    "e1": ("order-7", 1, "1.0", {"amount": 42}, {"ok-exact", "ok-legacy", "ok-none"}),
    "e2": ("vip-3", 1, "1.0", {"amount": 5}, {"ok-prefix", "ok-none"}),
    "e3": (
        "vip-3-eu",
        2,
        "1.1",
        {"amount": 150, "currency": "EUR"},
        {"ok-prefix", "ok-suffix", "ok-not", "ok-match", "ok-none"},
    ),
    "e4": (
        "order-2",
        9,
        "1.0",
        {"amount": 150, "currency": "USD"},
        {"ok-any", "ok-allsql", "ok-none"},
    ),
    "e5": (
        "order-1",
        3,
        "1.0",
        {"amount": 42, "currency": "EUR"},
        {"ok-any", "ok-legacy", "ok-none"},
    ),
}


def _digest(filters: Any) -> str:
    text = json.dumps(filters, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()


@pytest.fixture
async def api(engine: Engine) -> AsyncIterator[tuple[str, str, str]]:
    issued = await engine.tenants.create("acme")
    server = TestServer(engine.app(), host="127.0.0.1")
    await server.start_server()
    try:
        yield str(server.make_url("")), issued.tenant_id, issued.token
    finally:
        await server.close()


async def _call(
    base: str, token: str, method: str, path: str, body: Any, headers: dict[str, str] | None = None
) -> tuple[int, Any]:
    async with aiohttp.ClientSession(headers={"Authorization": f"Bearer {token}"}) as http:
        async with http.request(method, base + path, json=body, headers=headers) as r:
            return r.status, await r.json(content_type=None)


async def test_each_dialect_receives_exactly_what_its_filters_select(
    engine: Engine, api: tuple[str, str, str], subscriber: Subscriber
) -> None:
    base, tenant, token = api
    ids: dict[str, str] = {}
    for path, filters in FILTERS.items():
        ids[path] = await active_subscription(engine, tenant, subscriber.url(path), filters=filters)
    ids["ok-legacy"] = await active_subscription(
        engine, tenant, subscriber.url("ok-legacy"), filter={"amount": 42}
    )
    ids["ok-none"] = await active_subscription(engine, tenant, subscriber.url("ok-none"))

    # the view shows the filters as written, the legacy filter converted to match on data
    status, view = await _call(base, token, "GET", f"/v1/subscriptions/{ids['ok-legacy']}", None)
    assert status == 200
    assert view["filters"] == [{"match": {"data": {"amount": 42}}}]
    assert "filter" not in view
    status, view = await _call(base, token, "GET", f"/v1/subscriptions/{ids['ok-match']}", None)
    assert view["filters"] == FILTERS["ok-match"]

    planned: dict[str, list[dict[str, str]]] = {}
    for eid, (aggregate, aggregate_version, version, payload, _) in EVENTS.items():
        result = await publish(
            engine,
            tenant,
            eid,
            payload,
            aggregateId=aggregate,
            aggregateVersion=aggregate_version,
            version=version,
        )
        planned[eid] = result.deliveries
    await dispatch_all(engine)

    by_sub = {sid: path for path, sid in ids.items()}
    for eid, (*_, expected) in EVENTS.items():
        assert {by_sub[d["subscriptionId"]] for d in planned[eid]} == expected, eid
    for path in ids:
        got = {json.loads(r.body)["eventId"] for r in subscriber.deliveries(path)}
        assert got == {eid for eid, (*_, paths) in EVENTS.items() if path in paths}, path

    # the evidence: each delivery names the digest of the filters that held
    for eid, deliveries in planned.items():
        for d in deliveries:
            path = by_sub[d["subscriptionId"]]
            shown = await delivery(engine, tenant, d["deliveryId"])
            assert shown["state"] == "ENDPOINT_ACCEPTED", (eid, path)
            if path == "ok-none":
                assert "filters" not in shown
                continue
            written = FILTERS.get(path, [{"match": {"data": {"amount": 42}}}])
            assert shown["filters"] == {"digest": _digest(written), "held": True}
    exact = next(d for d in planned["e1"] if by_sub[d["subscriptionId"]] == "ok-exact")
    audited = await delivery_timeline(engine.store, exact["deliveryId"])
    first = audited.entries[0]
    assert first.type == "delivery.planned"
    assert f"filters {_digest(FILTERS['ok-exact'])} held" in first.outcome
    # and the event records the filters evaluated that did not hold (e1: prefix, suffix, ...)
    [rec] = await engine.store.read_stream(event_stream_id(tenant, "e1"))
    ingested = rec.decode()
    assert isinstance(ingested, EventIngested)
    refused = {by_sub[d.subscription_id]: d for d in ingested.filtered or []}
    assert "ok-exact" not in refused and "ok-none" not in refused
    assert not any(d.held for d in refused.values())
    assert refused["ok-match"].filters_digest == _digest(FILTERS["ok-match"])
    assert set(refused) <= set(FILTERS) | {"ok-legacy"}

    # a rebuild reproduces the projections (the subscriptions' filters and their index keys)
    await log_settled(engine.store.pool)
    for name in ("subscriptions", "deliveries"):
        projection = projections_by_name()[name]
        result = await rebuild(engine.store, projection, verify=True, inline=True)
        assert not result.differences, (name, result.differences)
    subscriptions = projections_by_name()["subscriptions"]
    await rebuild(engine.store, subscriptions, inline=True)
    async with engine.store.pool.acquire() as conn:
        rows = await table_rows(conn, subscriptions, "subscriptions")
    keyed = {k for k, row in rows.items() if row["filters_key"] is not None}
    assert {ids["ok-exact"], ids["ok-legacy"], ids["ok-prefix"]} - keyed == {ids["ok-prefix"]}
    assert ids["ok-none"] not in keyed


async def test_an_event_no_filter_admits_names_the_filters_in_its_reasons(
    engine: Engine, api: tuple[str, str, str], subscriber: Subscriber
) -> None:
    base, tenant, token = api
    sid = await active_subscription(
        engine, tenant, subscriber.url("ok-f"), filters=[{"sql": "subject = 'nope'"}]
    )
    event = {
        "eventId": "x1",
        "topic": "order.created",
        "version": "1.0",
        "aggregateId": "a",
        "aggregateVersion": 1,
        "occurredAt": "2026-11-30T10:00:00Z",
        "payload": {},
    }
    status, answer = await _call(base, token, "POST", "/v1/events", event)
    assert status == 202 and answer["deliveries"] == []
    [reason] = answer["reasons"]
    assert reason["reason"] == "filter_unmatched"
    assert reason["filters"] == [
        {
            "subscriptionId": sid,
            "filtersDigest": _digest([{"sql": "subject = 'nope'"}]),
            "held": False,
        }
    ]


@pytest.mark.parametrize(
    ("filters", "code", "dialect", "path", "position"),
    [
        ([{"regex": {"type": "a.*"}}], "filter_unknown_dialect", "regex", "/0", None),
        ([{"sql": "type = "}], "filter_parse_error", "sql", "/0/sql", 7),
        ([{"all": [{"sql": "a = 'x"}]}], "filter_parse_error", "sql", "/0/all/0/sql", 4),
        (
            [{"match": {"data": {"$ref": "x"}}}],
            "filter_invalid_match",
            "match",
            "/0/match/data/$ref",
            None,
        ),
        ([{"exact": {"type": 3}}], "filter_invalid", "exact", "/0/exact/type", None),
        ({"exact": {}}, "filter_invalid", None, "", None),
    ],
)
async def test_bad_filters_are_refused_with_their_code(
    engine: Engine,
    api: tuple[str, str, str],
    subscriber: Subscriber,
    filters: Any,
    code: str,
    dialect: str | None,
    path: str,
    position: int | None,
) -> None:
    base, tenant, token = api
    body = {
        "endpoint": subscriber.url("ok-bad"),
        "topics": ["order.created"],
        "eventVersions": [1],
        "region": "eu",
        "signatureAlgorithm": "ed25519",
        "owner": "ops",
        "filters": filters,
    }
    status, problem = await _call(base, token, "POST", "/v1/subscriptions", body)
    if not isinstance(filters, list):  # not an array at all: the body's own type check
        assert status == 400 and problem["code"] == "invalid_request", problem
        return
    assert status == 400, problem
    assert problem["code"] == code and problem["field"] == "filters"
    assert problem["dialect"] == dialect and problem["path"] == path
    assert problem.get("position") == position
    # nothing was written
    status, page = await _call(base, token, "GET", "/v1/subscriptions", None)
    assert page["items"] == []


async def test_a_filters_change_is_a_new_generation(
    engine: Engine, api: tuple[str, str, str], subscriber: Subscriber
) -> None:
    base, tenant, token = api
    sid = await active_subscription(engine, tenant, subscriber.url("ok-g"), filter={"a.b": [1]})
    status, view = await _call(base, token, "GET", f"/v1/subscriptions/{sid}", None)
    assert view["filters"] == [{"match": {"data": {"a": {"b": {"$in": [1]}}}}}]
    new = [{"exact": {"subject": "s"}}]
    status, view = await _call(
        base, token, "PATCH", f"/v1/subscriptions/{sid}", {"filters": new}, {"If-Match": '"1"'}
    )
    assert status == 200, view
    assert view["generation"] == 2 and view["state"] == "PENDING_CHALLENGE"
    assert view["filters"] == new
    status, problem = await _call(
        base,
        token,
        "PATCH",
        f"/v1/subscriptions/{sid}",
        {"filters": [{"sql": "1 +"}]},
        {"If-Match": '"2"'},
    )
    assert status == 400 and problem["code"] == "filter_parse_error"
