"""The attempt statistics stay the fold of the hot log when the archive takes deliveries away:
the counts ``attempt-stats`` answers equal the old query's over what is still hot (which no
longer sees the archived ones), and ``projections rebuild --verify`` finds no difference."""

from __future__ import annotations

from datetime import UTC, datetime

from hookproof.engine.runtime.composition import construct_archiver
from hookproof.engine.runtime.daemon import Engine
from hookproof.projections import rebuild
from hookproof.projections.attempt_stats import AttemptStats

from ..delivery.conftest import Subscriber, active_subscription, dispatch_all, publish
from ..delivery.stats_support import LateRetries, before, fold_stats, settle, totals
from .helpers import FAST_DEAD, SLOW_RETRY, now


async def test_archived_deliveries_leave_the_counts_with_them(
    engine: Engine, tenant: str, subscriber: Subscriber
) -> None:
    engine.services.dispatcher.rng = LateRetries()
    subs = [
        await active_subscription(engine, tenant, subscriber.url("ok-a"), topics=["t.a"]),
        await active_subscription(
            engine, tenant, subscriber.url("fail500-b"), topics=["t.b"], **FAST_DEAD
        ),
        await active_subscription(
            engine, tenant, subscriber.url("fail500-c"), topics=["t.c"], **SLOW_RETRY
        ),
    ]
    for i in range(4):
        await publish(engine, tenant, f"a{i}", topic="t.a")
    for i in range(2):
        await publish(engine, tenant, f"b{i}", topic="t.b")
        await publish(engine, tenant, f"c{i}", topic="t.c")

    async def settled() -> bool:
        n = await engine.pool.fetchval(
            "SELECT count(*) FROM deliveries WHERE state IN ('PLANNED', 'DISPATCHING')"
        )
        return int(n) == 0

    await settle(engine, settled)
    cutoff = await now(engine.pool)
    await publish(engine, tenant, "a-late", topic="t.a")  # closed after the cutoff: stays
    await settle(engine, settled)
    await fold_stats(engine.store)
    at = datetime.now(UTC)
    reader = engine.services.reader
    assert [totals(await reader.attempt_stats(tenant, s, at)) for s in subs] == [
        {"ENDPOINT_ACCEPTED": 5},
        {"DEAD_LETTER": 2},
        {"RETRYABLE": 2},
    ]

    result = await construct_archiver(engine.pool, engine.settings).run(cutoff)
    assert result.streams > 0 and result.removed == result.events

    answers = [await reader.attempt_stats(tenant, s, at) for s in subs]
    assert answers == [await before(engine.pool, tenant, s, at) for s in subs]
    # the accepted and dead-lettered deliveries before the cutoff left; the open ones stay
    assert [totals(a) for a in answers] == [{"ENDPOINT_ACCEPTED": 1}, {}, {"RETRYABLE": 2}]
    verified = await rebuild(engine.store, AttemptStats(), verify=True)
    assert verified.differences == [] and verified.lag is not None and verified.lag.events == 0
    # and the projector goes on from there
    await publish(engine, tenant, "a-after", topic="t.a")
    await settle(engine, settled)
    await dispatch_all(engine)
    await fold_stats(engine.store)
    assert totals(await reader.attempt_stats(tenant, subs[0], at)) == {"ENDPOINT_ACCEPTED": 2}
