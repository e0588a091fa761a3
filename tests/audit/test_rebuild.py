"""Rebuild equals the incrementally maintained projections after a long randomised workload;
``projections rebuild --verify`` reports an injected difference and exits non-zero."""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hookproof.engine.db.database import connect_pool
from hookproof.engine.delivery.log_repository import DeliveryLogKeys
from hookproof.engine.recording.registry import async_projections, inline_hooks, projections_by_name
from hookproof.events import ANY, Event, EventStore, Metadata, StreamAppend
from hookproof.events.consumer_events import (
    ConsumerCreated,
    ConsumerDisabled,
    ConsumerUpdated,
    consumer_stream_id,
)
from hookproof.events.event_type_events import (
    EventTypeDefined,
    EventTypeVersion,
    event_type_stream_id,
)
from hookproof.projections import Projector, ledger, rebuild, table_rows
from tests.daemon import run_cli
from tests.support import log_settled

from . import history as h

DELIVERY_OPS = ["admit", "accept", "fail", "unknown", "lost", "dead", "replay", "confirm"]
SUBSCRIPTION_OPS = ["issue", "pass", "activate", "suspend", "fail", "update"]


def _delivery_events(did: str, sid: str, receipts: bool, ops: list[str]) -> list[Event]:
    """A delivery history from ``ops``, keeping only the events the ledger table allows."""
    out: list[Event] = [h.planned(did, sid=sid, event_id=f"e-{did}", receipts=receipts)]
    state = ledger.transition(None, out[0])
    attempt = 0
    for i, op in enumerate(ops):
        if op == "admit" and ledger.ledger_next(state, "admit") is None:
            continue
        if op == "admit":
            attempt += 1
            out.append(h.admitted(did, attempt, reconciles=i % 2 == 0, minute=i))
        elif op == "accept":
            out.append(h.accepted(did, max(attempt, 1), minute=i))
        elif op == "fail":
            out.append(h.failed(did, max(attempt, 1), minute=i))
        elif op == "unknown":
            out.append(h.failed(did, max(attempt, 1), "UNKNOWN_TRANSPORT", minute=i))
        elif op == "lost":
            out.append(h.lost(did, max(attempt, 1), minute=i))
        elif op == "dead":
            out.append(h.dead(did, max(attempt, 1)))
        elif op == "replay":
            out.append(h.replay(did))
        else:
            out.append(h.confirmed(did, sid=sid, event_id=f"e-{did}", op=f"op{i}", minute=i))
        try:
            state = ledger.transition(state, out[-1])
        except ledger.LedgerTransitionForbidden:
            out.pop()
    return out


def _subscription_events(sid: str, ops: list[str]) -> list[Event]:
    out: list[Event] = [h.registered(sid)]
    gen, n = 1, 0
    for op in ops:
        if op == "issue":
            n += 1
            out.append(h.issued(sid, f"c{n}", gen))
        elif op == "pass":
            out.append(h.passed(sid, f"c{n}", gen))
        elif op == "activate":
            out.append(h.state_changed(sid, "activate", "PENDING_CHALLENGE", "ACTIVE", gen))
        elif op == "suspend":
            out.append(h.state_changed(sid, "suspend", "ACTIVE", "SUSPENDED", gen))
        elif op == "fail":
            out.append(h.failed_challenge(sid, f"c{n}", gen))
        else:
            gen += 1
            out.append(h.updated(sid, gen, gen - 1, endpoint=f"https://e{gen}.test/h"))
    return out


def _event_type_events(tenant: str, topic: str, n: int) -> list[Event]:
    """``n`` successive definitions of one type (each replaces the one before)."""
    return [
        EventTypeDefined(
            tenant_id=tenant,
            topic=topic,
            description=f"definition {k}",
            versions={
                str(m): EventTypeVersion(schema={"type": "object"}, example={"k": k})
                for m in range(1, k + 2)
            },
            deprecated=k % 2 == 1,
            digest=f"{k:064x}",
            at=f"2026-11-30T10:{k:02d}:00+00:00",
        )
        for k in range(n)
    ]


workloads = st.fixed_dictionaries(
    {
        "deliveries": st.lists(
            st.tuples(st.booleans(), st.lists(st.sampled_from(DELIVERY_OPS), max_size=12)),
            min_size=1,
            max_size=12,
        ),
        "subscriptions": st.lists(
            st.lists(st.sampled_from(SUBSCRIPTION_OPS), max_size=8), min_size=1, max_size=4
        ),
        "event_types": st.lists(st.integers(min_value=1, max_value=4), max_size=3),
        "chunk": st.integers(min_value=1, max_value=5),
        "seed": st.randoms(use_true_random=False),
    }
)


async def _append_workload(store: EventStore, w: dict[str, Any]) -> None:
    tag = uuid.uuid4().hex[:8]
    streams: list[tuple[str, list[Event]]] = []
    for j, ops in enumerate(w["subscriptions"]):
        sid = f"s{tag}{j}"
        streams.append((f"subscription-{sid}", _subscription_events(sid, ops)))
    for j, n in enumerate(w["event_types"]):
        tenant = f"ten_{tag}{j:08d}"
        streams.append(
            (
                event_type_stream_id(tenant, "order.created"),
                _event_type_events(tenant, "order.created", n),
            )
        )
    for j, ops in enumerate(w["subscriptions"]):  # a consumer beside each subscription
        cid, at = f"c{tag}{j}", "2026-11-30T10:00:00+00:00"
        events: list[Event] = [ConsumerCreated(tenant_id="t", consumer_id=cid, name="n", at=at)]
        if len(ops) > 1:
            events.append(
                ConsumerUpdated(tenant_id="t", consumer_id=cid, name="m", changed=["name"], at=at)
            )
        if len(ops) > 2:
            events.append(ConsumerDisabled(tenant_id="t", consumer_id=cid, at=at))
        streams.append((consumer_stream_id("t", cid), events))
    for j, (receipts, ops) in enumerate(w["deliveries"]):
        did = f"d{tag}{j}"
        streams.append((f"delivery-{did}", _delivery_events(did, f"s{tag}0", receipts, ops)))
    # Interleave: each append takes the next few events of several random streams.
    rnd = w["seed"]
    pending = {s: evs for s, evs in streams}
    while pending:
        chosen = rnd.sample(sorted(pending), k=min(len(pending), rnd.randint(1, 3)))
        batch = []
        for s in chosen:
            take, pending[s] = pending[s][: w["chunk"]], pending[s][w["chunk"] :]
            batch.append(StreamAppend(s, take, ANY, Metadata(actor="prop")))
            if not pending[s]:
                del pending[s]
        await store.append(batch)


async def _verify_all(store: EventStore) -> dict[str, list[str]]:
    asynchronous = {p.name for p in async_projections()}
    await log_settled(store.pool)
    await Projector(store, async_projections()).run_once()
    out = {}
    for name, projection in projections_by_name().items():
        result = await rebuild(store, projection, verify=True, inline=name not in asynchronous)
        out[name] = result.differences or []
    # the delivery log's keys (written by the ledger's inserts) agree with the ledger
    out["delivery_log"] = await DeliveryLogKeys(store.pool).drift()
    return out


def test_rebuild_equals_incremental(db_url_sync: str) -> None:
    @settings(
        max_examples=25,
        deadline=None,
        suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    )
    @given(w=workloads)
    def check(w: dict[str, Any]) -> None:
        async def run() -> None:
            pool = await connect_pool(db_url_sync, min_size=1, max_size=3)
            try:
                store = EventStore(pool, inline=inline_hooks())
                await _append_workload(store, w)
                assert await _verify_all(store) == {
                    "attempt_stats": [],
                    "consumers": [],
                    "deliveries": [],
                    "delivery_log": [],
                    "event_types": [],
                    "stream_catalogue": [],
                    "subscriptions": [],
                }
            finally:
                await pool.close()

        asyncio.run(run())

    check()

    async def swap_and_inject() -> None:
        pool = await connect_pool(db_url_sync, min_size=1, max_size=3)
        try:
            store = EventStore(pool, inline=inline_hooks())
            registry = projections_by_name()
            async with pool.acquire() as conn:
                before = {n: await table_rows(conn, p, p.table) for n, p in registry.items()}
                indexes = await conn.fetchval("SELECT count(*) FROM pg_indexes")
            asynchronous = {p.name for p in async_projections()}
            for name, p in registry.items():
                result = await rebuild(store, p, inline=name not in asynchronous)
                assert result.rows == len(before[name])
            async with pool.acquire() as conn:
                after = {n: await table_rows(conn, p, p.table) for n, p in registry.items()}
                assert await conn.fetchval("SELECT count(*) FROM pg_indexes") == indexes
                # The swapped-in tables keep working as inline projections.
            assert after == before
            # the rebuilt ledger's COPY wrote its keys; the swapped-in table writes new ones
            assert await DeliveryLogKeys(pool).drift() == []
            replayable = ledger.sources("replay")
            d = next((k for k, r in before["deliveries"].items() if r["state"] in replayable), None)
            event = h.planned("d-after-swap") if d is None else h.replay(d)
            d = d or "d-after-swap"
            await store.append([StreamAppend(f"delivery-{d}", [event], ANY, Metadata(actor="x"))])
            verified = await _verify_all(store)
            assert (verified["deliveries"], verified["delivery_log"]) == ([], [])
            assert await pool.fetchval(
                "SELECT count(*) FROM delivery_log WHERE delivery_id = $1", d
            ) == 1
            await pool.execute("UPDATE deliveries SET state = 'INJECTED' WHERE delivery_id = $1", d)
            # a lost key and a stale one: verify reports both, a rebuild mends both
            await pool.execute("DELETE FROM delivery_log WHERE delivery_id = $1", d)
            await pool.execute(
                "INSERT INTO delivery_log SELECT tenant_id, created_at, 'dlv_stale',"
                " subscription_id, topic, event_id FROM deliveries WHERE delivery_id = $1",
                d,
            )
        finally:
            await pool.close()

    asyncio.run(swap_and_inject())
    env = {"HOOKPROOF_DATABASE_URL": db_url_sync}
    r = run_cli(["projections", "rebuild", "--verify"], env, timeout=120)
    assert r.returncode == 1, r.stdout + r.stderr
    assert "DIFF delivery_id=" in r.stdout and "state: live='INJECTED'" in r.stdout
    assert "DIFF missing in delivery_log: delivery_id=" in r.stdout
    assert "DIFF extra in delivery_log: delivery_id=dlv_stale" in r.stdout
    r = run_cli(["projections", "rebuild"], env, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "events/s" in r.stdout
    r = run_cli(["projections", "rebuild", "--verify"], env, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
