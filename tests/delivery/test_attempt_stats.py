"""``attempt-stats`` from the attempt statistics projection: the same answer as the old query
over the log on real recorded deliveries (accepted, failed, dead-lettered with the failure and
after it, unknown transport, a lost lease, late evidence, a replay; another tenant beside),
whatever the projector's pages were, after a rebuild too; and a cost that does not grow with
the subscription's traffic."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from hookproof.config import Settings
from hookproof.engine.delivery.claim import dead_letter_event
from hookproof.engine.delivery.streams import append_to_deliveries
from hookproof.engine.runtime.daemon import Engine
from hookproof.events import StreamAppend
from hookproof.projections import rebuild, table_rows
from hookproof.projections.attempt_stats import AttemptStats

from .conftest import (
    Subscriber,
    active_subscription,
    delivery,
    publish,
    stalled_dispatcher,
)
from .stats_support import LateRetries, accepted, before, fold_stats, settle, totals, window

FAST = {"retryPolicy": {"initialDelayS": 0.01, "maxDelayS": 0.01, "maxAttempts": 2}}
SLOW = {"retryPolicy": {"initialDelayS": 3600, "maxDelayS": 3600, "maxAttempts": 5}}


async def _workload(
    engine: Engine, tenant: str, subscriber: Subscriber, settings: Settings
) -> dict[str, str]:
    """Every kind of attempt outcome the log records, through the engine's own paths."""
    engine.services.dispatcher.rng = LateRetries()
    subs = {
        "ok": await active_subscription(engine, tenant, subscriber.url("ok-s"), topics=["t.ok"]),
        "dead": await active_subscription(
            engine, tenant, subscriber.url("fail500-s"), topics=["t.dead"], **FAST
        ),
        "later": await active_subscription(
            engine, tenant, subscriber.url("fail500-l"), topics=["t.later"], **SLOW
        ),
        "drop": await active_subscription(
            engine, tenant, subscriber.url("drop-s"), topics=["t.drop"], **SLOW
        ),
    }
    for i in range(5):
        await publish(engine, tenant, f"ok-{i}", topic="t.ok")
    dead = [(await publish(engine, tenant, f"dead-{i}", topic="t.dead")).deliveries for i in (0, 1)]
    later = [
        (await publish(engine, tenant, f"later-{i}", topic="t.later")).deliveries for i in (0, 1)
    ]
    await publish(engine, tenant, "drop-0", topic="t.drop")

    async def settled() -> bool:
        n = await engine.pool.fetchval(
            "SELECT count(*) FROM deliveries WHERE state IN ('PLANNED', 'DISPATCHING')"
            " OR (state = 'RETRYABLE' AND next_attempt_at < now() + interval '1 minute')"
        )
        return int(n) == 0

    await settle(engine, settled)
    # a dead letter after the failure, in an append of its own (the claim's exhausted path)
    did = later[0][0]["deliveryId"]
    row = await engine.pool.fetchrow(
        "SELECT attempt, owner, stream_version FROM deliveries WHERE delivery_id = $1", did
    )
    await append_to_deliveries(
        engine.store,
        [
            StreamAppend(
                f"delivery-{did}",
                [
                    dead_letter_event(
                        did, row["attempt"], row["owner"], "exhausted:http_500", datetime.now(UTC)
                    )
                ],
                row["stream_version"],
            )
        ],
    )
    # a replay of a dead letter, accepted this time
    subscriber.modes["fail500-s"] = "ok"
    replayed = dead[0][0]["deliveryId"]
    await engine.services.reader.replay(
        tenant, replayed, actor="test", now=datetime.now(UTC).isoformat()
    )
    await settle(engine, settled)
    assert (await delivery(engine, tenant, replayed))["state"] == "ENDPOINT_ACCEPTED"
    # a lost lease (UNKNOWN_TRANSPORT), then accepted, then the lost attempt's late failure
    subscriber.modes["flip-s"] = "fail500"
    subs["lost"] = await active_subscription(
        engine, tenant, subscriber.url("flip-s"), topics=["t.lost"], **FAST
    )
    await publish(engine, tenant, "lost-0", topic="t.lost")
    stalled = stalled_dispatcher(engine, settings, "stalled")
    [job] = await stalled.claim()
    failure = await stalled.destination.deliver(stalled.message_for(job), job.row)
    assert await engine.services.dispatcher.reconcile_leases() == 1
    subscriber.modes["flip-s"] = "ok"
    await settle(engine, settled)
    await stalled.record(job, failure, 0.01)
    return subs


async def _answers(engine: Engine, tenant: str, subs: list[str], now: datetime) -> list[Any]:
    reader = engine.services.reader
    return [await reader.attempt_stats(tenant, sid, now) for sid in subs]


async def test_counts_equal_the_old_query_whatever_the_pages_and_after_a_rebuild(
    engine: Engine, tenant: str, subscriber: Subscriber, settings: Settings
) -> None:
    other = (await engine.tenants.create("other")).tenant_id
    other_sub = await active_subscription(
        engine, other, subscriber.url("fail500-o"), topics=["t.o"], **FAST
    )
    for i in range(3):
        await publish(engine, other, f"o-{i}", topic="t.o")
    subs = await _workload(engine, tenant, subscriber, settings)
    mine = list(subs.values())
    now = datetime.now(UTC)
    expected = [await before(engine.pool, tenant, sid, now) for sid in mine]
    expected_other = await before(engine.pool, other, other_sub, now)
    assert totals(expected[mine.index(subs["ok"])]) == {"ENDPOINT_ACCEPTED": 5}
    assert totals(expected[mine.index(subs["dead"])]) == {
        "RETRYABLE": 2,
        "DEAD_LETTER": 2,
        "ENDPOINT_ACCEPTED": 1,
    }
    assert totals(expected[mine.index(subs["later"])]) == {"RETRYABLE": 1, "DEAD_LETTER": 1}
    assert totals(expected[mine.index(subs["drop"])]) == {"UNKNOWN_TRANSPORT": 1}
    assert totals(expected[mine.index(subs["lost"])]) == {
        "UNKNOWN_TRANSPORT": 1,
        "ENDPOINT_ACCEPTED": 1,
        "RETRYABLE": 1,
    }
    assert totals(expected_other) == {"RETRYABLE": 3, "DEAD_LETTER": 3}

    # pages of 3 events: failures and their dead letters fall in different passes
    await fold_stats(engine.store, batch=3)
    assert await _answers(engine, tenant, mine, now) == expected
    assert await engine.services.reader.attempt_stats(other, other_sub, now) == expected_other
    # a subscription is counted for its own tenant only
    assert totals(await engine.services.reader.attempt_stats(other, subs["ok"], now)) == {}
    many = await engine.services.reader.attempt_stats_of(tenant, mine[::-1], now)
    assert many == {"since": window(now).isoformat(), "items": expected[::-1]}

    stats = AttemptStats()
    verified = await rebuild(engine.store, stats, verify=True)
    assert verified.differences == [] and verified.rows > 0
    live = await table_rows(engine.pool, stats, stats.table)
    rebuilt = await rebuild(engine.store, stats)
    assert rebuilt.rows == len(live)
    assert await table_rows(engine.pool, stats, stats.table) == live
    assert await _answers(engine, tenant, mine, now) == expected
    # and the projector goes on from the rebuild's checkpoint
    await publish(engine, tenant, "ok-after", topic="t.ok")
    await settle(engine, lambda: accepted(engine, 6, subs["ok"]))
    await fold_stats(engine.store)
    assert await _answers(engine, tenant, mine, now) == [
        await before(engine.pool, tenant, sid, now) for sid in mine
    ]
