"""Writers of a delivery stream lock in one order (the ledger row, then the log): two
dispatchers never deadlock over a delivery.

The interleaving the fault campaign hit: dispatcher A's attempt outlived its lease, dispatcher
B's reconciler recorded it lost and B claims the delivery again, while A's late outcome is
appended after whatever happened meanwhile. B's claim holds the ledger row (``FOR UPDATE``)
and then inserts its admission; the outcome used to insert its event first and then wait for
the row, while B's insert waited for the outcome's (stream, version) key: a cycle, which
Postgres broke by aborting one of them (``DeadlockDetectedError``).
"""

from __future__ import annotations

import asyncio

from hookproof.config import Settings
from hookproof.engine.delivery.dispatcher import Dispatcher
from hookproof.engine.runtime.daemon import Engine
from tests.support import until_a_writer_waits

from .conftest import Subscriber, active_subscription, delivery, publish, stalled_dispatcher


async def test_late_outcome_and_a_new_claim_of_the_same_delivery_do_not_deadlock(
    engine: Engine, tenant: str, subscriber: Subscriber, settings: Settings
) -> None:
    sid = await active_subscription(engine, tenant, subscriber.url("ok"))
    [d] = (await publish(engine, tenant, "evt-lock-order")).deliveries
    real = engine.services.dispatcher
    a = stalled_dispatcher(engine, settings, "A")
    [job] = await a.claim()
    result = await a.destination.deliver(a.message_for(job), job.row)
    assert result.ok

    holding, go_on = asyncio.Event(), asyncio.Event()

    async def held_keys(scope: str, alg: str):  # type: ignore[no-untyped-def]
        holding.set()  # B's claiming transaction holds the delivery's row here
        await go_on.wait()
        return await real.key_provider(scope, alg)

    b = Dispatcher(
        engine.store, settings, key_provider=held_keys, destination=real.destination, name="B"
    )
    assert await b.reconcile_leases() == 1  # A's attempt: UNKNOWN_TRANSPORT, due again
    claim = asyncio.create_task(b.claim())
    await holding.wait()
    record = asyncio.create_task(a.record(job, result, 0.01))  # A's late outcome
    await until_a_writer_waits(engine.pool)  # it waits for B (the row)
    go_on.set()  # B admits its attempt
    claimed, recorded = await asyncio.gather(claim, record, return_exceptions=True)
    assert not isinstance(recorded, BaseException), repr(recorded)
    assert not isinstance(claimed, BaseException), repr(claimed)
    assert [j.row.delivery_id for j in claimed] == [d["deliveryId"]]

    log = await engine.store.read_stream(f"delivery-{d['deliveryId']}")
    types = [e.type for e in log]
    assert types[-3:] == [
        "delivery.attempt_lost",
        "delivery.attempt_admitted",
        "delivery.endpoint_accepted",
    ], types
    assert log[-2].decode().attempt == 2  # type: ignore[attr-defined]
    assert log[-1].decode().attempt == 1  # type: ignore[attr-defined]
    view = await delivery(engine, tenant, d["deliveryId"])
    assert view["deliveryId"] == d["deliveryId"] and sid
