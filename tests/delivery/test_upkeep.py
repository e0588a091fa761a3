"""Ledger upkeep: the dispatcher vacuums the ledger table once enough row versions died."""

from __future__ import annotations

import asyncio
import secrets

import asyncpg
from structlog.testing import capture_logs

from hookproof.engine.delivery.repository import DeliveryRepository
from hookproof.engine.delivery.upkeep import LedgerUpkeep, vacuum_due
from hookproof.engine.runtime.daemon import Engine

from .conftest import Subscriber, active_subscription, dispatch_all, publish


def test_vacuum_is_due_after_enough_dead_rows_and_a_share_of_the_live_ones() -> None:
    assert not vacuum_due(3999, 0)
    assert vacuum_due(4000, 0)
    assert vacuum_due(4000, 200_000)
    assert not vacuum_due(4000, 200_001)  # a big table: 2% of it first
    assert vacuum_due(10, 10, min_dead=10, fraction=1.0)


async def test_upkeep_vacuums_the_ledger_when_due_and_only_then(
    engine: Engine, tenant: str, subscriber: Subscriber
) -> None:
    await active_subscription(engine, tenant, subscriber.url("ok"))
    for i in range(3):
        await publish(engine, tenant, f"evt-upkeep-{i}")
    assert await dispatch_all(engine) == 3  # admitted and accepted: two dead versions each
    repo = DeliveryRepository(engine.pool)
    query = "SELECT vacuum_count + autovacuum_count FROM pg_stat_user_tables WHERE relname = $1"
    before = await engine.pool.fetchval(query, "deliveries")

    assert not await LedgerUpkeep(repo, due=lambda dead, live: False).once()
    assert await engine.pool.fetchval(query, "deliveries") == before

    upkeep = LedgerUpkeep(repo, due=lambda dead, live: True)
    assert await upkeep.once()
    assert upkeep.vacuums == 1
    assert await engine.pool.fetchval(query, "deliveries") > before


async def test_upkeep_stops_and_says_so_under_a_role_that_may_not_vacuum(
    engine: Engine, db_url: str
) -> None:
    """Under a role that owns neither the ledger table nor the database, VACUUM would only
    warn and skip the table every second: the upkeep checks once, logs, and ends."""
    assert await DeliveryRepository(engine.pool).can_vacuum()  # the owner (the tests' superuser)
    role = f"hookproof_upkeep_{secrets.token_hex(4)}"
    await engine.pool.execute(f'CREATE ROLE "{role}" NOLOGIN')
    try:

        async def as_role(conn: asyncpg.Connection) -> None:
            await conn.execute(f'SET ROLE "{role}"')

        pool = await asyncpg.create_pool(db_url, min_size=1, max_size=1, setup=as_role)
        try:
            repo = DeliveryRepository(pool)
            assert not await repo.can_vacuum()
            upkeep = LedgerUpkeep(repo, due=lambda dead, live: True, check_every_s=0.01)
            with capture_logs() as logs:
                await asyncio.wait_for(upkeep.run(asyncio.Event()), 10)  # returns without a stop
            assert upkeep.vacuums == 0
        finally:
            await pool.close()
    finally:
        await engine.pool.execute(f'DROP ROLE "{role}"')
    assert [e["reason"] for e in logs if e["event"] == "ledger_upkeep_off"] == ["not_table_owner"]


async def _flush_statistics(engine: Engine) -> None:
    """Every pool connection reports its pending table statistics now (not within 10 s)."""
    conns = [await engine.pool.acquire() for _ in range(engine.pool.get_size())]
    try:
        for conn in conns:
            await conn.execute("SELECT pg_stat_force_next_flush()")
            await conn.execute("SELECT 1")
    finally:
        for conn in conns:
            await engine.pool.release(conn)


async def test_a_vacuum_that_could_not_remove_rows_waits_for_rows_that_died_since(
    engine: Engine, tenant: str, subscriber: Subscriber, db_url: str
) -> None:
    """An old snapshot keeps every dead version: the next check does not vacuum again for
    the same rows (it would, every second, while the snapshot lives)."""
    await active_subscription(engine, tenant, subscriber.url("ok"))
    holder = await asyncpg.connect(db_url)
    try:
        await holder.execute("BEGIN ISOLATION LEVEL REPEATABLE READ")
        await holder.fetchval("SELECT count(*) FROM deliveries")  # the snapshot holds xmin
        for i in range(3):
            await publish(engine, tenant, f"evt-upkeep-held-{i}")
        assert await dispatch_all(engine) == 3
        await _flush_statistics(engine)
        repo = DeliveryRepository(engine.pool)
        assert (await repo.dead_rows())[0] > 0
        upkeep = LedgerUpkeep(repo, due=lambda dead, live: dead > 0)
        assert await upkeep.once()
        assert (await repo.dead_rows())[0] > 0  # nothing could be removed
        assert not await upkeep.once()
        assert upkeep.vacuums == 1
    finally:
        await holder.execute("ROLLBACK")
        await holder.close()
