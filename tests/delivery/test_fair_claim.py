"""A claim is shared by tenants, and a failing endpoint is probed, not refilled (issue 46).

- ``fair_pick`` (pure): a claim takes its rows in turns by tenant, so no tenant takes more
  than one row beyond another's while that other has a due row left; both claim statements
  (``dispatch_claim.sql`` by due order, ``dispatch_claim_endpoints.sql`` per pair) choose
  exactly the rows ``fair_pick`` does.
- the gates (pure): an endpoint whose breaker is open gets nothing, and one that is half-open
  or has failed since its last success gets at most one attempt in flight.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from hookproof.engine.delivery import gates as g
from hookproof.engine.delivery.claim import fair_pick
from hookproof.engine.runtime.daemon import Engine

from .conftest import Subscriber, active_subscription, publish

# -- fair_pick (pure) -------------------------------------------------------------------------


@given(
    tenants=st.lists(st.sampled_from("abcde"), max_size=60),
    limit=st.integers(min_value=0, max_value=70),
)
def test_no_tenant_takes_more_than_its_share_while_another_has_due_rows(
    tenants: list[str], limit: int
) -> None:
    rows = list(enumerate(tenants))  # (due order, tenant)
    picked = fair_pick(rows, limit, lambda r: r[1])
    assert len(picked) == min(limit, len(rows))
    assert picked == sorted(picked)  # returned in due order
    took, due = Counter(t for _, t in picked), Counter(tenants)
    for t in due:  # each tenant's oldest rows, none skipped
        assert [r for r in picked if r[1] == t] == [r for r in rows if r[1] == t][: took[t]]
    for a in due:
        for b in due:
            if took[a] > took[b] + 1:  # a has more than its share only once b has none left
                assert took[b] == due[b], (a, b, took, due)


def test_one_tenants_backlog_due_first_leaves_room_for_the_others_oldest() -> None:
    rows = [("hostile", i) for i in range(340)] + [("victim", 340), ("other", 341)]
    picked = fair_pick(rows, 100, lambda r: r[0])
    assert ("victim", 340) in picked and ("other", 341) in picked
    assert Counter(t for t, _ in picked) == {"hostile": 98, "victim": 1, "other": 1}
    assert fair_pick(rows[:340], 100, lambda r: r[0]) == rows[:100]  # alone: due order


# -- the gates (pure) -------------------------------------------------------------------------

OPEN_S = 30.0


@settings(max_examples=200)
@given(
    steps=st.lists(
        st.tuples(
            st.sampled_from(["claim", "ok", "fail", "wait"]),
            st.integers(min_value=1, max_value=10),
        ),
        max_size=80,
    )
)
def test_an_open_endpoint_gets_at_most_one_probe_in_flight(
    steps: list[tuple[str, int]],
) -> None:
    gates = g.EndpointGates(limit=8, failure_threshold=5, open_seconds=OPEN_S)
    now, flying = 0.0, 0
    for op, n in steps:
        if op == "wait":
            now += n * 4.0
        elif op == "claim":
            b = gates.breakers.get("x", g.CLOSED)
            state = g.observed(b, now)
            room = gates.room("x", now)
            if state is g.BreakerState.OPEN:
                assert room == 0
            elif state is g.BreakerState.HALF_OPEN:  # one probe at a time
                assert room == (1 if flying == 0 else 0)
            else:
                assert room == 8 - flying
            for _ in range(min(n, room)):
                gates.acquire("x", now)
                flying += 1
            assert state is not g.BreakerState.HALF_OPEN or flying <= 1 or room == 0
        elif flying:  # an attempt in flight ends
            gates.release("x", success=op == "ok", now=now)
            flying -= 1
            if op == "ok":  # a success gives the endpoint its whole room back
                assert gates.room("x", now) == 8 - flying


# -- both claim statements choose as fair_pick does (real Postgres) ---------------------------


async def _due(engine: Engine) -> list[Any]:
    return list(
        await engine.pool.fetch(
            "SELECT delivery_id, tenant_id, endpoint_digest FROM deliveries"
            " WHERE state = 'PLANNED' ORDER BY next_attempt_at, delivery_id"
        )
    )


async def test_both_claim_statements_take_their_rows_in_turns_by_tenant(
    engine: Engine, tenant: str, subscriber: Subscriber
) -> None:
    second = (await engine.tenants.create("second")).tenant_id
    third = (await engine.tenants.create("third")).tenant_id
    # the first tenant's backlog is due first, at three endpoints; then the others' rows
    for i in range(3):
        await active_subscription(engine, tenant, subscriber.url(f"ok/a{i}"), topics=["a"])
    await active_subscription(engine, second, subscriber.url("ok/b"), topics=["b"])
    await active_subscription(engine, third, subscriber.url("ok/c"), topics=["c"])
    for who, topic, n in ((tenant, "a", 6), (second, "b", 3), (third, "c", 1)):
        for i in range(n):  # one at a time: each its own due time (no ties)
            await publish(engine, who, f"evt-{topic}-{i}", topic=topic, aggregateId=f"o-{i}")
    due = await _due(engine)
    assert Counter(r["tenant_id"] for r in due) == {tenant: 18, second: 3, third: 1}
    repo = engine.services.dispatcher.deliveries
    for limit in (1, 4, 7, 12, 30):
        for per_endpoint in (False, True):  # dispatch_claim.sql, dispatch_claim_endpoints.sql
            # by due order the claim looks at its first 4 x limit due rows; per pair, at each
            # pair's oldest rows (here all of them)
            seen = due if per_endpoint else due[: 4 * limit]
            expected = {r["delivery_id"] for r in fair_pick(seen, limit, lambda r: r["tenant_id"])}
            async with repo.transaction() as conn:
                rows = await repo.claim(conn, limit, [], room=8, per_endpoint=per_endpoint)
            assert {r["delivery_id"] for r in rows} == expected, (limit, per_endpoint)
            assert len(await _due(engine)) == 22  # nothing admitted: all due again
    async with repo.transaction() as conn:  # the others' rows behind the first one's backlog
        rows = await repo.claim(conn, 6, [], room=8)
    assert Counter(r["tenant_id"] for r in rows) == {tenant: 3, second: 2, third: 1}
