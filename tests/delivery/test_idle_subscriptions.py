"""100,000 idle subscriptions cost a claim and ingest's matching nothing: the claim's
statements (by due order, and per endpoint) and ingest's candidate query read no more rows with
100,000 idle subscriptions beside 10 busy ones than with the 10 alone (rows read counted by
Postgres for the transaction: ``pg_stat_xact_user_tables``).

The idle subscriptions are projection rows copied from a real one (``idle_subscriptions_seed.sql``:
registering 100,000 through the API would take the test minutes); the claim and ingest read
that table only, as they read a registered subscription's."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hookproof.engine.ingest.ingest_repository import IngestRepository
from hookproof.engine.runtime.daemon import Engine

from .conftest import Subscriber, active_subscription, publish

SEED = (Path(__file__).parent / "idle_subscriptions_seed.sql").read_text()
ROWS_READ = (Path(__file__).parent / "rows_read_in_transaction.sql").read_text()
IDLE = 100_000
#: the patterns ingest looks up for topic order.created (exact, the wildcards above it)
PATTERNS = ["order.created", "*", "order.*"]


async def _rows_read(engine: Engine, tenant: str, blocked: str) -> dict[str, Any]:
    """Rows each statement reads, in one transaction rolled back after."""
    repo = engine.services.dispatcher.deliveries
    out: dict[str, Any] = {}
    async with engine.pool.acquire() as conn:
        tx = conn.transaction()
        await tx.start()
        try:
            before = await conn.fetchval(ROWS_READ)
            candidates = await IngestRepository.candidates(conn, [tenant], PATTERNS)
            after = await conn.fetchval(ROWS_READ)
            out["ingest"] = (after - before, len(candidates))
            claimed = await repo.claim(conn, 10, [])  # by due order
            out["claim"] = (await conn.fetchval(ROWS_READ) - after, len(claimed))
            after = await conn.fetchval(ROWS_READ)
            per_endpoint = await repo.claim(conn, 10, [blocked])  # the per-endpoint claim
            out["per_endpoint"] = (await conn.fetchval(ROWS_READ) - after, len(per_endpoint))
        finally:
            await tx.rollback()
    return out


async def test_idle_subscriptions_cost_a_claim_and_ingest_no_rows(
    engine: Engine, tenant: str, subscriber: Subscriber
) -> None:
    subs = [
        await active_subscription(engine, tenant, subscriber.url(f"ok/busy-{i}"))
        for i in range(10)
    ]
    for i in range(3):  # 30 due deliveries, 3 per endpoint
        await publish(engine, tenant, f"evt-{i}", aggregateVersion=i + 1)
    blocked = await engine.pool.fetchval(
        "SELECT endpoint_digest FROM subscriptions WHERE subscription_id = $1", subs[0]
    )
    await engine.pool.execute("ANALYZE subscriptions")
    at_10 = await _rows_read(engine, tenant, blocked)

    await engine.pool.execute(SEED, subs[0], IDLE)
    await engine.pool.execute("ANALYZE subscriptions")  # what autovacuum does after such growth
    assert await engine.pool.fetchval("SELECT count(*) FROM subscriptions") == IDLE + 10
    at_100k = await _rows_read(engine, tenant, blocked)

    for name, (read, found) in at_100k.items():
        assert found == at_10[name][1], (name, at_10, at_100k)
        assert read <= at_10[name][0], (name, at_10, at_100k)
    assert at_10["ingest"][1] == 10 and at_10["claim"][1] == 10
