"""Ordered delivery per aggregate against a real engine, Postgres and HTTPS subscriber:
versions go out one at a time in aggregateVersion order, gaps are skipped after their timeout,
a dead letter holds its aggregate until replayed or skipped, and nothing else ever waits."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from hookproof.engine.runtime.daemon import Engine
from hookproof.errors import ConflictError

from ..delivery.conftest import (
    Subscriber,
    active_subscription,
    delivery,
    dispatch_all,
    publish,
)

FAST = {"initialDelayS": 0.05, "maxDelayS": 0.05, "maxAttempts": 3}


def _versions(subscriber: Subscriber, path: str) -> list[tuple[str, int]]:
    out = []
    for r in subscriber.deliveries(path):
        doc = json.loads(r.body)
        out.append((doc["aggregateId"], doc["aggregateVersion"]))
    return out


async def _ordered(
    engine: Engine, tenant: str, subscriber: Subscriber, path: str, **over: Any
) -> str:
    over.setdefault("retryPolicy", FAST)
    return await active_subscription(
        engine, tenant, subscriber.url(path), topics=["order.created"], ordering="aggregate", **over
    )


async def _publish(engine: Engine, tenant: str, aggregate: str, version: int) -> dict[str, str]:
    result = await publish(
        engine,
        tenant,
        f"{aggregate}-v{version}",
        aggregateId=aggregate,
        aggregateVersion=version,
    )
    return {d["subscriptionId"]: d["deliveryId"] for d in result.deliveries}


async def _run(engine: Engine, rounds: int = 8) -> None:
    for _ in range(rounds):
        await dispatch_all(engine)


async def _state(engine: Engine, tenant: str, did: str) -> str:
    return str((await delivery(engine, tenant, did))["state"])


async def test_published_3_1_2_arrive_1_2_3(
    engine: Engine, tenant: str, subscriber: Subscriber
) -> None:
    sid = await _ordered(engine, tenant, subscriber, "ok-ordered")
    view = await engine.subscriptions.get(tenant, sid)
    assert view.config.ordering == "aggregate" and view.config.ordering_gap_timeout_s == 60
    for v in (3, 1, 2):
        await _publish(engine, tenant, "order-1", v)
    await _run(engine)
    assert _versions(subscriber, "ok-ordered") == [("order-1", 1), ("order-1", 2), ("order-1", 3)]


async def test_a_gap_is_skipped_after_its_timeout(
    engine: Engine, tenant: str, subscriber: Subscriber
) -> None:
    sid = await _ordered(engine, tenant, subscriber, "ok-gaps", orderingGapTimeoutS=30)
    await _publish(engine, tenant, "order-1", 1)
    await _publish(engine, tenant, "order-2", 1)
    waiting = (await _publish(engine, tenant, "order-1", 4))[sid]  # 2 and 3 never come
    ingest = engine.services.ingest
    real = ingest.clock
    ingest.clock = lambda: datetime.now(UTC) - timedelta(seconds=31)  # planned 31 s ago
    try:
        skipped = (await _publish(engine, tenant, "order-2", 3))[sid]  # 2 never comes
    finally:
        ingest.clock = real
    await _run(engine)
    # order-2's version 3 has waited longer than the timeout: sent without version 2
    assert ("order-2", 3) in _versions(subscriber, "ok-gaps")
    view = await delivery(engine, tenant, skipped)
    assert view["state"] == "ENDPOINT_ACCEPTED"
    [gap] = view["ordering"]["gapsSkipped"]
    assert (gap["from"], gap["to"]) == (2, 2) and gap["waitedS"] >= 30
    types = [e.type for e in await engine.store.read_stream(f"delivery-{skipped}")]
    assert types[:3] == [
        "delivery.planned",
        "delivery.ordering_gap_skipped",
        "delivery.attempt_admitted",
    ]
    # order-1's version 4 is still inside its 30 s: it waits for 2 and 3
    assert await _state(engine, tenant, waiting) == "PLANNED"
    assert ("order-1", 4) not in _versions(subscriber, "ok-gaps")
    # the missing version arrives: it goes out, and 4 still waits for 3
    await _publish(engine, tenant, "order-1", 2)
    await _run(engine)
    assert [v for a, v in _versions(subscriber, "ok-gaps") if a == "order-1"] == [1, 2]
    assert await _state(engine, tenant, waiting) == "PLANNED"


async def test_a_dead_letter_holds_its_aggregate_until_replayed(
    engine: Engine, tenant: str, subscriber: Subscriber
) -> None:
    held = await _ordered(
        engine, tenant, subscriber, "fail500-held", retryPolicy={**FAST, "maxAttempts": 1}
    )
    plain = await active_subscription(engine, tenant, subscriber.url("ok-plain"))
    first = await _publish(engine, tenant, "order-1", 1)
    second = await _publish(engine, tenant, "order-1", 2)
    other = await _publish(engine, tenant, "order-2", 1)
    await _run(engine)
    assert await _state(engine, tenant, first[held]) == "DEAD_LETTER"
    assert await _state(engine, tenant, second[held]) == "PLANNED"  # held behind the dead letter
    # another aggregate of the same subscription is not delayed (its 500 is its own)
    assert await _state(engine, tenant, other[held]) == "DEAD_LETTER"
    # and an unordered subscription of the same events never waits
    assert sorted(_versions(subscriber, "ok-plain")) == [
        ("order-1", 1),
        ("order-1", 2),
        ("order-2", 1),
    ]
    assert plain
    await _run(engine)
    assert await _state(engine, tenant, second[held]) == "PLANNED"

    subscriber.modes["fail500-held"] = "ok"
    # the endpoint works again: a third aggregate goes through at once, in order, while
    # order-1 is still held behind its dead letter
    await _publish(engine, tenant, "order-3", 2)
    await _publish(engine, tenant, "order-3", 1)
    await _run(engine)
    assert [v for a, v in _versions(subscriber, "fail500-held") if a == "order-3"] == [1, 2]
    assert await _state(engine, tenant, second[held]) == "PLANNED"
    reader = engine.services.reader
    await reader.replay(tenant, first[held], actor="test", now=datetime.now(UTC).isoformat())
    await _run(engine)
    assert await _state(engine, tenant, first[held]) == "ENDPOINT_ACCEPTED"
    assert await _state(engine, tenant, second[held]) == "ENDPOINT_ACCEPTED"
    sent = [v for a, v in _versions(subscriber, "fail500-held") if a == "order-1"]
    assert sent == [1, 1, 2]  # the failed attempt, the replay, then the next version


async def test_a_skipped_dead_letter_releases_its_aggregate(
    engine: Engine, tenant: str, subscriber: Subscriber
) -> None:
    held = await _ordered(
        engine, tenant, subscriber, "fail500-skip", retryPolicy={**FAST, "maxAttempts": 1}
    )
    first = (await _publish(engine, tenant, "order-1", 1))[held]
    second = (await _publish(engine, tenant, "order-1", 2))[held]
    await _run(engine)
    assert await _state(engine, tenant, first) == "DEAD_LETTER"
    reader = engine.services.reader
    with pytest.raises(ConflictError) as err:
        await reader.skip(tenant, second, actor="test", now=datetime.now(UTC).isoformat())
    assert err.value.code == "skip_not_allowed"
    subscriber.modes["fail500-skip"] = "ok"
    view = await reader.skip(tenant, first, actor="test", now=datetime.now(UTC).isoformat())
    assert view["state"] == "SKIPPED"
    await _run(engine)
    assert await _state(engine, tenant, second) == "ENDPOINT_ACCEPTED"
    assert await _state(engine, tenant, first) == "SKIPPED"  # never sent again
    assert [v for _, v in _versions(subscriber, "fail500-skip")] == [1, 2]
