"""Revoke and generation changes racing the dispatcher: the fencing check decides, the log shows it."""

from __future__ import annotations

import asyncio
import random

import msgspec

from hookproof.engine.runtime.daemon import Engine
from hookproof.engine.subscriptions import Transition
from hookproof.schemas.api import SubscriptionPatch

from .conftest import Subscriber, active_subscription, delivery, dispatch_all, publish


async def test_admission_waits_for_an_uncommitted_revoke_and_then_refuses(
    engine: Engine, tenant: str, subscriber: Subscriber
) -> None:
    sid = await active_subscription(engine, tenant, subscriber.url("ok"))
    [d] = (await publish(engine, tenant, "evt-race")).deliveries
    dispatcher = engine.services.dispatcher
    async with engine.pool.acquire() as conn:
        tx = conn.transaction()
        await tx.start()
        await engine.subscriptions.execute(sid, Transition("revoke"), actor="test", conn=conn)
        claim = asyncio.create_task(dispatcher.claim())
        done, _ = await asyncio.wait({claim}, timeout=0.5)
        assert not done, "admission must wait for the revoke's transaction (row held)"
        await tx.commit()
    jobs = await asyncio.wait_for(claim, 10)
    assert jobs == []
    view = await delivery(engine, tenant, d["deliveryId"])
    assert view["state"] == "QUARANTINED" and view["lastCode"] == "subscription_closed"
    assert subscriber.deliveries("ok") == []


async def test_revoke_racing_the_dispatcher_many_interleavings(
    engine: Engine, tenant: str, subscriber: Subscriber
) -> None:
    rng = random.Random(7)
    dispatcher = engine.services.dispatcher
    for i in range(12):
        path = f"ok-r{i}"
        sid = await active_subscription(engine, tenant, subscriber.url(path))
        [d] = (await publish(engine, tenant, f"evt-r{i}")).deliveries

        async def revoke() -> None:
            await asyncio.sleep(rng.random() * 0.02)
            await engine.subscriptions.transition(tenant, sid, "revoke", actor="test")

        async def admit() -> None:
            await asyncio.sleep(rng.random() * 0.02)
            await dispatch_all(engine)

        await asyncio.gather(revoke(), admit())
        await dispatch_all(engine)
        await dispatcher.drain()
        stream = await engine.store.read_stream(f"subscription-{sid}")
        revoke_version = next(
            e.stream_version
            for e in stream
            if e.type == "subscription.state_changed" and e.decode().command == "revoke"  # type: ignore[attr-defined]
        )
        ledger = await engine.store.read_stream(f"delivery-{d['deliveryId']}")
        for e in ledger:
            if e.type == "delivery.attempt_admitted":
                ev = e.decode()
                # it saw the subscription before the revoke, so it committed before the revoke
                assert ev.subscription_version < revoke_version  # type: ignore[attr-defined]
                assert ev.generation == 1  # type: ignore[attr-defined]
        view = await delivery(engine, tenant, d["deliveryId"])
        sent = subscriber.deliveries(path)
        if view["attempts"]:
            assert view["state"] == "ENDPOINT_ACCEPTED" and len(sent) == 1
        else:
            assert view["state"] == "QUARANTINED" and sent == []
        assert all(r.headers["Webhook-Generation"] == "1" for r in sent)


async def test_generation_change_racing_the_dispatcher_never_reaches_the_new_endpoint(
    engine: Engine, tenant: str, subscriber: Subscriber
) -> None:
    rng = random.Random(11)
    for i in range(10):
        old, new = f"ok-g{i}a", f"ok-g{i}b"
        sid = await active_subscription(engine, tenant, subscriber.url(old))
        for k in range(3):
            await publish(engine, tenant, f"evt-g{i}-{k}")

        async def change() -> None:
            await asyncio.sleep(rng.random() * 0.02)
            patch = msgspec.convert({"endpoint": subscriber.url(new)}, SubscriptionPatch)
            await engine.subscriptions.update(tenant, sid, 1, patch, actor="test")
            await engine.services.challenger.run(sid, actor="test")

        async def admit() -> None:
            await asyncio.sleep(rng.random() * 0.02)
            await dispatch_all(engine)

        await asyncio.gather(change(), admit())
        await dispatch_all(engine)
        # new endpoint: only the challenge for generation 2, never an old-generation delivery
        assert subscriber.deliveries(new) == []
        assert all(r.headers["Webhook-Generation"] == "1" for r in subscriber.deliveries(old))
        rows = await engine.pool.fetch(
            "SELECT state FROM deliveries WHERE subscription_id = $1", sid
        )
        assert {r["state"] for r in rows} <= {"ENDPOINT_ACCEPTED", "QUARANTINED"}
