"""The ledger end to end: real Postgres, real HTTPS subscriber, the real pinned transport."""

from __future__ import annotations

import asyncio
from datetime import timedelta

import pytest

from hookproof.engine.runtime.daemon import Engine
from hookproof.errors import ConflictError
from hookproof.events.delivery_events import event_stream_id
from hookproof_subscriber import JwksKeyResolver, verify_request

from .conftest import Subscriber, active_subscription, delivery, dispatch_all, publish

FAST = {"retryPolicy": {"initialDelayS": 0.05, "maxDelayS": 0.05, "maxAttempts": 3}}


async def test_2xx_is_endpoint_accepted_and_nothing_more(
    engine: Engine, tenant: str, subscriber: Subscriber
) -> None:
    sid = await active_subscription(engine, tenant, subscriber.url("ok"))
    result = await publish(engine, tenant, "evt-1")
    [planned] = result.deliveries
    assert planned["subscriptionId"] == sid
    assert await dispatch_all(engine) == 1
    view = await delivery(engine, tenant, planned["deliveryId"])
    assert view["state"] == "ENDPOINT_ACCEPTED"
    assert view["evidence"] == {"endpoint": "ENDPOINT_ACCEPTED", "application": "UNOBSERVABLE"}
    [attempt] = view["attempts"]
    assert attempt["status"] == 204 and attempt["peerAddress"] == "127.0.0.1"
    assert attempt["generation"] == 1 and attempt["keyId"]
    # the bytes on the wire are the stored canonical bytes and verify under sig.v1 via the JWKS
    [got] = subscriber.deliveries("ok")
    jwks = engine.services.keyring

    async def fetch(_: str) -> bytes:
        import json

        return json.dumps(await jwks.jwks()).encode()

    resolver = JwksKeyResolver(
        "https://engine.invalid/.well-known/hookproof/jwks.json", fetch=fetch
    )
    await resolver.refresh()
    verdict = verify_request("POST", subscriber.url("ok"), got.headers, got.body, keys=resolver)
    assert verdict.ok, verdict.reason
    assert got.headers["Webhook-Id"] == "evt-1"
    assert got.headers["Webhook-Delivery-Id"] == planned["deliveryId"]
    assert got.headers["Webhook-Subscription"] == sid and got.headers["Webhook-Generation"] == "1"
    assert got.headers["Content-Digest"] == result.payload_digest
    assert got.headers["traceparent"].startswith("00-")
    # dispatching again sends nothing: the attempt is done
    assert await dispatch_all(engine) == 0
    assert len(subscriber.deliveries("ok")) == 1


async def test_3xx_is_a_failure_and_location_is_never_contacted(
    engine: Engine, tenant: str, subscriber: Subscriber
) -> None:
    await active_subscription(engine, tenant, subscriber.url("redirect"), **FAST)
    [d] = (await publish(engine, tenant, "evt-r")).deliveries
    await dispatch_all(engine)
    view = await delivery(engine, tenant, d["deliveryId"])
    assert view["state"] == "RETRYABLE"
    [attempt] = view["attempts"]
    assert attempt["code"] == "redirect" and attempt["status"] == 307
    assert attempt["location"] == subscriber.url("elsewhere")
    assert subscriber.redirect_hits == 0


@pytest.mark.parametrize("mode", ["drop", "hang", "slow"])
async def test_lost_response_is_unknown_transport_then_same_identity(
    engine: Engine, tenant: str, subscriber: Subscriber, mode: str
) -> None:
    await active_subscription(engine, tenant, subscriber.url(mode), **FAST)
    [d] = (await publish(engine, tenant, f"evt-{mode}")).deliveries
    await dispatch_all(engine)
    view = await delivery(engine, tenant, d["deliveryId"])
    assert view["state"] == "UNKNOWN_TRANSPORT", view
    assert view["attempts"][0]["requestWritten"] is True
    subscriber.modes[mode] = "ok"
    await asyncio.sleep(0.1)
    await dispatch_all(engine)
    view = await delivery(engine, tenant, d["deliveryId"])
    assert view["state"] == "ENDPOINT_ACCEPTED"
    first, second = subscriber.deliveries(mode)[:2]
    for h in ("Webhook-Id", "Webhook-Delivery-Id", "Content-Digest"):
        assert first.headers[h] == second.headers[h]
    assert (first.headers["Webhook-Attempt"], second.headers["Webhook-Attempt"]) == ("1", "2")
    assert first.body == second.body


async def test_same_event_id_other_payload_is_409_and_nothing_planned_twice(
    engine: Engine, tenant: str, subscriber: Subscriber
) -> None:
    await active_subscription(engine, tenant, subscriber.url("ok"))
    first = await publish(engine, tenant, "evt-dup", {"amount": 1})
    again = await publish(engine, tenant, "evt-dup", {"amount": 1})
    assert again.deliveries == first.deliveries and again.payload_digest == first.payload_digest
    with pytest.raises(ConflictError) as err:
        await publish(engine, tenant, "evt-dup", {"amount": 2})
    assert err.value.code == "event_payload_conflict"
    n = await engine.pool.fetchval("SELECT count(*) FROM deliveries WHERE event_id = 'evt-dup'")
    assert n == 1
    types = [e.type for e in await engine.store.read_stream(event_stream_id(tenant, "evt-dup"))]
    assert types == ["event.ingested", "event.payload_conflict"]
    await dispatch_all(engine)
    assert len(subscriber.deliveries("ok")) == 1


async def test_stale_plan_after_generation_change_is_refused(
    engine: Engine, tenant: str, subscriber: Subscriber
) -> None:
    sid = await active_subscription(engine, tenant, subscriber.url("ok-old"))
    [d] = (await publish(engine, tenant, "evt-stale")).deliveries
    import msgspec

    from hookproof.schemas.api import SubscriptionPatch

    await engine.subscriptions.update(
        tenant,
        sid,
        1,
        msgspec.convert({"endpoint": subscriber.url("ok-new")}, SubscriptionPatch),
        actor="test",
    )
    assert (await engine.services.challenger.run(sid, actor="test"))["passed"]
    await dispatch_all(engine)
    view = await delivery(engine, tenant, d["deliveryId"])
    assert view["state"] == "QUARANTINED" and view["lastCode"] == "stale_generation"
    assert view["attempts"] == []
    assert subscriber.deliveries("ok-new") == [] and subscriber.deliveries("ok-old") == []
    log = [e.type for e in await engine.store.read_stream(f"delivery-{d['deliveryId']}")]
    assert log == ["delivery.planned", "delivery.quarantined"]


async def test_gone_dead_letters_with_owner_and_suspends(
    engine: Engine, tenant: str, subscriber: Subscriber
) -> None:
    sid = await active_subscription(engine, tenant, subscriber.url("gone"))
    [d] = (await publish(engine, tenant, "evt-gone")).deliveries
    await dispatch_all(engine)
    view = await delivery(engine, tenant, d["deliveryId"])
    assert view["state"] == "DEAD_LETTER"
    assert view["deadLetter"]["owner"] == "team-orders"
    assert view["deadLetter"]["reason"] == "endpoint_gone"
    assert (await engine.subscriptions.load(sid)).state == "SUSPENDED"  # type: ignore[union-attr]


async def test_exhaustion_dead_letter_and_replay(
    engine: Engine, tenant: str, subscriber: Subscriber
) -> None:
    await active_subscription(engine, tenant, subscriber.url("fail500"), **FAST)
    [d] = (await publish(engine, tenant, "evt-500")).deliveries
    for _ in range(3):
        await dispatch_all(engine)
        await asyncio.sleep(0.1)
    view = await delivery(engine, tenant, d["deliveryId"])
    assert view["state"] == "DEAD_LETTER" and len(view["attempts"]) == 3
    assert view["deadLetter"]["reason"] == "exhausted:http_500"
    letters = await engine.services.reader.dead_letters(tenant)
    assert [(x["deliveryId"], x["owner"]) for x in letters] == [(d["deliveryId"], "team-orders")]
    subscriber.modes["fail500"] = "ok"
    await engine.services.reader.replay(
        tenant, d["deliveryId"], actor="test", now="2026-11-30T00:00:00+00:00"
    )
    await dispatch_all(engine)
    view = await delivery(engine, tenant, d["deliveryId"])
    assert view["state"] == "ENDPOINT_ACCEPTED" and len(view["attempts"]) == 4
    assert {r.headers["Webhook-Delivery-Id"] for r in subscriber.deliveries("fail500")} == {
        d["deliveryId"]
    }


async def test_one_hanging_endpoint_does_not_delay_the_others(
    engine: Engine, tenant: str, subscriber: Subscriber
) -> None:
    await active_subscription(engine, tenant, subscriber.url("hang"))
    await active_subscription(engine, tenant, subscriber.url("fail500"))
    for i in range(50):
        await active_subscription(engine, tenant, subscriber.url(f"ok-{i}"))
    await publish(engine, tenant, "evt-many")
    await dispatch_all(engine)
    rows = await engine.pool.fetch(
        "SELECT endpoint, state FROM deliveries WHERE event_id = 'evt-many'"
    )
    states = {r["endpoint"].rsplit("/", 1)[1]: r["state"] for r in rows}
    assert (
        sum(1 for k, v in states.items() if k.startswith("ok-") and v == "ENDPOINT_ACCEPTED") == 50
    )
    # causal order from the log: every 2xx was recorded before the hanging attempt gave up
    recorded = await engine.pool.fetch(
        "SELECT e.type, e.global_position, d.endpoint FROM events e "
        "JOIN deliveries d ON e.stream_id = 'delivery-' || d.delivery_id "
        "WHERE d.event_id = 'evt-many' AND e.type IN "
        "('delivery.endpoint_accepted', 'delivery.attempt_failed')"
    )
    hang_done = max(r["global_position"] for r in recorded if r["endpoint"].endswith("/hang"))
    ok_done = [r["global_position"] for r in recorded if r["type"] == "delivery.endpoint_accepted"]
    assert len(ok_done) == 50 and max(ok_done) < hang_done


async def test_a_hostile_retry_after_is_ignored_and_max_attempts_dead_letters(
    engine: Engine, tenant: str, subscriber: Subscriber
) -> None:
    policy = {"retryPolicy": {"initialDelayS": 0.05, "maxDelayS": 0.05, "maxAttempts": 2}}
    await active_subscription(engine, tenant, subscriber.url("superscript"), **policy)
    [d] = (await publish(engine, tenant, "evt-sup")).deliveries
    for _ in range(4):
        await dispatch_all(engine)
        await asyncio.sleep(0.1)
    view = await delivery(engine, tenant, d["deliveryId"])
    assert view["state"] == "DEAD_LETTER", view
    assert view["deadLetter"]["reason"] == "exhausted:http_503"
    assert [a["attempt"] for a in view["attempts"]] == [1, 2]
    assert len(subscriber.deliveries("superscript")) == 2
    failed = [
        e.decode()
        for e in await engine.store.read_stream(f"delivery-{d['deliveryId']}")
        if e.type == "delivery.attempt_failed"
    ]
    assert [f.retry_after_ignored for f in failed] == ["unparsable", "unparsable"]  # type: ignore[attr-defined]


async def test_max_attempts_holds_after_a_lost_lease(
    engine: Engine, tenant: str, subscriber: Subscriber
) -> None:
    """The dispatcher of the last allowed attempt vanished: the next claim dead-letters."""
    await active_subscription(engine, tenant, subscriber.url("ok"), retryPolicy={"maxAttempts": 1})
    [d] = (await publish(engine, tenant, "evt-lease")).deliveries
    dispatcher = engine.services.dispatcher
    clock = dispatcher.clock
    dispatcher.clock = lambda: clock() - timedelta(hours=1)  # its lease is long over
    try:
        [job] = await dispatcher.claim()  # admitted, then the dispatcher "dies"
    finally:
        dispatcher.clock = clock
    assert job.attempt == 1
    assert await dispatcher.reconcile_leases() == 1
    assert (await delivery(engine, tenant, d["deliveryId"]))["state"] == "UNKNOWN_TRANSPORT"
    await dispatch_all(engine)
    view = await delivery(engine, tenant, d["deliveryId"])
    assert view["state"] == "DEAD_LETTER", view
    assert view["deadLetter"]["reason"] == "exhausted:dispatcher_lost"
    assert subscriber.deliveries("ok") == []
