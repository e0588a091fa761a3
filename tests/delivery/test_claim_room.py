"""A claim locks no more of an endpoint's due rows than the endpoint has room for: a busy
endpoint's backlog is neither locked nor left by every claim (``dispatch_claim.sql``), and
another endpoint's rows behind it in due order are still reached."""

from __future__ import annotations

from hookproof.engine.daemon import Engine

from .conftest import Subscriber, active_subscription, publish

LOCKED_ELSEWHERE = (
    "SELECT count(*) FROM (SELECT 1 FROM deliveries WHERE state = 'PLANNED'"
    " FOR UPDATE SKIP LOCKED) AS free"
)


async def test_a_claim_locks_at_most_each_endpoints_room(
    engine: Engine, tenant: str, subscriber: Subscriber
) -> None:
    busy = await active_subscription(engine, tenant, subscriber.url("ok/busy"), topics=["a"])
    other = await active_subscription(engine, tenant, subscriber.url("ok/other"), topics=["b"])
    for i in range(20):  # the busy endpoint's backlog first in due order, then one other row
        await publish(engine, tenant, f"evt-busy-{i}", topic="a")
    await publish(engine, tenant, "evt-other", topic="b")
    digest = {
        r["subscription_id"]: r["endpoint_digest"]
        for r in await engine.pool.fetch("SELECT subscription_id, endpoint_digest FROM deliveries")
    }
    repo = engine.services.dispatcher.deliveries

    async with repo.transaction() as conn:
        rows = await repo.claim(conn, 10, [], rooms={digest[busy]: 3}, room=8)
        by_sub = [r["subscription_id"] for r in rows]
        # three of the busy endpoint's twenty (its oldest), and the other endpoint's row
        assert by_sub.count(busy) == 3 and by_sub.count(other) == 1
        oldest = await engine.pool.fetch(
            "SELECT delivery_id FROM deliveries WHERE subscription_id = $1"
            " ORDER BY next_attempt_at LIMIT 3",
            busy,
        )
        assert {r["delivery_id"] for r in rows if r["subscription_id"] == busy} == {
            r["delivery_id"] for r in oldest
        }
        # only those four are locked: the rest of the backlog stays free for another claim
        assert await engine.pool.fetchval(LOCKED_ELSEWHERE) == 21 - 4

    async with repo.transaction() as conn:  # an endpoint not named has the default room
        rows = await repo.claim(conn, 30, [], room=5)
        assert [r["subscription_id"] for r in rows].count(busy) == 5
        # a blocked endpoint (no room at all) is not claimed
        assert await repo.claim(conn, 30, [digest[busy], digest[other]]) == []
