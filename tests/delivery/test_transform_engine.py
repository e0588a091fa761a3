"""Subscriptions' ``transformation`` through the engine (issue 53, DESIGN.md section 17): the
handler's output is the body signed and sent to a real HTTPS receiver (it verifies under
sig.v1), the attempt records the code's, input's and output's digests; a handler that throws
or loops dead-letters its delivery at once with ``transformation_failed`` while another
subscription's delivery of the same event is accepted; ``cancel`` is
``transformation_cancelled``; code that does not compile is refused when written."""

from __future__ import annotations

import hashlib
import json
from typing import Any

import msgspec
import pytest

from hookproof.engine.api.subscriptions import subscription_view
from hookproof.engine.runtime.daemon import Engine
from hookproof.errors import ValidationError
from hookproof.events.delivery_events import delivery_stream_id
from hookproof.schemas.api import SubscriptionCreate
from hookproof.schemas.api_out import Subscription
from hookproof_subscriber import JwksKeyResolver, verify_request

from .conftest import Subscriber, active_subscription, delivery, dispatch_all, publish

RESHAPE = """function handler(webhook) {
  const amount = webhook.payload.payload.amount;
  webhook.payload = { text: "order " + webhook.eventType + " of " + amount,
                      at: new Date().toISOString(), r: Math.random() };
  return webhook;
}"""
THROWS = 'function handler(webhook) {\n  throw new Error("no " + webhook.eventType);\n}'
LOOPS = "function handler(webhook) { for (;;) {} }"
CANCELS = "function handler(webhook) { webhook.cancel = true; return webhook; }"


def _js(code: str) -> dict[str, str]:
    return {"language": "javascript", "code": code}


async def _recorded(engine: Engine, delivery_id: str) -> list[dict[str, Any]]:
    events = await engine.store.read_stream(delivery_stream_id(delivery_id))
    return [{"type": e.type, **json.loads(e.data)} for e in events]


async def _verifies(engine: Engine, subscriber: Subscriber, path: str) -> None:
    async def fetch(_: str) -> bytes:
        return json.dumps(await engine.services.keyring.jwks()).encode()

    resolver = JwksKeyResolver(
        "https://engine.invalid/.well-known/hookproof/jwks.json", fetch=fetch
    )
    await resolver.refresh()
    [got] = subscriber.deliveries(path)
    verdict = verify_request("POST", subscriber.url(path), got.headers, got.body, keys=resolver)
    assert verdict.ok, verdict.reason


async def test_the_output_is_signed_sent_and_in_the_evidence(
    engine: Engine, tenant: str, subscriber: Subscriber
) -> None:
    sid = await active_subscription(
        engine, tenant, subscriber.url("ok-shaped"), transformation=_js(RESHAPE)
    )
    view = msgspec.convert(
        subscription_view(await engine.subscriptions.get(tenant, sid)), Subscription
    )
    assert view.transformation is not msgspec.UNSET
    assert view.transformation.code == RESHAPE
    assert view.transformation.digest == hashlib.sha256(RESHAPE.encode()).hexdigest()
    await active_subscription(engine, tenant, subscriber.url("ok-plain"))
    result = await publish(engine, tenant, "evt-t1", {"amount": 42})
    await dispatch_all(engine)

    [got] = subscriber.deliveries("ok-shaped")
    # the fixed clock is the event's occurredAt, the seed the event's: the same bytes each time
    body = json.loads(got.body)
    assert body["text"] == "order order.created of 42"
    assert body["at"] == "2026-11-30T10:00:00.000Z"
    assert 0 <= body["r"] < 1
    assert got.body == json.dumps(body, sort_keys=True, separators=(",", ":")).encode()
    await _verifies(engine, subscriber, "ok-shaped")
    [plain] = subscriber.deliveries("ok-plain")
    assert json.loads(plain.body)["payload"] == {"amount": 42}  # no transformation: as stored

    by_sub = {d["subscriptionId"]: d["deliveryId"] for d in result.deliveries}
    did = by_sub[got.headers["Webhook-Subscription"]]
    assert (await delivery(engine, tenant, did))["state"] == "ENDPOINT_ACCEPTED"
    [accepted] = [
        e for e in await _recorded(engine, did) if e["type"] == "delivery.endpoint_accepted"
    ]
    digests = accepted["request"]["transformation"]
    assert digests["code"] == hashlib.sha256(RESHAPE.encode()).hexdigest()
    assert len(digests["input"]) == 64 and len(digests["output"]) == 64
    plain_id = by_sub[plain.headers["Webhook-Subscription"]]
    plain_events = await _recorded(engine, plain_id)
    assert all("transformation" not in e.get("request", {}) for e in plain_events)


@pytest.mark.parametrize(
    ("code", "reason"),
    [
        (THROWS, "transformation_failed"),
        (LOOPS, "transformation_failed"),
        (CANCELS, "transformation_cancelled"),
    ],
)
async def test_a_failure_dead_letters_at_once_and_harms_no_other_delivery(
    engine: Engine, tenant: str, subscriber: Subscriber, code: str, reason: str
) -> None:
    bad = await active_subscription(
        engine, tenant, subscriber.url("ok-bad"), transformation=_js(code)
    )
    await active_subscription(engine, tenant, subscriber.url("ok-good"))
    result = await publish(engine, tenant, "evt-t2")
    await dispatch_all(engine)
    await dispatch_all(engine)  # nothing is retried

    assert subscriber.deliveries("ok-bad") == []
    assert len(subscriber.deliveries("ok-good")) == 1
    did = next(d["deliveryId"] for d in result.deliveries if d["subscriptionId"] == bad)
    view = await delivery(engine, tenant, did)
    assert view["state"] == "DEAD_LETTER", view
    events = await _recorded(engine, did)
    [failed] = [e for e in events if e["type"] == "delivery.attempt_failed"]
    assert failed["code"] == reason and failed["attempt"] == 1
    record = failed["request"]["transformation"]
    assert record["code"] == hashlib.sha256(code.encode()).hexdigest()
    if reason == "transformation_failed":
        assert record["kind"] in {"throw", "fuel", "timeout"}
        if code is THROWS:
            assert record["message"] == "Error: no order.created" and record["line"] == 2
    [dead] = [e for e in events if e["type"] == "delivery.dead_lettered"]
    assert reason in json.dumps(dead)


async def test_code_that_does_not_compile_is_refused_when_written(
    engine: Engine, tenant: str, subscriber: Subscriber
) -> None:
    body: dict[str, Any] = {
        "endpoint": subscriber.url("ok-x"),
        "topics": ["order.created"],
        "eventVersions": [1],
        "region": "eu",
        "signatureAlgorithm": "ed25519",
        "owner": "team-orders",
        "transformation": _js("function handler(webhook) { return webhook; "),
    }
    with pytest.raises(ValidationError) as caught:
        await engine.subscriptions.register(
            tenant, msgspec.convert(body, SubscriptionCreate), actor="test"
        )
    assert caught.value.code == "transformation_invalid"
