"""The document equals the API (issue 38): its id patterns and limits are the ones the
handlers enforce (one source, and checked live at the bounds), success bodies and media types
are the served ones, and a created object links to the operations on it."""

from __future__ import annotations

import re
from typing import Any

import jsonschema_rs
import pytest

from hookproof.engine.api import params
from hookproof.engine.api.openapi import openapi_document
from hookproof.engine.challenge.protocol import CHALLENGE_ID
from hookproof.engine.consumers.service import CONSUMER_ID
from hookproof.engine.event_types.definition import TOPIC
from hookproof.engine.ingest.ingest import DELIVERY_ID, EVENT_ID
from hookproof.engine.portal.service import SESSION_ID
from hookproof.engine.portal.tenants import TENANT_ID
from hookproof.engine.receipts.decide import REASONS as RECEIPT_REASONS
from hookproof.engine.rollouts.service import ROLLOUT_ID
from hookproof.engine.runtime.daemon import Engine
from hookproof.engine.search.replay import REPLAY_ID
from hookproof.engine.subscriptions.service import SUBSCRIPTION_ID
from hookproof.engine.subscriptions.validation import printable
from hookproof.schemas.api import CONSUMER_ID_PATTERN, TEXT_PATTERN

from .conftest import Api, sub_body

DOC = openapi_document()
#: the regex each kind's handlers and services check ids with (their own modules)
SOURCES = {
    "/v1/subscriptions/": SUBSCRIPTION_ID,
    "/v1/deliveries/": DELIVERY_ID,
    "/v1/consumers/": CONSUMER_ID,
    "/v1/portal-sessions/": SESSION_ID,
    "/v1/rollouts/": ROLLOUT_ID,
    "/v1/events/": EVENT_ID,
    "/v1/event-types/": TOPIC,
    "/v1/relay/": SUBSCRIPTION_ID,
    "/v1/challenges/": CHALLENGE_ID,
    "/v1/replays/": REPLAY_ID,
    "/portal/": TENANT_ID,
}


def _ops() -> list[tuple[str, str, dict]]:  # type: ignore[type-arg]
    return [(m, p, op) for p, ops in DOC["paths"].items() for m, op in ops.items()]


def test_path_ids_are_the_handlers_patterns() -> None:
    seen = set()
    for _, path, op in _ops():
        for p in op["parameters"]:
            if p["in"] != "path":
                continue
            prefix = next(k for k in SOURCES if path.startswith(k))
            assert p["schema"]["pattern"] == SOURCES[prefix].pattern, (path, p)
            assert params.path_format(path) is SOURCES[prefix]  # the very object they use
            seen.add(prefix)
    assert seen == set(SOURCES)
    assert CONSUMER_ID.pattern == CONSUMER_ID_PATTERN


def test_query_parameters_are_the_checked_table() -> None:
    for method, path, op in _ops():
        table = params.QUERY.get((method.upper(), path), {})
        documented = {p["name"]: p for p in op["parameters"] if p["in"] == "query"}
        assert documented.keys() == table.keys(), (method, path)
        for name, p in documented.items():
            assert p["schema"] == table[name].schema
            assert p["required"] == table[name].required
    # every route that reads a page has both, with the route's own bounds
    limits = {
        (m, p): (q["limit"].schema["default"], q["limit"].schema["maximum"])
        for (m, p), q in params.QUERY.items()
        if "limit" in q
    }
    assert limits[("GET", "/v1/deliveries")] == (100, 1000)
    assert limits[("GET", "/v1/event-types")] == (50, 100)
    assert limits[("GET", "/v1/subscriptions/{id}/history")] == (200, 1000)
    assert params.CURSOR.pattern == "^[A-Za-z0-9_\\-]{1,512}$"


async def test_limits_hold_at_their_bounds(api: Api, token: str, engine: Engine) -> None:
    """Each documented maximum is accepted and one more is refused, by the running API."""
    _, _, sub = await api.call("POST", "/v1/subscriptions", token=token, json=sub_body())
    for (method, route), table in params.QUERY.items():
        if "limit" not in table or "operator" in route or route in ("/v1/rollouts", "/v1/gates"):
            continue
        path = route.replace("{id}", sub["id"])
        if path.startswith("/v1/deliveries/") or "portal-sessions" in path:
            continue
        top = table["limit"].schema["maximum"]
        status, _, doc = await api.call(method, f"{path}?limit={top}", token=token)
        assert status == 200, (path, doc)
        status, _, doc = await api.call(method, f"{path}?limit={top + 1}", token=token)
        assert status == 400 and doc["code"] == "invalid_limit", (path, doc)


def test_text_pattern_refuses_what_printable_refuses() -> None:
    """The document's text pattern bans C0/C1 controls and blank text; the API's rule
    (``printable`` plus not blank) refuses all of those too."""
    text = re.compile(TEXT_PATTERN)
    for ch in [chr(c) for c in range(0x20)] + [chr(c) for c in range(0x7F, 0xA0)]:
        assert not text.fullmatch("a" + ch) and not printable("a" + ch)
    assert not text.fullmatch("   ") and text.fullmatch(" a ") and text.fullmatch("Acme Corp")


def test_statuses_bodies_and_media_types() -> None:
    paths = DOC["paths"]
    receipts = paths["/v1/receipts"]["post"]["responses"]
    assert {str(s) for s in RECEIPT_REASONS.values()} <= receipts.keys()
    assert {"200", "201"} <= receipts.keys()
    ended = paths["/v1/portal-sessions/{id}"]["delete"]["responses"]["204"]
    assert "content" not in ended
    jwks = paths["/.well-known/hookproof/jwks.json"]["get"]["responses"]["200"]
    assert list(jwks["content"]) == ["application/jwk-set+json"]
    patch = paths["/v1/subscriptions/{id}"]["patch"]
    assert {"412", "428"} <= patch["responses"].keys()
    assert any(p["name"] == "If-Match" and p["required"] for p in patch["parameters"])
    for method, path, op in _ops():
        assert {"405", "503"} <= op["responses"].keys(), (method, path)
        if "requestBody" in op:
            assert {"400", "413", "415"} <= op["responses"].keys(), (method, path)
        if op["security"]:  # a public route's is [] (no token)
            assert {"401", "403"} <= op["responses"].keys(), (method, path)
    allow = DOC["components"]["responses"]["Problem405"]["headers"]["Allow"]
    assert allow == {"$ref": "#/components/headers/Allow"}
    assert DOC["components"]["headers"]["Allow"]["required"] is True
    created = paths["/v1/subscriptions"]["post"]["responses"]["201"]
    assert created["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/SubscriptionCreated"
    }
    assert set(created["links"]) == {
        "GetSubscription",
        "PatchSubscription",
        "ChallengeSubscription",
        "SubscriptionHistory",
    }
    ids = {op["operationId"] for _, _, op in _ops()}
    for _, _, op in _ops():
        for response in op["responses"].values():
            for link in response.get("links", {}).values():
                assert link["operationId"] in ids
    accepted = paths["/v1/events"]["post"]["responses"]["202"]
    assert set(accepted["links"]) == {"GetDelivery", "ReplayDelivery"}


def test_every_json_success_body_has_a_schema() -> None:
    """Every 2xx JSON body is a named type with properties; the only free-form ones are the
    two OpenAPI documents, and their description says so."""
    components = DOC["components"]["schemas"]
    free = []
    for method, path, op in _ops():
        for status, response in op["responses"].items():
            if not status.startswith("2"):
                continue
            for mime, media in response.get("content", {}).items():
                if "json" not in mime:
                    continue
                schema = media["schema"]
                if "$ref" not in schema:
                    assert schema["type"] == "object" and "OpenAPI" in schema["description"]
                    free.append(path)
                    continue
                named = components[schema["$ref"].rsplit("/", 1)[1]]
                assert named["type"] == "object" and named["properties"], (method, path)
                assert set(named.get("required", ())) <= named["properties"].keys()
    assert sorted(free) == ["/openapi.json", "/v1/event-types/openapi.json"]


def _conforms(body: Any, name: str) -> None:
    """*body* validates against the document's schema *name* (its references resolved)."""
    schema = {"$ref": f"#/components/schemas/{name}", "components": DOC["components"]}
    jsonschema_rs.validator_for(schema).validate(body)


async def test_served_bodies_conform_to_their_schemas(
    api: Api, token: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The bodies the handlers serve validate against the types the document names."""
    monkeypatch.setenv("HOOKPROOF_ADMIN_TOKEN", "operator-token")
    for path, name in (("/healthz", "Health"), ("/readyz", "Readiness")):
        status, _, body = await api.call("GET", path)
        assert status == 200
        _conforms(body, name)
    status, _, sub = await api.call("POST", "/v1/subscriptions", token=token, json=sub_body())
    assert status == 201
    _conforms(sub, "SubscriptionCreated")
    definition = {
        "description": "An order",
        "versions": {"1": {"schema": {"type": "object"}, "example": {"orderId": "o-1"}}},
    }
    status, _, et = await api.call(
        "PUT", "/v1/event-types/order.created", token=token, json=definition
    )
    assert status == 200, et
    _conforms(et, "EventType")
    status, _, et = await api.call("GET", "/v1/event-types/order.created", token=token)
    _conforms(et, "EventType")
    event = {
        "eventId": "evt-1",
        "topic": "order.created",
        "version": "1.0",
        "aggregateId": "o-1",
        "aggregateVersion": 1,
        "occurredAt": "2026-12-02T06:00:00Z",
        "payload": {"orderId": "o-1"},
    }
    status, _, accepted = await api.call("POST", "/v1/events", token=token, json=event)
    assert status == 202, accepted
    _conforms(accepted, "EventAccepted")
    status, _, view = await api.call("GET", "/v1/events/evt-1", token=token)
    assert status == 200, view
    _conforms(view, "EventView")
    status, _, timeline = await api.call(
        "GET", f"/v1/subscriptions/{sub['id']}/timeline?limit=1", token=token
    )
    # one entry per page: a cursor when the challenge's entries are there already, else null
    # (the challenge is sent in the background); either must conform
    assert status == 200 and "nextCursor" in timeline, timeline
    _conforms(timeline, "Timeline")
    status, _, history = await api.call(
        "GET", f"/v1/subscriptions/{sub['id']}/history", token=token
    )
    assert status == 200 and history["items"], history
    _conforms(history, "HistoryPage")
    if accepted["deliveries"]:
        did = accepted["deliveries"][0]["deliveryId"]
        status, _, timeline = await api.call("GET", f"/v1/deliveries/{did}/timeline", token=token)
        _conforms(timeline, "Timeline")
        status, _, delivery = await api.call("GET", f"/v1/deliveries/{did}", token=token)
        _conforms(delivery, "Delivery")
    status, _, sent = await api.call(
        "POST", f"/v1/subscriptions/{sub['id']}/test-events", token=token, json={}
    )
    if status == 202:
        _conforms(sent, "TestEventSent")
    hmac = sub_body(signatureAlgorithm="hmac-sha256")
    status, _, hsub = await api.call("POST", "/v1/subscriptions", token=token, json=hmac)
    assert status == 201, hsub
    status, _, rotated = await api.call(
        "POST", f"/v1/subscriptions/{hsub['id']}/secret/rotate", token=token
    )
    assert status == 201, rotated
    _conforms(rotated, "SecretRotated")
    operator = "operator-token"
    status, _, gates = await api.call("GET", "/v1/gates", token=operator)
    assert status == 200, gates
    _conforms(gates, "GateReport")
    create = {"target": {"signatureProfile": "standard-webhooks.v1"}, "subscriptions": "all"}
    status, _, rollout = await api.call("POST", "/v1/rollouts", token=operator, json=create)
    assert status == 201, rollout
    _conforms(rollout, "Rollout")
    for step in ("pause", "resume"):
        status, _, rollout = await api.call(
            "POST", f"/v1/rollouts/{rollout['id']}/{step}", token=operator
        )
        assert status == 200, rollout
        _conforms(rollout, "Rollout")
    status, _, page = await api.call("GET", "/v1/rollouts", token=operator)
    assert page["items"]
    _conforms(page, "RolloutPage")
    status, _, page = await api.call("GET", "/v1/event-types", token=token)
    assert page["items"]
    _conforms(page, "EventTypePage")
    status, _, rotated = await api.call("POST", "/v1/keys/rotate", token=operator)
    assert status == 200, rotated
    _conforms(rotated, "EngineKeyRotated")


async def test_served_success_bodies_match_their_schemas(api: Api, token: str) -> None:
    """A created subscription as served has every field its schema requires."""
    components = DOC["components"]["schemas"]
    status, headers, sub = await api.call("POST", "/v1/subscriptions", token=token, json=sub_body())
    assert status == 201
    assert set(components["SubscriptionCreated"]["required"]) <= sub.keys()
    status, _, page = await api.call("GET", "/v1/subscriptions", token=token)
    assert set(components["SubscriptionPage"]["required"]) <= page.keys()
    status, _, who = await api.call("GET", "/v1/whoami", token=token)
    assert who["kind"] in components["Whoami"]["properties"]["kind"]["enum"]
