"""``serve --workers N``: each process claims its own share of the endpoints first, so a
subscriber site is served by one process (and its pooled connections); a sibling's rows are
claimed by the others once they have been due ``steal_after_s`` (none is stranded)."""

from __future__ import annotations

import dataclasses

from hookproof.config import Settings
from hookproof.engine.delivery.claim import claim_shares
from hookproof.engine.delivery.dispatcher import Dispatcher
from hookproof.engine.runtime.daemon import Engine

from .conftest import Subscriber, active_subscription, publish

SHARE = (
    "SELECT mod(abs(hashtext(endpoint_digest)::bigint), 2) FROM deliveries WHERE delivery_id = $1"
)


def test_shares_own_first_then_the_others_overdue() -> None:
    assert claim_shares((0, 1)) == [(1, 0, True, 0.0)]
    assert claim_shares((1, 2), 0.5) == [(2, 1, True, 0.0), (2, 1, False, 0.5)]


def _dispatcher(engine: Engine, settings: Settings, slot: int, steal_after_s: float) -> Dispatcher:
    real = engine.services.dispatcher
    return Dispatcher(
        engine.store,
        dataclasses.replace(settings, worker_slot=(slot, 2)),
        key_provider=real.key_provider,
        destination=real.destination,
        name=f"worker-{slot}",
        steal_after_s=steal_after_s,
    )


async def test_each_worker_claims_its_own_endpoints_and_overdue_ones_of_the_other(
    engine: Engine, tenant: str, subscriber: Subscriber, settings: Settings
) -> None:
    # subscriptions on distinct endpoints until both shares of two workers are present; each
    # on its own topic, so every endpoint has one delivery (a claim takes no more rows for an
    # endpoint than its concurrency room, 8: a shared topic made the test fail whenever the
    # first eight endpoints fell in one share)
    by_share: dict[int, str] = {}
    for i in range(16):
        topic = f"share.t{i}"
        await active_subscription(engine, tenant, subscriber.url(f"ok/site-{i}"), topics=[topic])
        for d in (await publish(engine, tenant, f"evt-share-{i}", topic=topic)).deliveries:
            share = await engine.pool.fetchval(SHARE, d["deliveryId"])
            by_share.setdefault(share, d["deliveryId"])
        if len(by_share) == 2:
            break
    assert len(by_share) == 2
    everything = {
        r["delivery_id"]
        for r in await engine.pool.fetch(
            "SELECT delivery_id FROM deliveries WHERE state = 'PLANNED'"
        )
    }

    # fresh rows: worker 0 takes only its share; worker 1 (stealing after an hour) only its own
    zero = await _dispatcher(engine, settings, 0, 3600).claim()
    ids_zero = {j.row.delivery_id for j in zero}
    assert ids_zero and by_share[0] in ids_zero and by_share[1] not in ids_zero
    assert [await engine.pool.fetchval(SHARE, i) for i in ids_zero] == [0] * len(ids_zero)
    await _drain(zero, engine)

    one = await _dispatcher(engine, settings, 1, 3600).claim()
    ids_one = {j.row.delivery_id for j in one}
    assert by_share[1] in ids_one and not ids_one & ids_zero
    assert ids_zero | ids_one == everything
    await _drain(one, engine)


async def test_a_siblings_overdue_rows_are_claimed(
    engine: Engine, tenant: str, subscriber: Subscriber, settings: Settings
) -> None:
    for i in range(16):
        await active_subscription(engine, tenant, subscriber.url(f"ok/other-{i}"))
    await publish(engine, tenant, "evt-overdue")
    rows = await engine.pool.fetch(
        "SELECT delivery_id, mod(abs(hashtext(endpoint_digest)::bigint), 2) AS share"
        " FROM deliveries WHERE state = 'PLANNED'"
    )
    assert {r["share"] for r in rows} == {0, 1}
    # worker 0 alone (its sibling dead): rows of share 1 due for >= 0 s are taken too
    jobs = await _dispatcher(engine, settings, 0, 0.0).claim()
    assert {j.row.delivery_id for j in jobs} == {r["delivery_id"] for r in rows}
    await _drain(jobs, engine)


async def _drain(jobs: list, engine: Engine) -> None:  # type: ignore[type-arg]
    d = engine.services.dispatcher
    for job in jobs:
        await d.send(job)


async def test_a_freed_slot_wakes_the_claim_loop_only_when_the_endpoint_was_full(
    engine: Engine, tenant: str, subscriber: Subscriber, settings: Settings
) -> None:
    """Every finished send used to wake the claim loop (an empty claim transaction per
    delivery at moderate load); now only one that gives a full endpoint room again does."""
    await active_subscription(engine, tenant, subscriber.url("ok/wake"))
    await publish(engine, tenant, "evt-wake-1")
    d = _dispatcher(engine, settings, 0, 0.0)
    [job] = await d.claim()
    d._wake.clear()
    await d.send(job)  # limit 8, one in flight: the endpoint was never full
    assert not d._wake.is_set()

    await publish(engine, tenant, "evt-wake-2")
    d.gates.limit = 1
    [job] = await d.claim()
    d._wake.clear()
    await d.send(job)  # its only slot: full until released
    assert d._wake.is_set()
