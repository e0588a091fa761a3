"""A rate-limited subscription's backlog (rows due now that its bucket holds back) never delays
another subscription's rows (issue 35, DESIGN.md section 14: the limit is the subscription's,
no one else's). Each test puts the limited backlog ahead of the other rows in due order and
asserts on what the claims return, not on time:

- a claim's row limit is not spent on rows the bucket will hold back (at most one per limited
  subscription comes back, not to be sent: it carries the wait);
- a dispatcher's first claim, before it has seen the bucket short, reaches the other rows
  behind a backlog longer than its scan of the due order;
- a claim never waits for another claim's open transaction on the bucket (the bucket's row
  lock is held until that claim commits: claims of every process queued behind it);
- the hold is the subscription's: another subscription to the same URL is claimed while the
  limited one waits for its next token.
"""

from __future__ import annotations

from hookproof.engine.delivery.gates import RATE_STICKY_S, EndpointGates
from hookproof.engine.runtime.daemon import Engine

from .conftest import Subscriber, active_subscription, publish_many

SLOW = {"perSecond": 0.01, "burst": 1}  # one token now, the next in 100 s: never in a test


async def _limited_and_free(
    engine: Engine, tenant: str, subscriber: Subscriber, backlog: int, free: int, *, same: bool
) -> tuple[str, str]:
    """A limited subscription with ``backlog`` due rows, then ``free`` rows of an unlimited one
    (to the same URL when ``same``), all due now, the limited ones first."""
    url = subscriber.url("ok-limited")
    limited = await active_subscription(engine, tenant, url, topics=["a"], rateLimit=SLOW)
    other = await active_subscription(
        engine, tenant, url if same else subscriber.url("ok-free"), topics=["b"]
    )
    for start in range(0, backlog, 100):
        await publish_many(engine, tenant, "a", range(start, min(backlog, start + 100)))
    await publish_many(engine, tenant, "b", range(free))
    return limited, other


async def test_a_claims_limit_is_not_spent_on_rows_the_bucket_holds_back(
    engine: Engine, tenant: str, subscriber: Subscriber
) -> None:
    limited, free = await _limited_and_free(engine, tenant, subscriber, 30, 5, same=False)
    repo = engine.services.dispatcher.deliveries
    for per_endpoint in (False, True):  # by due order, and per endpoint
        async with engine.pool.acquire() as conn:
            tx = conn.transaction()
            await tx.start()
            try:
                rows = await repo.claim(conn, 4, [], room=8, per_endpoint=per_endpoint)
            finally:
                await tx.rollback()  # the next round sees the same rows and a full bucket
            sent = [r["subscription_id"] for r in rows if r["rate_wait_s"] is None]
            held = [r["subscription_id"] for r in rows if r["rate_wait_s"] is not None]
            # the bucket's one token, one held-back row to say when the next is, and the rest
            # of the claim's four rows the other subscription's
            assert held == [limited], per_endpoint
            assert sent.count(limited) == 1 and len(sent) <= 4, (per_endpoint, sent)
            assert sent.count(free) >= 4 - 1 - 1, (per_endpoint, sent)


async def test_a_dispatchers_first_claim_reaches_rows_behind_a_limited_backlog(
    engine: Engine, tenant: str, subscriber: Subscriber
) -> None:
    dispatcher = engine.services.dispatcher
    backlog = 4 * dispatcher.batch + 10  # more than one claim's scan of the due order
    limited, free = await _limited_and_free(engine, tenant, subscriber, backlog, 3, same=False)
    first = await dispatcher.claim()  # the bucket's one token, and every free row
    assert sorted(j.row.subscription_id for j in first) == sorted([limited, free, free, free])
    assert await dispatcher.claim() == []  # the bucket is empty: nothing more now
    await dispatcher.drain()


async def test_a_claim_never_waits_for_another_claims_bucket(
    engine: Engine, tenant: str, subscriber: Subscriber
) -> None:
    """Claim A takes from the bucket and keeps its transaction open; claim B, in another
    connection, takes the other subscription's rows at once and none of the limited one's (a
    bucket another claim is taking from grants nothing now, as an empty one). Before, B waited
    on the bucket's row lock until A ended (here: until B's lock_timeout)."""
    url = subscriber.url("ok-limited")
    slow = {"perSecond": 0.01, "burst": 3}
    limited = await active_subscription(engine, tenant, url, topics=["a"], rateLimit=slow)
    free = await active_subscription(engine, tenant, subscriber.url("ok-free"), topics=["b"])
    await publish_many(engine, tenant, "a", range(30))
    await publish_many(engine, tenant, "b", range(3))
    repo = engine.services.dispatcher.deliveries
    async with repo.transaction() as first:  # the bucket made (committed), one token taken
        rows = await repo.claim(first, 1, [], room=8, per_endpoint=True)
        assert [r["subscription_id"] for r in rows if r["rate_wait_s"] is None] == [limited]
    async with repo.transaction() as a:
        rows = await repo.claim(a, 1, [], room=8, per_endpoint=True)
        assert [r["subscription_id"] for r in rows if r["rate_wait_s"] is None] == [limited]
        async with repo.transaction() as b:
            await b.execute("SET LOCAL lock_timeout = '5s'")
            rows = await repo.claim(b, 10, [], room=8, per_endpoint=True)
            sent = [r["subscription_id"] for r in rows if r["rate_wait_s"] is None]
            assert sent == [free] * 3
            assert [r["subscription_id"] for r in rows if r["rate_wait_s"] is not None] == [limited]


async def test_another_subscription_to_the_same_url_is_not_held_by_the_limited_one(
    engine: Engine, tenant: str, subscriber: Subscriber
) -> None:
    """Two subscriptions to one URL, one limited and its backlog ahead: the first claim sends
    the bucket's token and the other's rows up to the endpoint's room; the next claims, while
    the limited one waits for a token 100 s away, send the rest of the other's rows."""
    dispatcher = engine.services.dispatcher
    limited, other = await _limited_and_free(engine, tenant, subscriber, 40, 20, same=True)
    accepted = (
        "SELECT count(*) FILTER (WHERE subscription_id = $1),"
        " count(*) FILTER (WHERE subscription_id = $2)"
        " FROM deliveries WHERE state = 'ENDPOINT_ACCEPTED'"
    )
    for _ in range(10):
        await dispatcher.run_once()  # claim, then send
        await dispatcher.drain()  # the endpoint's room back for the next claim
        if tuple(await engine.pool.fetchrow(accepted, limited, other))[1] == 20:
            break
    # the one token, and all of the other's rows, none waiting for the limited one's token
    assert tuple(await engine.pool.fetchrow(accepted, limited, other)) == (1, 20)


def test_a_hold_is_the_subscriptions_not_its_endpoints() -> None:
    """The gates hold a subscription (its rows are left out of the claims by name) and leave
    every endpoint's room as it was; the claims stay per pair for RATE_STICKY_S after."""
    gates = EndpointGates(limit=8)
    gates.hold("sub_limited", until=10.0)
    assert gates.room("endpoint", now=5.0) == 8  # the URL is not held
    held = gates.reserve(now=5.0)
    assert held.held == ["sub_limited"] and held.per_endpoint
    assert held.blocked == []
    gates.settle(held, {}, now=5.0)
    after = gates.reserve(now=10.5)  # the token is there: claimed again, still per pair
    assert after.held == [] and after.per_endpoint
    gates.settle(after, {}, now=10.5)
    assert not gates.reserve(now=10.0 + RATE_STICKY_S).per_endpoint
