"""Outcome batches: an outcome already committed by an earlier try (its answer lost to a
restart) does not cost the other outcomes of its batch their evidence."""

from __future__ import annotations

import asyncio
import uuid
from datetime import UTC, datetime

from hookproof.engine.delivery.batcher import OutcomeBatcher
from hookproof.engine.delivery.streams import append_to_deliveries
from hookproof.engine.runtime.daemon import Engine
from hookproof.errors import StoreError
from hookproof.events import Metadata, StreamAppend
from hookproof.events.delivery_events import EndpointAccepted

from .conftest import Subscriber, active_subscription, publish


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
