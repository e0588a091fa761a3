"""Claims that run at once never share an endpoint's room: each reserves the room it may use
when it starts (``EndpointGates.reserve``) and gives back what it did not admit when it ends
(``settle``), so the per-endpoint in-flight limit holds across concurrent claim transactions
of one dispatcher (``Dispatcher.claims_at_once``)."""

from __future__ import annotations

import asyncio
import dataclasses

import pytest

from hookproof.config import Settings
from hookproof.engine.delivery.dispatcher import Dispatcher
from hookproof.engine.delivery.gates import EndpointGates
from hookproof.engine.runtime.daemon import Engine

from .conftest import Subscriber, active_subscription, publish


def test_reserved_room_is_not_reserved_twice() -> None:
    gates = EndpointGates(limit=8)
    gates.acquire("a", now=0.0, n=3)
    first = gates.reserve(now=0.0)
    assert first.rooms == {"a": 5} and first.others == 8 and first.blocked == []
    second = gates.reserve(now=0.0)  # a's room is held by the first; unknown ones too
    assert second.rooms == {} and second.blocked == ["a"] and second.others == 0
    assert second.room("a") == 0 and second.room("new") == 0 and first.room("new") == 8
    gates.settle(second, {})
    gates.settle(first, {"a": 2, "new": 4})  # a: 3 + 2 in flight; new: 4
    assert gates.inflight == {"a": 5, "new": 4} and not gates.others_reserved
    third = gates.reserve(now=0.0)
    assert third.rooms == {"a": 3, "new": 4} and third.others == 8
    with pytest.raises(ValueError):
        gates.settle(third, {"a": 4})
    gates.settle(third, {})
    for _ in range(5):
        gates.release("a", success=True, now=0.0)
    assert "a" not in gates.inflight and gates.inflight == {"new": 4}


async def test_concurrent_claims_never_exceed_an_endpoints_limit(
    engine: Engine, tenant: str, subscriber: Subscriber, settings: Settings
) -> None:
    await active_subscription(engine, tenant, subscriber.url("ok-many"))
    for i in range(30):
        await publish(engine, tenant, f"evt-many-{i}")
    real = engine.services.dispatcher
    d = Dispatcher(
        engine.store,
        dataclasses.replace(settings, worker_slot=(0, 1)),
        key_provider=real.key_provider,
        destination=real.destination,
        name="at-once",
    )
    limit = d.gates.limit
    # four claims at once, each in its own transaction: together no more than the limit
    batches = await asyncio.gather(*(d.claim() for _ in range(4)))
    jobs = [j for b in batches for j in b]
    assert len(jobs) == limit
    assert len({j.row.delivery_id for j in jobs}) == limit
    assert d.gates.inflight[jobs[0].row.endpoint_digest] == limit
    assert not d.gates.others_reserved
    assert await d.claim() == []  # full until a send ends
    for job in jobs[:3]:
        await d.send(job)
    more = await asyncio.gather(*(d.claim() for _ in range(3)))
    assert sum(len(b) for b in more) == 3  # the three freed slots, once
    for job in jobs[3:] + [j for b in more for j in b]:
        await d.send(job)
    assert d.gates.inflight == {}


async def test_rows_a_claim_skipped_are_claimed_again_soon_not_a_poll_later(
    engine: Engine, tenant: str, subscriber: Subscriber, settings: Settings
) -> None:
    """A claim skips rows another claim holds (SKIP LOCKED) and leaves their endpoint short of
    full, so no freed slot wakes the loop: after a claim that admitted sends it looks again
    every ``busy_poll_s`` for ``busy_window_s`` instead of waiting for the poll (30 s here)."""
    await active_subscription(engine, tenant, subscriber.url("ok-skipped"), topics=["a"])
    await active_subscription(engine, tenant, subscriber.url("ok-beside"), topics=["b"])
    await publish(engine, tenant, "evt-skip-1", topic="a")
    await publish(engine, tenant, "evt-skip-2", topic="a")
    await publish(engine, tenant, "evt-beside", topic="b")
    rows = await engine.pool.fetch(
        "SELECT d.delivery_id, d.event_id FROM deliveries d ORDER BY d.next_attempt_at"
    )
    ids = {r["event_id"]: r["delivery_id"] for r in rows}
    real = engine.services.dispatcher
    d = Dispatcher(
        engine.store,
        dataclasses.replace(settings, worker_slot=(0, 1)),
        key_provider=real.key_provider,
        destination=real.destination,
        name="busy",
        poll_interval=30.0,
        busy_poll_s=0.3,
        busy_window_s=3.0,
    )
    d.gates.limit = 2  # each endpoint: room 2, so one send leaves it short of full

    async def state(event_id: str) -> str:
        return await engine.pool.fetchval(
            "SELECT state FROM deliveries WHERE delivery_id = $1", ids[event_id]
        )

    async def until(event_ids: list[str], seconds: float) -> bool:
        deadline = asyncio.get_running_loop().time() + seconds
        while asyncio.get_running_loop().time() < deadline:
            if all([await state(e) == "ENDPOINT_ACCEPTED" for e in event_ids]):
                return True
            await asyncio.sleep(0.02)
        return False

    stop = asyncio.Event()
    task: asyncio.Task[None] | None = None
    holder = await engine.pool.acquire()
    tx = holder.transaction()
    await tx.start()
    try:
        try:  # a sibling's claim holds the oldest row of the first endpoint
            await holder.execute(
                "SELECT 1 FROM deliveries WHERE delivery_id = $1 FOR UPDATE", ids["evt-skip-1"]
            )
            task = asyncio.create_task(d.run(stop))
            assert await until(["evt-skip-2", "evt-beside"], 10.0)
            assert await state("evt-skip-1") == "PLANNED"
        finally:
            await tx.commit()  # the sibling is done with it (no events: no NOTIFY wakes anyone)
            await engine.pool.release(holder)
        assert await until(["evt-skip-1"], 2.5)  # within the busy window, not 30 s later
    finally:
        stop.set()
        d._wake.set()  # the loop notices the stop at its next turn
        if task is not None:
            await asyncio.wait_for(task, 10)
