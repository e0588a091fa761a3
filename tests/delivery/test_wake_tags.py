"""The events channel tells the dispatchers' own commits apart (migration 0710): a claim's and
an outcome's notification carries the dispatch tag, which wakes no dispatcher; ingest's does not."""

from __future__ import annotations

import asyncio

from hookproof.engine.delivery.dispatcher import DISPATCH_TAG
from hookproof.engine.runtime.daemon import Engine
from hookproof.events.store import NOTIFY_CHANNEL

from .conftest import Subscriber, active_subscription, delivery, dispatch_all, publish


async def test_claims_and_outcomes_are_tagged_ingest_is_not(
    engine: Engine, tenant: str, subscriber: Subscriber
) -> None:
    await active_subscription(engine, tenant, subscriber.url("ok"))
    payloads: asyncio.Queue[str] = asyncio.Queue()

    def heard(_conn: object, _pid: int, _channel: str, payload: str) -> None:
        payloads.put_nowait(payload)

    async with engine.pool.acquire() as listener:
        await listener.add_listener(NOTIFY_CHANNEL, heard)

        async def until_untagged() -> list[str]:
            """The payloads up to and including the next untagged one (commit order)."""
            seen = []
            while not seen or seen[-1] == DISPATCH_TAG:
                seen.append(await asyncio.wait_for(payloads.get(), 10))
            return seen

        [d] = (await publish(engine, tenant, "evt-tag-1")).deliveries
        assert (await until_untagged())[-1] == ""
        assert await dispatch_all(engine) == 1
        assert (await delivery(engine, tenant, d["deliveryId"]))["state"] == "ENDPOINT_ACCEPTED"
        await publish(engine, tenant, "evt-tag-2")  # untagged: marks the end
        between = (await until_untagged())[:-1]
        # the admission's transaction and the outcome's, both tagged
        assert between == [DISPATCH_TAG, DISPATCH_TAG]
        await listener.remove_listener(NOTIFY_CHANNEL, heard)
