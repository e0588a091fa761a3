"""The claim and a rate-limited subscription's bucket (``dispatch_claim_rate.sql``, DESIGN.md
section 14): a claim keeps as many of the subscription's due rows as the bucket grants (its
oldest), and returns the first row it held back, not to be sent, with the seconds until the
bucket holds a whole token again: the dispatcher claims again then, not a poll interval later.
A subscription without a limit is claimed as before, with no wait."""

from __future__ import annotations

from hookproof.engine.runtime.daemon import Engine

from .conftest import Subscriber, active_subscription, publish, publish_many

PER_SECOND = 2.0
BURST = 3


async def test_a_claim_keeps_what_the_bucket_grants_and_says_when_the_next_token_is(
    engine: Engine, tenant: str, subscriber: Subscriber
) -> None:
    limited = await active_subscription(
        engine,
        tenant,
        subscriber.url("ok/limited"),
        topics=["a"],
        rateLimit={"perSecond": PER_SECOND, "burst": BURST},
    )
    free = await active_subscription(engine, tenant, subscriber.url("ok/free"), topics=["b"])
    for i in range(6):
        await publish(engine, tenant, f"evt-limited-{i}", topic="a")
    await publish(engine, tenant, "evt-free", topic="b")
    repo = engine.services.dispatcher.deliveries

    async with repo.transaction() as conn:
        rows = await repo.claim(conn, 20, [], room=8)
        sent = [r for r in rows if r["rate_wait_s"] is None]
        held = [r for r in rows if r["rate_wait_s"] is not None]
        # the full bucket's burst, oldest due first, and the unlimited row
        assert [r["subscription_id"] for r in sent].count(limited) == BURST
        assert [r["subscription_id"] for r in sent].count(free) == 1
        oldest = await conn.fetch(
            "SELECT delivery_id FROM deliveries WHERE subscription_id = $1"
            " ORDER BY next_attempt_at LIMIT $2",
            limited,
            BURST,
        )
        assert {r["delivery_id"] for r in sent if r["subscription_id"] == limited} == {
            r["delivery_id"] for r in oldest
        }
        # one held-back row names the wait: the bucket is empty, a token takes 1 / perSecond
        [row] = held
        assert row["subscription_id"] == limited
        assert 0.9 / PER_SECOND <= row["rate_wait_s"] <= 1 / PER_SECOND

    async with repo.transaction() as conn:  # at once again: nothing granted, the wait left
        rows = await repo.claim(conn, 20, [], room=8)
        sent = [r["subscription_id"] for r in rows if r["rate_wait_s"] is None]
        assert sent == [free]  # the unlimited row (not admitted above, so due still)
        [row] = [r for r in rows if r["rate_wait_s"] is not None]
        assert row["subscription_id"] == limited
        assert 0 < row["rate_wait_s"] <= 1 / PER_SECOND


async def test_a_limited_backlog_does_not_hide_other_endpoints_rows_from_the_claims(
    engine: Engine, tenant: str, subscriber: Subscriber
) -> None:
    """A rate-limited subscription's backlog, older than another endpoint's rows and longer
    than a claim's scan of the due order: the first claim, whose scan the backlog fills, meets
    the bucket short and claims the rest per endpoint and subscription with the limited one
    left out, so it sends the free row too (before session 11 only the next claim reached it);
    then the dispatcher holds the subscription until its next token (its claims leave its rows
    out by name), and a claim at once finds nothing to send."""
    limited = await active_subscription(
        engine,
        tenant,
        subscriber.url("ok/limited"),
        topics=["a"],
        rateLimit={"perSecond": 0.5, "burst": 1},
    )
    free = await active_subscription(engine, tenant, subscriber.url("ok/free"), topics=["b"])
    dispatcher = engine.services.dispatcher
    backlog = 4 * dispatcher.batch + 10  # more than one claim's scan of the due order
    for start in range(0, backlog, 100):
        await publish_many(engine, tenant, "a", range(start, min(backlog, start + 100)))
    await publish(engine, tenant, "evt-free", topic="b")
    first = await dispatcher.claim()  # the burst (one token) of the limited backlog, the free row
    assert sorted(j.row.subscription_id for j in first) == sorted([limited, free])
    assert await dispatcher.claim() == []  # the bucket is empty, the subscription held
    assert list(dispatcher.gates.held) == [limited]
    await dispatcher.drain()
