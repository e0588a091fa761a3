"""Outcome batches: an outcome already committed by an earlier try (its answer lost to a
restart) does not cost the other outcomes of its batch their evidence."""

from __future__ import annotations

import asyncio
import uuid
from datetime import UTC, datetime
from typing import Any

from hookproof.engine.delivery.batcher import OutcomeBatcher
from hookproof.engine.delivery.streams import append_to_deliveries
from hookproof.engine.runtime.daemon import Engine
from hookproof.errors import StoreError
from hookproof.events import Metadata, StreamAppend
from hookproof.events.delivery_events import EndpointAccepted

from .conftest import Subscriber, active_subscription, delivery, publish


async def test_a_batch_with_an_outcome_committed_before_records_the_others(
    engine: Engine, tenant: str, subscriber: Subscriber
) -> None:
    await active_subscription(engine, tenant, subscriber.url("ok"))
    for i in range(2):
        await publish(engine, tenant, f"evt-dup-{i}")
    jobs = await engine.services.dispatcher.claim()  # admitted, not sent
    assert len(jobs) == 2 and all(j.head_hash is not None for j in jobs)
    at = datetime.now(UTC).isoformat()
    outcomes = [
        StreamAppend(
            f"delivery-{j.row.delivery_id}",
            [
                EndpointAccepted(
                    delivery_id=j.row.delivery_id,
                    attempt=j.attempt,
                    status=204,
                    peer_address="127.0.0.1",
                    spki_sha256=None,
                    duration_ms=1.0,
                    at=at,
                )
            ],
            j.version,
            Metadata(actor="dispatcher:test"),
            [uuid.uuid4()],  # fixed once, as the dispatcher's retries keep them
            j.head_hash,
        )
        for j in jobs
    ]
    await append_to_deliveries(engine.store, outcomes[:1], dispatch=True)  # the lost answer

    batcher = OutcomeBatcher(engine.store)
    first, second = await asyncio.gather(
        *(batcher.append(o) for o in outcomes), return_exceptions=True
    )
    assert isinstance(first, StoreError)  # written before: a duplicate id or a conflict
    assert second is None
    for j in jobs:
        log = await engine.store.read_stream(f"delivery-{j.row.delivery_id}")
        assert [e.type for e in log].count("delivery.endpoint_accepted") == 1


def _accepted(job: Any, at: str) -> StreamAppend:
    return StreamAppend(
        f"delivery-{job.row.delivery_id}",
        [
            EndpointAccepted(
                delivery_id=job.row.delivery_id,
                attempt=job.attempt,
                status=204,
                peer_address="127.0.0.1",
                spki_sha256=None,
                duration_ms=1.0,
                at=at,
            )
        ],
        job.version,
        Metadata(actor="dispatcher:test"),
        [uuid.uuid4()],
        job.head_hash,
    )


async def test_queued_outcomes_ride_the_next_claims_transaction(
    engine: Engine, tenant: str, subscriber: Subscriber
) -> None:
    """Outcomes waiting for a batch are committed by the next claim, in its transaction (one
    transaction id with its admissions), each in its own stream; none is written twice."""
    await active_subscription(engine, tenant, subscriber.url("ok"))
    dispatcher = engine.services.dispatcher
    dispatcher.outcomes.linger_s = 30.0  # never on their own in this test
    for i in range(2):
        await publish(engine, tenant, f"evt-ride-{i}")
    first = await dispatcher.claim()
    assert len(first) == 2
    at = datetime.now(UTC).isoformat()
    waiting = [asyncio.create_task(dispatcher.outcomes.append(_accepted(j, at))) for j in first]
    await asyncio.sleep(0.05)
    assert not any(t.done() for t in waiting)  # queued, not appended yet

    await publish(engine, tenant, "evt-ride-next")
    second = await dispatcher.claim()  # carries the two outcomes
    assert len(second) == 1
    await asyncio.wait_for(asyncio.gather(*waiting), 5)
    admitted = await engine.store.read_stream(f"delivery-{second[0].row.delivery_id}")
    tx = admitted[-1].tx_id
    for j in first:
        log = await engine.store.read_stream(f"delivery-{j.row.delivery_id}")
        assert [e.type for e in log][-1] == "delivery.endpoint_accepted"
        assert [e.type for e in log].count("delivery.endpoint_accepted") == 1
        assert log[-1].tx_id == tx  # committed with the second claim's admission
        state = await delivery(engine, tenant, j.row.delivery_id)
        assert state["state"] == "ENDPOINT_ACCEPTED"


async def test_a_rider_whose_stream_moved_costs_neither_the_claim_nor_the_others(
    engine: Engine, tenant: str, subscriber: Subscriber
) -> None:
    """An outcome carried by a claim conflicts (its stream moved meanwhile): the claim is
    redone without the outcomes, which then go as a batch of their own: the other outcome is
    recorded, the conflicting one is refused to its caller alone, nothing is written twice."""
    await active_subscription(engine, tenant, subscriber.url("ok"))
    dispatcher = engine.services.dispatcher
    dispatcher.outcomes.linger_s = 30.0
    for i in range(2):
        await publish(engine, tenant, f"evt-moved-{i}")
    first = await dispatcher.claim()
    assert len(first) == 2
    at = datetime.now(UTC).isoformat()
    outcomes = [_accepted(j, at) for j in first]
    await append_to_deliveries(engine.store, [_accepted(first[0], at)])  # moves stream 0
    waiting = [asyncio.create_task(dispatcher.outcomes.append(o)) for o in outcomes]
    await asyncio.sleep(0.05)

    await publish(engine, tenant, "evt-moved-next")
    second = await dispatcher.claim()
    assert len(second) == 1  # the claim itself was not lost
    moved, other = await asyncio.wait_for(asyncio.gather(*waiting, return_exceptions=True), 5)
    assert isinstance(moved, StoreError)  # a conflict, to its caller alone
    assert other is None
    for j in first:
        log = await engine.store.read_stream(f"delivery-{j.row.delivery_id}")
        assert [e.type for e in log].count("delivery.endpoint_accepted") == 1
