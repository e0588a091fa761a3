"""An accepted event that reaches no subscription says why (``reasons``, one per cause, and an
``event_not_delivered`` log line); a challenge answered with a bad status shows the status and
what to do (``lastStatus``, ``lastReasonDetail``). Through the real API, a real HTTPS
subscriber, a real database."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import msgspec
import pytest
import structlog
from aiohttp.test_utils import TestServer

from hookproof.engine.filters import FilterEvent
from hookproof.engine.ingest.eligibility import SubscriptionFacts, why_unplanned
from hookproof.engine.runtime.daemon import Engine
from hookproof.schemas.api import SubscriptionCreate

from .conftest import Subscriber, active_subscription


def _event(event_id: str, topic: str = "order.created", **over: Any) -> dict[str, Any]:
    return {
        "eventId": event_id,
        "topic": topic,
        "version": "1.0",
        "aggregateId": "a",
        "aggregateVersion": 1,
        "occurredAt": "2026-11-30T10:00:00Z",
        "payload": {"amount": 1},
        **over,
    }


@pytest.fixture
async def api(engine: Engine) -> AsyncIterator[tuple[str, str, str]]:
    issued = await engine.tenants.create("acme")
    server = TestServer(engine.app(), host="127.0.0.1")
    await server.start_server()
    try:
        yield str(server.make_url("")), issued.tenant_id, issued.token
    finally:
        await server.close()


async def _post(base: str, token: str, path: str, body: Any) -> tuple[int, Any]:
    async with aiohttp.ClientSession(headers={"Authorization": f"Bearer {token}"}) as http:
        async with http.post(base + path, json=body) as r:
            return r.status, await r.json()


async def _register(engine: Engine, tenant: str, url: str, **over: Any) -> str:
    body: dict[str, Any] = {
        "endpoint": url,
        "topics": ["order.created"],
        "eventVersions": [1],
        "region": "eu",
        "signatureAlgorithm": "ed25519",
        "owner": "ops",
        **over,
    }
    state, _ = await engine.subscriptions.register(
        tenant, msgspec.convert(body, SubscriptionCreate), actor="test"
    )
    return state.subscription_id


def _reasons(answer: dict[str, Any]) -> dict[str, int]:
    assert answer["deliveries"] == []
    return {r["reason"]: r["subscriptions"] for r in answer["reasons"]}


async def test_each_cause_of_no_delivery_is_named(
    engine: Engine, api: tuple[str, str, str], subscriber: Subscriber
) -> None:
    base, tenant, token = api
    with structlog.testing.capture_logs() as logs:
        status, answer = await _post(base, token, "/v1/events", _event("e0"))
    assert status == 202
    assert _reasons(answer) == {"no_subscriptions": 0}
    assert any(
        e["event"] == "event_not_delivered" and e["reasons"] == ["no_subscriptions"] for e in logs
    )

    # one subscription per cause
    await _register(engine, tenant, subscriber.url("ok-pending"))  # never challenged
    await active_subscription(engine, tenant, subscriber.url("ok-other"), topics=["invoice.paid"])
    await active_subscription(engine, tenant, subscriber.url("ok-v2"), eventVersions=[2])
    await active_subscription(engine, tenant, subscriber.url("ok-f"), filter={"amount": 99})
    status, consumer = await _post(base, token, "/v1/consumers", {"id": "cust-1", "name": "C"})
    assert status == 201, consumer
    await active_subscription(engine, tenant, subscriber.url("ok-c"), consumerId="cust-1")

    status, answer = await _post(base, token, "/v1/events", _event("e1"))
    assert status == 202
    reasons = _reasons(answer)
    assert reasons == {
        "pending_challenge": 1,
        "consumer_id_missing": 1,
        "event_version_unaccepted": 1,
        "filter_unmatched": 1,
        "topic_unmatched": 1,
    }
    by_code = {r["reason"]: r["detail"] for r in answer["reasons"]}
    assert "consumerId" in by_code["consumer_id_missing"]
    assert "PENDING_CHALLENGE" in by_code["pending_challenge"]

    # the consumer's event: a consumer-less subscription of its topic is the mismatch
    event = _event("e2", topic="invoice.paid", consumerId="cust-1")
    status, answer = await _post(base, token, "/v1/events", event)
    assert _reasons(answer) == {"topic_unmatched": 4, "consumer_mismatch": 1}

    # an event that is delivered carries no reasons
    await active_subscription(engine, tenant, subscriber.url("ok-yes"))
    status, answer = await _post(base, token, "/v1/events", _event("e3"))
    assert status == 202 and len(answer["deliveries"]) == 1 and "reasons" not in answer

    # in a batch, each entry answers for itself
    status, batch = await _post(
        base,
        token,
        "/v1/events/batch",
        {"events": [_event("e4"), _event("e5", topic="nothing.here")]},
    )
    assert status == 200, batch
    delivered, nowhere = batch["results"]
    assert delivered["status"] == 202 and delivered["deliveries"] and "reasons" not in delivered
    assert nowhere["status"] == 202 and _reasons(nowhere) == {"topic_unmatched": 6}


def test_the_judgement_admits_what_planning_admits() -> None:
    facts = [SubscriptionFacts("sub_1", "ACTIVE", ("order.*",), (1,), None, None)]
    kw: dict[str, Any] = {"topic": "order.created", "major": 1, "event": FilterEvent({}, {})}
    assert why_unplanned(facts, consumer_id=None, **kw) == []
    [cause] = why_unplanned(facts, consumer_id="cust-1", **kw)
    assert cause.reason == "consumer_mismatch" and cause.subscriptions == 1
    suspended = [SubscriptionFacts("sub_1", "SUSPENDED", ("*",), (1,), None, None)]
    [cause] = why_unplanned(suspended, consumer_id=None, **kw)
    assert cause.reason == "subscription_not_active" and "SUSPENDED" in cause.detail


async def test_a_challenge_answered_503_shows_the_status_and_what_to_do(
    engine: Engine, api: tuple[str, str, str], subscriber: Subscriber
) -> None:
    base, tenant, token = api
    subscriber.modes["down"] = "refuse-challenges"  # it answers challenges 503
    sid = await _register(engine, tenant, subscriber.url("down"))
    outcome = await engine.services.challenger.run(sid, actor="test")
    assert outcome["reason"] == "bad_status"
    async with aiohttp.ClientSession(headers={"Authorization": f"Bearer {token}"}) as http:
        async with http.get(f"{base}/v1/subscriptions/{sid}") as r:
            view = await r.json()
    assert view["lastReason"] == "bad_status" and view["lastStatus"] == 503
    assert "HTTP 503" in view["lastReasonDetail"]


async def test_endpoint_refusals_name_the_setting_that_allows_them(
    api: tuple[str, str, str],
) -> None:
    base, _, token = api
    body = {
        "topics": ["t"],
        "eventVersions": [1],
        "region": "eu",
        "signatureAlgorithm": "ed25519",
        "owner": "ops",
    }
    for endpoint, code, words in (
        (
            "https://127.0.0.2:9443/h",
            "endpoint_ip_forbidden",
            "HOOKPROOF_EGRESS_ALLOW=127.0.0.2:9443",
        ),
        ("https://localhost:9443/h", "endpoint_ip_forbidden", "HOOKPROOF_EGRESS_ALLOW=127.0.0.1"),
        ("https://hooks.example.com:8080/h", "endpoint_port_not_allowed", "HOOKPROOF_EGRESS_PORTS"),
    ):
        status, problem = await _post(
            base, token, "/v1/subscriptions", {**body, "endpoint": endpoint}
        )
        assert status == 400 and problem["code"] == code, problem
        assert words in problem["detail"], problem
