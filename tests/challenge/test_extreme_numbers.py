"""Issue 46, item 5: no number given to the API stops another tenant's deliveries.

The numeric fields are read from the OpenAPI document (every request body's, nested objects
and arrays included), so a numeric field added later is covered without touching this file
(a body this file has no request for fails :func:`test_every_numeric_body_has_a_request`).

- Every numeric field declares a finite ``minimum`` and ``maximum`` (``schemas/numbers.py``).
- A property test (hypothesis, bounded): a hostile tenant sends one field an extreme number
  (0, denormals, 1e308, 1e400, NaN, infinities, negatives, 2^63, huge integers, or any other
  float or integer) through its own token or its consumer's portal link with manage rights;
  the answer is a 4xx problem with a code (``number_out_of_range`` naming the field when the
  value is outside the declared range) or an acceptance, never a 5xx; then a second tenant's
  delivery still arrives, with the hostile tenant's own rate-limited deliveries due in the
  same claims. Before the bounds, ``rateLimit.perSecond`` = 5e-324 was accepted and every
  later claim failed on float8 underflow.
- Relay reports: extreme ``attempt`` and ``status`` numbers are a refused or unmatched frame,
  never an exception out of the hub (which ended the session).
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from aiohttp import web
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from hookproof.engine.api.openapi import openapi_document
from hookproof.engine.relay.hub import RelayHub
from hookproof.engine.relay.repository import RelayRepository
from hookproof.errors import ValidationError
from hookproof_subscriber import Subscriber
from tests.subscriptions.conftest import sub_body

from .auth_support import dispatch
from .conftest import Harness, MakeHarness, Seen

DOC = openapi_document()
OPERATOR = "op-" + "x" * 40  # the rollout routes are the operator's
Path_ = tuple[str | int, ...]


def _resolve(schema: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in schema:
        schema = DOC["components"]["schemas"][schema["$ref"].rsplit("/", 1)[1]]
    return schema


def _numeric(
    schema: dict[str, Any], path: Path_, seen: frozenset[str] = frozenset()
) -> Iterator[tuple[Path_, dict[str, Any]]]:
    """Every number the body can hold; a schema that refers to itself (a filter expression
    holds filter expressions) is walked once on each path."""
    ref = schema.get("$ref")
    if isinstance(ref, str):
        if ref in seen:
            return
        seen = seen | {ref}
    schema = _resolve(schema)
    for alternative in schema.get("anyOf", []) + schema.get("oneOf", []):
        yield from _numeric(alternative, path, seen)
    kind = schema.get("type")
    if kind in ("integer", "number"):
        yield path, schema
    elif kind == "object":
        for name, sub in schema.get("properties", {}).items():
            yield from _numeric(sub, (*path, name), seen)
    elif kind == "array" and isinstance(schema.get("items"), dict):
        yield from _numeric(schema["items"], (*path, 0), seen)


def _bodies() -> dict[str, list[tuple[Path_, dict[str, Any]]]]:
    """Request body schema name -> its numeric fields."""
    out: dict[str, list[tuple[Path_, dict[str, Any]]]] = {}
    for ops in DOC["paths"].values():
        for op in ops.values():
            content = (op.get("requestBody") or {}).get("content", {})
            ref = content.get("application/json", {}).get("schema", {}).get("$ref")
            if ref:
                name = ref.rsplit("/", 1)[1]
                out[name] = list(_numeric({"$ref": ref}, ()))
    return {k: v for k, v in out.items() if v}


BODIES = _bodies()
FIELDS = sorted((name, path, schema) for name, fs in BODIES.items() for path, schema in fs)


def test_every_numeric_field_of_a_request_body_is_bounded() -> None:
    assert FIELDS, "the document names no numeric field: the walk is broken"
    unbounded = [
        f"{name}.{'.'.join(map(str, path))}"
        for name, path, schema in FIELDS
        if not all(
            isinstance(schema.get(k), int | float) and math.isfinite(schema[k])
            for k in ("minimum", "maximum")
        )
    ]
    assert unbounded == []
    # floats never reach a denormal nor 1 / x overflow: a positive minimum or exactly 0
    for name, path, schema in FIELDS:
        if schema["type"] == "number":
            assert schema["minimum"] == 0 or schema["minimum"] >= 1e-3, (name, path)


EXTREMES: list[str] = [
    "0",
    "-0.0",
    "5e-324",
    "1e-320",
    "2.2250738585072014e-308",
    "1e-7",
    "1e308",
    "1.7976931348623157e308",
    "1e400",
    "-1e400",
    "NaN",
    "Infinity",
    "-1",
    "-1.5",
    "0.5",
    "1",
    "100",
    "2147483648",
    "9223372036854775807",
    "9223372036854775808",
    "-9223372036854775809",
    "18446744073709551616",
    "1" + "0" * 40,
]
_numbers = st.one_of(
    st.sampled_from(EXTREMES),
    st.integers(min_value=-(2**70), max_value=2**70).map(str),
    st.floats(allow_nan=False, allow_infinity=False).map(repr),
)


@dataclass
class World:
    h: Harness
    victim_token: str
    victim_sid: str
    hostile_sid: str
    portal_token: str
    subscribers: dict[str, Subscriber] = field(default_factory=dict)
    received: dict[str, set[str]] = field(default_factory=dict)
    events: int = 0
    rollout: str | None = None


async def _world(make_harness: MakeHarness) -> World:
    h = await make_harness(env={"HOOKPROOF_ADMIN_TOKEN": OPERATOR})
    subscribers: dict[str, Subscriber] = {}
    received: dict[str, set[str]] = {}

    async def raw(seen: Seen) -> web.StreamResponse:
        sid = seen.header("Webhook-Subscription") or ""
        if sid not in subscribers:  # a subscription a hostile example made
            subscribers[sid] = h.subscriber({"id": sid, "endpoint": h.endpoint.url})
        status, headers, payload = await subscribers[sid].handle(
            "POST", h.endpoint.url, seen.headers, seen.body
        )
        if b"hookproof.challenge.v1" not in seen.body and 200 <= status < 300:
            received.setdefault(sid, set()).add(seen.header("Webhook-Id") or "")
        return web.Response(status=status, headers=headers, body=payload)

    h.endpoint.raw = raw
    victim = await h.engine.tenants.create("victim")
    status, _, consumer = await h.api.call(
        "POST", "/v1/consumers", token=h.token, json={"id": "cust-h", "name": "Hostile Co"}
    )
    assert status == 201, consumer
    hostile = await h.register(
        topics=["hostile.t"], consumerId="cust-h", rateLimit={"perSecond": 50, "burst": 5}
    )
    status, _, session = await h.api.call(
        "POST",
        "/v1/consumers/cust-h/portal-sessions",
        token=h.token,
        json={"capabilities": ["read", "manage"]},
    )
    assert status == 201, session
    status, _, view = await h.api.call(
        "POST",
        "/v1/subscriptions",
        token=victim.token,
        json=sub_body(endpoint=h.endpoint.url, topics=["victim.t"]),
    )
    assert status == 201, view
    await h.engine.drain()
    for sid, token in ((hostile["id"], h.token), (view["id"], victim.token)):
        status, _, got = await h.api.call("GET", f"/v1/subscriptions/{sid}", token=token)
        assert (status, got["state"]) == (200, "ACTIVE"), got
    world = World(h, victim.token, view["id"], hostile["id"], session["token"])
    world.subscribers, world.received = subscribers, received
    return world


def _set(doc: Any, path: Path_, marker: str) -> Any:
    node = doc
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = marker
    return doc


def _event(event_id: str, topic: str) -> dict[str, Any]:
    return {
        "eventId": event_id,
        "topic": topic,
        "version": "1.0",
        "aggregateId": event_id,
        "aggregateVersion": 1,
        "occurredAt": "2026-01-01T00:00:00Z",
        "payload": {"n": 1},
    }


def _retry() -> dict[str, Any]:
    return {"maxAttempts": 3, "initialDelayS": 1, "maxDelayS": 60, "multiplier": 2}


async def _request(w: World, name: str, n: int) -> tuple[str, str, dict[str, Any], dict[str, str]]:
    """(method, path, a valid body, headers) for the body schema ``name``."""
    sid = w.hostile_sid
    if name == "SubscriptionCreate":
        body = sub_body(
            endpoint=w.h.endpoint.url,
            topics=["hostile.t"],
            retryPolicy={**_retry(), "retryAfterCapS": 60},
            rateLimit={"perSecond": 5, "burst": 5},
            orderingGapTimeoutS=30,
        )
        return "POST", "/v1/subscriptions", body, {}
    if name == "SubscriptionPatch":
        status, headers, _ = await w.h.api.call("GET", f"/v1/subscriptions/{sid}", token=w.h.token)
        assert status == 200
        body = {
            "retryPolicy": {**_retry(), "retryAfterCapS": 60},
            "rateLimit": {"perSecond": 50, "burst": 5},
            "eventVersions": [1],
            "orderingGapTimeoutS": 30,
        }
        return "PATCH", f"/v1/subscriptions/{sid}", body, {"If-Match": headers["ETag"]}
    if name == "EventIn":
        return "POST", "/v1/events", _event(f"x-{n}", "hostile.t"), {}
    if name == "RolloutCreate":
        body = {
            "target": {"signatureProfile": "standard-webhooks.v1"},
            "subscriptions": [sid],
            "dualWindowS": 60,
        }
        return "POST", "/v1/rollouts", body, {}
    if name == "RolloutAdvance":
        path = f"/v1/rollouts/{w.rollout or 'ro_' + '0' * 20}/advance"
        return "POST", path, {"stage": "CUTOVER", "percent": 10}, {}
    if name == "PortalSessionCreate":
        return "POST", "/v1/consumers/cust-h/portal-sessions", {"ttlSeconds": 600}, {}
    if name == "TestEventIn":
        return "POST", f"/v1/subscriptions/{sid}/test-events", {"version": 1}, {}
    if name == "RecoverIn":
        body = {"since": "2026-01-01T00:00:00Z", "limit": 10}
        return "POST", f"/v1/subscriptions/{sid}/recover", body, {}
    if name == "ApplicationReceipt":  # unsigned: refused before its number matters
        body = {
            "type": "applicationReceipt.v1",
            "subscriptionId": sid,
            "eventId": "evt_1",
            "deliveryId": "dlv_1",
            "payloadDigest": "sha-256=:nkEWRxQWIP7gC0YHjVqk5fuoj+BFi5a21d90O7KeY74=:",
            "operationId": "op-1",
            "result": "applied",
            "appliedAt": "2026-01-01T00:00:00Z",
            "receiptKeyGeneration": 1,
        }
        return "POST", "/v1/receipts", body, {}
    if name == "SearchIn":
        return "POST", "/v1/deliveries/search", {"limit": 10, "statusCode": 500}, {}
    if name == "ReplayIn":  # only the hostile tenant's own subscription is replayed
        body = {"subscriptionId": sid, "limit": 10, "ratePerSecond": 1, "statusCode": 500}
        return "POST", "/v1/replays", body, {}
    if name == "FiltersEvaluate":
        body = {"filters": [{"exact": {"type": "hostile.t"}}], "event": _event(f"f-{n}", "t")}
        return "POST", "/v1/filters/evaluate", body, {}
    raise AssertionError(f"no request for {name}: add one")


def test_every_numeric_body_has_a_request() -> None:
    known = {
        "SubscriptionCreate",
        "SubscriptionPatch",
        "EventIn",
        "RolloutCreate",
        "RolloutAdvance",
        "PortalSessionCreate",
        "TestEventIn",
        "RecoverIn",
        "ApplicationReceipt",
        "SearchIn",
        "ReplayIn",
        "FiltersEvaluate",
    }
    assert set(BODIES) <= known, set(BODIES) - known


def _outside(schema: dict[str, Any], text: str) -> bool:
    """Whether the JSON number ``text`` is outside the field's declared range (or not of its
    type); unknown when the document declares none (then anything may be refused)."""
    try:
        value = float(text)
    except ValueError:
        return True
    if not math.isfinite(value):
        return True
    if schema["type"] == "integer" and not text.lstrip("-").isdigit():
        return True
    lo, hi = schema.get("minimum", -math.inf), schema.get("maximum", math.inf)
    exact = int(text) if text.lstrip("-").isdigit() else value
    return not lo <= exact <= hi


def _field(name: str, *path: str | int) -> tuple[str, Path_, dict[str, Any]]:
    return next(f for f in FIELDS if f[0] == name and f[1] == path)


@pytest.mark.solo  # timing across processes: after the parallel part, alone (Makefile)
@example(_field("SubscriptionPatch", "rateLimit", "perSecond"), "5e-324", True)  # the review's
@example(_field("SubscriptionCreate", "rateLimit", "perSecond"), "5e-324", False)
@example(_field("SubscriptionPatch", "rateLimit", "burst"), "9223372036854775808", False)
@example(_field("RolloutCreate", "dualWindowS"), "1e308", False)
@settings(
    max_examples=40,
    deadline=None,
    derandomize=True,
    suppress_health_check=list(HealthCheck),
)
@given(
    st.sampled_from(FIELDS),
    _numbers,
    st.booleans(),
)
async def test_an_extreme_number_anywhere_never_stops_another_tenants_delivery(
    make_harness: MakeHarness, world_cache: dict[str, World], fld: Any, number: str, portal: bool
) -> None:
    if "w" not in world_cache:
        world_cache["w"] = await _world(make_harness)
    w = world_cache["w"]
    name, path, schema = fld
    w.events += 1
    method, url, body, headers = await _request(w, name, w.events)
    marker = "__number__"
    raw = json.dumps(_set(body, path, marker)).replace(f'"{marker}"', number).encode()
    # the consumer's portal link (manage rights) where its scope allows the call
    token = w.portal_token if portal and name == "SubscriptionPatch" else w.h.token
    if name.startswith("Rollout"):
        token = OPERATOR
    status, _, answer = await w.h.api.call(
        method,
        url,
        token=token,
        data=raw,
        headers={**headers, "Content-Type": "application/json"},
    )
    where = f"{name}.{'.'.join(map(str, path))} = {number}: {status} {answer}"
    assert status < 500, where
    if status >= 400:
        assert isinstance(answer, dict) and answer.get("code"), where
    if _outside(schema, number) and name != "ApplicationReceipt":
        assert status == 400, where
        assert answer["code"] in ("number_out_of_range", "invalid_json", "invalid_request"), where
        if answer["code"] == "number_out_of_range":
            assert str(path[-1] if isinstance(path[-1], str) else path[-2]) in answer["field"]
    if name == "RolloutCreate" and status == 201:
        w.rollout = answer["id"]

    # the hostile tenant's own rate-limited deliveries, more than its burst (so the claim
    # computes the bucket's wait too), due in the same claims as the victim's
    hostile = [_event(f"h-{w.events}-{i}", "hostile.t") for i in range(8)]
    status, _, out = await w.h.api.call(
        "POST", "/v1/events/batch", token=w.h.token, json={"events": hostile}
    )
    assert status == 200, out
    status, _, out = await w.h.api.call(
        "POST", "/v1/events", token=w.victim_token, json=_event(f"v-{w.events}", "victim.t")
    )
    assert status == 202, out
    victim_event = f"v-{w.events}"
    deadline = time.monotonic() + 2.0  # the bound: within 2 s, never stalled
    while victim_event not in w.received.get(w.victim_sid, set()):
        assert time.monotonic() < deadline, where
        await dispatch(w.h)


@pytest.fixture
def world_cache() -> dict[str, World]:
    """One world for all of a property test's examples (its fixtures are made once)."""
    return {}


async def test_extreme_relay_report_numbers_are_refused_frames(
    make_harness: MakeHarness,
) -> None:
    h = await make_harness()
    hub = RelayHub(RelayRepository(h.engine.pool), report_timeout_s=1.0)
    for attempt in EXTREMES + ["1", "2147483647"]:
        for status in ("200", "NaN", "1e400", "-1", "9223372036854775808", "null", "99999"):
            frame = (
                '{"type":"report","exchangeId":"rx_1","deliveryId":"dlv_1",'
                f'"attempt":{attempt},"status":{status}}}'
            )
            # dropped (False), or refused outright (the caller closes the session, 1008):
            # never recorded, never an error of another kind
            try:
                assert await hub.report("rs_none", frame) is False, frame
            except ValidationError as exc:
                assert exc.code == "relay_report_out_of_range", frame
