"""The document says exactly what the API sends (issue 49): a realistic sender scenario
against a real ``hookproof serve`` process and a real HTTPS receiver (trustme), every answer
recorded and validated against ``/openapi.json`` as served, with unknown members refused:
the status declared with its problem code, the media type, our headers (ETag, Location,
Retry-After, Allow, the read-position header) and the body under a closed schema."""

from __future__ import annotations

import asyncio
import base64
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest
import trustme
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from hookproof.engine.api.openapi import openapi_document

from ..daemon import Daemon
from ..delivery.conftest import Subscriber, ca, subscriber
from ..live import ADMIN_TOKEN, engine_env, new_tenant, start, stop, wait_for
from .contract import Recorder, closed_everywhere, violations

__all__ = ["ca", "subscriber"]

pytestmark = pytest.mark.timeout(300)
RETRIES = {"initialDelayS": 0.2, "maxDelayS": 0.5, "maxAttempts": 1}


def _jwk() -> dict[str, Any]:
    raw = Ed25519PrivateKey.generate().public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
    x = base64.urlsafe_b64encode(raw).decode().rstrip("=")
    return {"kty": "OKP", "crv": "Ed25519", "x": x}


def test_every_object_schema_is_closed() -> None:
    """No object of ours leaves members undeclared, and no map leaves its values untyped."""
    assert closed_everywhere(openapi_document()["components"]) == []


def test_every_operation_is_described_and_tagged() -> None:
    doc = openapi_document()
    tags = {t["name"] for t in doc["tags"]}
    for path, ops in doc["paths"].items():
        for method, op in ops.items():
            assert op["description"] and op["tags"] and set(op["tags"]) <= tags, (method, path)
            assert "security" in op, (method, path)  # [] on a public route
            for status, response in op["responses"].items():
                if status.startswith(("4", "5")):
                    ref = response["$ref"].rsplit("/", 1)[1]
                    assert doc["components"]["responses"][ref]["x-problem-codes"], ref


@pytest.fixture
async def world(
    db_url: str, tmp_path: Path, subscriber: Subscriber, ca: trustme.CA
) -> AsyncIterator[tuple[Daemon, str]]:
    env = engine_env(db_url, tmp_path, subscriber.port, ca, HOOKPROOF_METRICS_TOKEN="m" * 32)
    d = await start(env, tmp_path)
    try:
        _, token = await new_tenant(env, "acme")
        yield d, token
    finally:
        await stop(d)


async def _scenario(api: Recorder, sub: Subscriber) -> None:
    """Everything a sender does, and the refusals it meets."""
    c = api.call
    for path in ("/healthz", "/readyz", "/openapi.json", "/.well-known/hookproof/jwks.json"):
        await c("GET", path, token="")
    await c("GET", "/metrics", token=ADMIN_TOKEN)
    await c("GET", "/v1/whoami")
    await c("GET", "/v1/whoami", token=ADMIN_TOKEN)
    consumer = {"id": "cust-1", "name": "Customer 1", "metadata": {"plan": "pro", "seats": 3}}
    assert (await c("POST", "/v1/consumers", consumer)).status == 201
    await c("POST", "/v1/consumers", consumer, note="consumer_exists")
    await c("GET", "/v1/consumers?limit=1")
    await c("GET", "/v1/consumers/cust-1")
    await c("PATCH", "/v1/consumers/cust-1", {"name": "Customer One"})
    await c("POST", "/v1/consumers", {"id": "cust-2", "name": "Two"})
    await c("POST", "/v1/consumers/cust-2/disable", {"reason": "contract ended"})
    versions = {"1": {"schema": {"type": "object"}, "example": {"n": 0}}}
    et = await c("PUT", "/v1/event-types/order.created", {"description": "o", "versions": versions})
    assert et.status == 200, et.body
    await c(
        "PUT",
        "/v1/event-types/order.created",
        {"description": "o2", "versions": versions},
        headers={"If-Match": '"99"'},
        note="stale If-Match",
    )
    await c("PUT", "/v1/event-types/order.failed", {"description": "f", "versions": versions})
    await c("GET", "/v1/event-types/order.created")
    await c("GET", "/v1/event-types?limit=1")
    await c("GET", "/v1/event-types/openapi.json")

    # subscriptions: an HTTPS endpoint with a receipt key, a relay, a broker, an hmac one
    created = await c(
        "POST",
        "/v1/subscriptions",
        {
            "endpoint": sub.url("ok-contract"),
            "topics": ["order.created"],
            "eventVersions": [1],
            "region": "eu",
            "signatureAlgorithm": "ed25519",
            "owner": "team-shop",
            "consumerId": "cust-1",
            "retryPolicy": RETRIES,
            "rateLimit": {"perSecond": 50, "burst": 10},
        },
    )
    assert created.status == 201, created.body
    sid = created.body["id"]
    failing = await c(
        "POST",
        "/v1/subscriptions",
        {
            "endpoint": sub.url("fail500-contract"),
            "topics": ["order.failed"],
            "eventVersions": [1],
            "region": "eu",
            "signatureAlgorithm": "ed25519",
            "owner": "team-shop",
            "retryPolicy": RETRIES,
        },
    )
    assert failing.status == 201, failing.body
    fid = failing.body["id"]
    relay = await c(
        "POST",
        "/v1/subscriptions",
        {
            "endpoint": "http://127.0.0.1:3000/hooks",
            "destination": {"type": "relay"},
            "topics": ["dev.*"],
            "eventVersions": [1],
            "region": "local",
            "signatureAlgorithm": "ed25519",
            "owner": "me",
            "receiptKey": {"keyId": "rk-1", "publicKeyJwk": _jwk()},
        },
    )
    assert relay.status == 201, relay.body
    broker = await c(
        "POST",
        "/v1/subscriptions",
        {
            "destination": {
                "type": "amqp",
                "url": "amqps://broker.example.com:5671/%2F",
                "exchange": "orders",
                "routingKey": "order.created",
                "credentials": {"username": "u", "password": "p"},
            },
            "topics": ["order.*"],
            "eventVersions": [1],
            "region": "eu",
            "signatureAlgorithm": "ed25519",
            "owner": "team-shop",
        },
    )
    assert broker.status == 201, broker.body
    await c("GET", f"/v1/subscriptions/{broker.body['id']}")
    await c("GET", f"/v1/relay/{sid}", note="not a relay: a WebSocket upgrade is not asked")

    async def state_of(s: str, want: str) -> bool:
        return (await c("GET", f"/v1/subscriptions/{s}")).body["state"] == want

    await wait_for(lambda: state_of(sid, "ACTIVE"), what="ACTIVE")
    await wait_for(lambda: state_of(fid, "ACTIVE"), what="ACTIVE")
    got = await c("GET", f"/v1/subscriptions/{sid}")
    await c("GET", "/v1/subscriptions?limit=2")
    await c("GET", "/v1/subscriptions?consumerId=cust-1")
    etag = got.headers["ETag"]
    patched = await c(
        "PATCH", f"/v1/subscriptions/{sid}", {"owner": "team-ops"}, headers={"If-Match": etag}
    )
    assert patched.status == 200, patched.body
    await c("PATCH", f"/v1/subscriptions/{sid}", {"owner": "x"}, headers={"If-Match": '"1"'})
    await c("PATCH", f"/v1/subscriptions/{sid}", {"owner": "x"}, note="no If-Match: 428")
    await c("GET", f"/v1/subscriptions/{sid}/history?limit=2")
    await c("GET", f"/v1/subscriptions/{sid}/timeline?limit=2")
    await c("GET", f"/v1/subscriptions/{sid}/attempt-stats")
    await c("GET", f"/v1/attempt-stats?subscriptionId={sid}&subscriptionId={fid}")
    hmac = await c(
        "POST",
        "/v1/subscriptions",
        {
            "endpoint": sub.url("refuse-challenges"),
            "topics": ["none.*"],
            "eventVersions": [1],
            "region": "eu",
            "signatureAlgorithm": "hmac-sha256",
            "owner": "team-shop",
        },
    )
    await c("POST", f"/v1/subscriptions/{hmac.body['id']}/secret/rotate")
    await c("POST", f"/v1/subscriptions/{sid}/challenge")
    await wait_for(lambda: state_of(sid, "ACTIVE"), what="ACTIVE again")

    # events: single, again (same), conflict, batch with a conflict and a bad one
    event = {
        "eventId": "evt-1",
        "topic": "order.created",
        "version": "1.0",
        "aggregateId": "o-1",
        "aggregateVersion": 1,
        "payload": {"n": 1},
        "consumerId": "cust-1",
    }
    first = await c("POST", "/v1/events", event)
    assert first.status == 202 and first.body["deliveries"], first.body
    await c("POST", "/v1/events", event, note="the same again")
    await c("POST", "/v1/events", {**event, "payload": {"n": 2}}, note="payload conflict")
    await c("POST", "/v1/events", {**event, "eventId": "evt-x", "topic": "nobody.listens"})
    batch = [
        {**event, "eventId": "evt-2", "payload": {"n": 2}},
        {**event, "eventId": "evt-3", "payload": {"n": 3}},
        {**event, "payload": {"n": 9}},
        {"eventId": 7},
    ]
    assert (await c("POST", "/v1/events/batch", {"events": batch})).status == 200
    did = first.body["deliveries"][0]["deliveryId"]

    async def delivered(d: str, want: str) -> bool:
        return (await c("GET", f"/v1/deliveries/{d}")).body["state"] == want

    await wait_for(lambda: delivered(did, "ENDPOINT_ACCEPTED"), what="accepted")
    await c("GET", f"/v1/deliveries/{did}/timeline")
    await c("GET", "/v1/events/evt-1")
    await c("GET", f"/v1/deliveries?subscriptionId={sid}&limit=1")
    await c("GET", "/v1/deliveries?state=ENDPOINT_ACCEPTED&evidence=ENDPOINT_ACCEPTED")
    await c("GET", "/v1/deliveries?eventType=order.created&since=2020-01-01T00:00:00Z")
    await c("GET", "/v1/deliveries?idPrefix=evt-")
    await c("POST", f"/v1/subscriptions/{sid}/test-events", {})

    # a dead letter, its list, replay; recover; skip
    dead = await c(
        "POST",
        "/v1/events",
        {**event, "eventId": "f-1", "topic": "order.failed", "consumerId": None},
    )
    assert dead.status == 202, dead.body
    fd = dead.body["deliveries"][0]["deliveryId"]
    await wait_for(lambda: delivered(fd, "DEAD_LETTER"), what="dead letter")
    await c("GET", f"/v1/deliveries/{fd}")
    await c("GET", "/v1/dead-letters")
    sub.modes["fail500-contract"] = "ok"
    await c("POST", f"/v1/deliveries/{fd}/replay")
    await wait_for(lambda: delivered(fd, "ENDPOINT_ACCEPTED"), what="replayed")
    await c("GET", f"/v1/deliveries/{fd}")
    sub.modes["fail500-contract"] = "fail500"
    dead2 = await c(
        "POST",
        "/v1/events",
        {**event, "eventId": "f-2", "topic": "order.failed", "consumerId": None},
    )
    fd2 = dead2.body["deliveries"][0]["deliveryId"]
    await wait_for(lambda: delivered(fd2, "DEAD_LETTER"), what="dead letter 2")
    await c(
        "POST",
        f"/v1/subscriptions/{fid}/recover",
        {"since": "2020-01-01T00:00:00Z", "states": ["DEAD_LETTER"]},
    )
    await wait_for(lambda: delivered(fd2, "DEAD_LETTER"), what="dead letter again")
    await c("POST", f"/v1/deliveries/{fd2}/skip")

    # portal: a session, its reads, whoami, the sessions, the end
    started = await c("POST", "/v1/consumers/cust-1/portal-sessions", {"ttlSeconds": 600})
    assert started.status == 201, started.body
    portal = started.body["token"]
    await c("GET", "/v1/whoami", token=portal)
    await c("GET", f"/v1/subscriptions/{sid}", token=portal)
    await c("GET", "/v1/deliveries", token=portal)
    await c("GET", "/v1/consumers", token=portal, note="outside the portal scope: 403")
    await c("GET", "/v1/consumers/cust-1/portal-sessions")
    await c("DELETE", f"/v1/portal-sessions/{started.body['sessionId']}")
    await c("GET", "/v1/whoami", token=portal, note="ended: 401")
    await c("POST", "/v1/consumers/cust-1/portal-sessions", {})
    await c("DELETE", "/v1/consumers/cust-1/portal-sessions")
    await c("PUT", "/v1/portal/branding", {"displayName": "Acme", "accentColour": "#123456"})
    await c("GET", "/v1/portal/branding")

    # subscription transitions
    await c("POST", f"/v1/subscriptions/{fid}/suspend", {"reason": "maintenance"})
    await c("POST", f"/v1/subscriptions/{fid}/resume")
    await c("POST", f"/v1/subscriptions/{fid}/revoke", {})

    # operator routes
    op = ADMIN_TOKEN
    await c("POST", "/v1/tenants", {"name": "globex"}, token=op)
    await c("GET", "/v1/gates", token=op)
    rollout = await c(
        "POST",
        "/v1/rollouts",
        {"target": {"signatureProfile": "standard-webhooks.v1"}, "subscriptions": "all"},
        token=op,
    )
    await c("GET", f"/v1/rollouts/{rollout.body['id']}", token=op)
    await c("POST", f"/v1/rollouts/{rollout.body['id']}/pause", token=op)
    await c("GET", "/v1/rollouts", token=op)
    await c("POST", "/v1/keys/rotate", token=op)

    # problems
    await c("GET", "/v1/subscriptions", token="", note="401")
    await c("GET", "/v1/tenants", note="405")
    await c("POST", "/v1/tenants", {"name": "x"}, note="403 operator only")
    await c("GET", "/v1/subscriptions/sub_" + "0" * 24, note="404")
    await c("GET", "/v1/subscriptions/bad!id", note="400 invalid id")
    await c("GET", "/v1/deliveries?limit=0", note="400 invalid limit")
    await c("POST", "/v1/events", data=b"{", headers={"Content-Type": "application/json"})
    await c("POST", "/v1/subscriptions", {"topics": "x"}, note="400 invalid request")
    await c("GET", "/v1/deliveries?" + "a" * 9000, note="414")
    await c("GET", "/v1/whoami", headers={"X-Big": "b" * 9000}, note="431")


async def test_a_sender_scenario_answers_as_the_document_says(
    world: tuple[Daemon, str], subscriber: Subscriber
) -> None:
    d, token = world
    async with aiohttp.ClientSession() as http:
        api = Recorder(http, d.base_url, token)
        try:
            await _scenario(api, subscriber)
        finally:
            doc = (await api.call("GET", "/openapi.json", token="")).body
            problems = [v for rec in api.seen for v in violations(doc, rec)]
            seen = {(r.method, r.status) for r in api.seen}
            print(json.dumps(sorted(seen)))
    assert not problems, "\n".join(problems)
    statuses = {r.status for r in api.seen}
    assert {200, 201, 202, 204, 400, 401, 403, 404, 405, 409, 412, 414, 428, 431} <= statuses
    await asyncio.sleep(0)
