"""A claim locks no more of an endpoint's due rows than the endpoint has room for: a busy
endpoint's backlog is neither locked nor left by every claim (``dispatch_claim.sql``), and
another endpoint's rows behind it in due order are still reached."""

from __future__ import annotations

import json
from typing import Any

from hookproof.engine.db.queries import ENGINE_QUERIES
from hookproof.engine.runtime.daemon import Engine

from .conftest import Subscriber, active_subscription, publish, publish_many

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


ROWS_READ = (
    "SELECT coalesce(sum(idx_tup_fetch + seq_tup_read), 0) FROM pg_stat_xact_user_tables"
    " WHERE relname = 'deliveries'"
)


async def test_a_claim_never_walks_a_blocked_endpoints_backlog(
    engine: Engine, tenant: str, subscriber: Subscriber
) -> None:
    """A full endpoint's 300 waiting rows, all due before another endpoint's one row: the
    claim reads a row per endpoint to find them and the row it takes, not the backlog (the
    claim by due order read and filtered out all 300 every time)."""
    busy = await active_subscription(engine, tenant, subscriber.url("ok/busy"), topics=["a"])
    other = await active_subscription(engine, tenant, subscriber.url("ok/other"), topics=["b"])
    for i in range(300):
        await publish(engine, tenant, f"evt-busy-{i}", topic="a")
    await publish(engine, tenant, "evt-other", topic="b")
    digest = {
        r["subscription_id"]: r["endpoint_digest"]
        for r in await engine.pool.fetch("SELECT subscription_id, endpoint_digest FROM deliveries")
    }
    repo = engine.services.dispatcher.deliveries
    async with engine.pool.acquire() as conn:
        # the generic plan of a prepared statement (what Postgres may switch to after five
        # executions) must not walk the backlog either
        await conn.execute("SET plan_cache_mode = force_generic_plan")
        for _ in range(10):
            tx = conn.transaction()
            await tx.start()
            before = await conn.fetchval(ROWS_READ)
            rows = await repo.claim(conn, 10, [digest[busy]])
            read = await conn.fetchval(ROWS_READ) - before
            await tx.rollback()
            assert [r["subscription_id"] for r in rows] == [other]
            assert read < 20, f"{read} ledger rows read to claim one"
        await conn.execute("RESET plan_cache_mode")
    async with repo.transaction() as conn:  # with room, the busy endpoint's oldest come first
        rows = await repo.claim(conn, 10, [], rooms={digest[busy]: 4, digest[other]: 0})
        oldest = await engine.pool.fetch(
            "SELECT delivery_id FROM deliveries WHERE subscription_id = $1"
            " ORDER BY next_attempt_at LIMIT 4",
            busy,
        )
        assert [r["delivery_id"] for r in rows] == [r["delivery_id"] for r in oldest]


async def test_with_more_waiting_endpoints_than_probes_the_claim_goes_by_due_order(
    engine: Engine, tenant: str, subscriber: Subscriber
) -> None:
    """Beyond ``heads_max`` waiting endpoints one probe each would cost more than it saves:
    the claim by due order takes over, with the same rooms and blocked endpoints."""
    subs = [
        await active_subscription(engine, tenant, subscriber.url(f"ok/{n}"), topics=[n])
        for n in ("a", "b", "c")
    ]
    for i in range(6):
        for n in ("a", "b", "c"):
            await publish(engine, tenant, f"evt-{n}-{i}", topic=n)
    digest = {
        r["subscription_id"]: r["endpoint_digest"]
        for r in await engine.pool.fetch("SELECT subscription_id, endpoint_digest FROM deliveries")
    }
    repo = engine.services.dispatcher.deliveries
    for heads_max in (64, 2):  # per endpoint, then by due order: the same rows
        async with repo.transaction() as conn:
            rows = await repo.claim(
                conn,
                10,
                [digest[subs[2]]],
                rooms={digest[subs[0]]: 2},
                room=3,
                heads_max=heads_max,
            )
            got = sorted((r["subscription_id"], r["delivery_id"]) for r in rows)
            want = []
            for sub, n in ((subs[0], 2), (subs[1], 3)):
                want += [
                    (sub, r["delivery_id"])
                    for r in await engine.pool.fetch(
                        "SELECT delivery_id FROM deliveries WHERE subscription_id = $1"
                        " ORDER BY next_attempt_at LIMIT $2",
                        sub,
                        n,
                    )
                ]
            assert got == sorted(want), heads_max


def _nodes(plan: dict[str, Any]) -> list[dict[str, Any]]:
    return [plan, *(n for child in plan.get("Plans", ()) for n in _nodes(child))]


async def test_a_generic_plan_made_on_an_empty_ledger_chooses_the_rows_once(
    engine: Engine, tenant: str, subscriber: Subscriber
) -> None:
    """A fresh database: the claim's generic plan is made while the ledger is empty (every
    estimate one row) and kept until autovacuum's next ANALYZE. The rows are still chosen once
    per claim, not once per due row (with ``IN (SELECT ... FROM chosen)`` that plan reran the
    choice and its window functions per due row: 0.4-1.4 s per claim of 400 rows, bench/HISTORY.md
    "Session 13")."""
    for topic in ("a", "b"):
        await active_subscription(engine, tenant, subscriber.url(f"ok/{topic}"), topics=[topic])
    claim = ENGINE_QUERIES.named("dispatch_claim")["dispatch_claim"]
    # limit 10, nothing blocked, one share, a scan of 40, no named rooms, room 8, none held
    args = "10, '{}'::text[], 1, 0, true, 0.0, 40, '{}'::text[], '{}'::int[], 8, '{}'::text[]"
    async with engine.pool.acquire() as conn:
        await conn.execute("SET plan_cache_mode = force_generic_plan")
        await conn.execute(f"PREPARE empty_ledger_claim AS {claim}")
        explain = f"EXPLAIN (ANALYZE, FORMAT JSON) EXECUTE empty_ledger_claim({args})"
        tx = conn.transaction()
        await tx.start()
        await conn.fetchval(explain)  # the generic plan, made on the empty ledger
        await tx.rollback()
        for topic in ("a", "b"):
            await publish_many(engine, tenant, topic, range(15))
        tx = conn.transaction()
        await tx.start()
        plan = json.loads(await conn.fetchval(explain))[0]["Plan"]
        await tx.rollback()
        await conn.execute("DEALLOCATE empty_ledger_claim")
        await conn.execute("RESET plan_cache_mode")
    windows = [n for n in _nodes(plan) if n["Node Type"] == "WindowAgg"]
    assert windows and all(n["Actual Loops"] == 1 for n in windows), [
        (n["Node Type"], n["Actual Loops"]) for n in windows
    ]
    assert plan["Actual Rows"] == 10  # and the claim still takes what it is asked for
