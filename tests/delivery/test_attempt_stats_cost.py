"""The statement ``attempt-stats`` runs reads the same at ten times a subscription's
deliveries: EXPLAIN (ANALYZE, BUFFERS) against real recorded deliveries (it used to join every
delivery of the last 24 hours to its events on each call)."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

from hookproof.engine.db.queries import ENGINE_QUERIES
from hookproof.engine.runtime.daemon import Engine

from .conftest import Subscriber, active_subscription, publish
from .stats_support import accepted, cost, fold_stats, settle, totals, window

ROUTE_SQL = ENGINE_QUERIES.named("subscription_attempt_stats")["subscription_attempt_stats"]


async def test_the_routes_statement_reads_the_same_at_ten_times_the_deliveries(
    engine: Engine, tenant: str, subscriber: Subscriber
) -> None:
    """EXPLAIN (ANALYZE, BUFFERS) of the statement ``attempt-stats`` runs, at 30 and then 300
    delivered attempts of one subscription: the rows and buffers it reads stay put (the old
    query read every delivery of the window and its events: about ten times more)."""
    sid = await active_subscription(engine, tenant, subscriber.url("ok-c"))
    seen: list[dict[str, int]] = []
    sent = 0
    for total in (30, 300):
        await asyncio.gather(*(publish(engine, tenant, f"c-{i}") for i in range(sent, total)))
        sent = total
        await settle(engine, lambda t=total: accepted(engine, t, sid))
        await fold_stats(engine.store)
        now = datetime.now(UTC)
        view = await engine.services.reader.attempt_stats(tenant, sid, now)
        assert totals(view) == {"ENDPOINT_ACCEPTED": total}
        async with engine.pool.acquire() as conn:
            await conn.execute("ANALYZE")
            seen.append(await cost(conn, ROUTE_SQL, tenant, sid, window(now)))
    small, large = seen
    # a row per (hour, outcome) with attempts: 1 here, 2 if the run crossed an hour
    assert large["rows_read"] <= small["rows_read"] + 1, seen
    assert large["rows_read"] <= 25 * 5, seen
    assert large["buffers"] <= small["buffers"] + 2, seen
