"""Idempotent, ordered application (both stores)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hookproof_subscriber import Event, EventApplier, InMemoryStore, Outcome, RejectEvent
from hookproof_subscriber.applier import SqliteStore

from .helpers import delivery

STORES = ["memory", "sqlite"]


def _store(kind: str):  # type: ignore[no-untyped-def]
    return InMemoryStore() if kind == "memory" else SqliteStore(":memory:")


def _event(eid: str, version: int, agg: str = "agg-1", payload: object = None) -> Event:
    headers, body = delivery(eid, version, aggregate_id=agg, payload=payload)
    return Event.from_delivery(body, headers)


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(
    data=st.data(),
    n=st.integers(min_value=1, max_value=12),
    aggregates=st.integers(min_value=1, max_value=3),
    kind=st.sampled_from(STORES),
)
async def test_out_of_order_and_duplicates_apply_once_in_order(data, n, aggregates, kind):  # type: ignore[no-untyped-def]
    applied: list[tuple[str, int]] = []

    def on_event(e: Event) -> None:
        applied.append((e.aggregate_id, e.aggregate_version))

    applier = EventApplier(on_event, _store(kind))
    events = [
        _event(f"e-{a}-{v}", v, f"agg-{a}") for a in range(aggregates) for v in range(1, n + 1)
    ]
    dups = data.draw(st.lists(st.sampled_from(events), max_size=2 * n))
    arrival = data.draw(st.permutations(events + dups))
    for ev in arrival:
        outcomes = await applier.submit(ev)
        assert outcomes[0].event == ev
        assert outcomes[0].outcome in (Outcome.APPLIED, Outcome.BUFFERED, Outcome.DUPLICATE)
    for a in range(aggregates):
        assert [v for agg, v in applied if agg == f"agg-{a}"] == list(range(1, n + 1))
    assert len(applied) == aggregates * n
    for ev in events:  # every later arrival is a duplicate with the original record
        (out,) = await applier.submit(ev)
        assert out.outcome is Outcome.DUPLICATE and out.record is not None
        assert out.record.result == "applied"


@pytest.mark.parametrize("kind", STORES)
async def test_same_event_id_with_another_payload_is_a_conflict(kind: str) -> None:
    applier = EventApplier(lambda e: None, _store(kind))
    assert (await applier.submit(_event("e1", 1)))[0].outcome is Outcome.APPLIED
    (out,) = await applier.submit(_event("e1", 1, payload={"other": True}))
    assert out.outcome is Outcome.CONFLICT
    assert (await applier.submit(_event("e3", 3)))[0].outcome is Outcome.BUFFERED
    (out,) = await applier.submit(_event("e3", 3, payload={"x": 1}))
    assert out.outcome is Outcome.CONFLICT
    (out,) = await applier.submit(_event("e3-bis", 3))
    assert out.outcome is Outcome.CONFLICT  # another event id claims version 3


@pytest.mark.parametrize("kind", STORES)
async def test_failure_records_nothing_and_the_retry_applies_once(kind: str) -> None:
    calls: list[int] = []
    fail = {"on": True}

    async def on_event(e: Event) -> None:
        calls.append(e.aggregate_version)
        if fail["on"]:
            raise RuntimeError("crashed before enqueue")

    applier = EventApplier(on_event, _store(kind))
    with pytest.raises(RuntimeError):
        await applier.submit(_event("e1", 1))
    fail["on"] = False
    assert (await applier.submit(_event("e1", 1)))[0].outcome is Outcome.APPLIED
    assert (await applier.submit(_event("e1", 1)))[0].outcome is Outcome.DUPLICATE
    assert calls == [1, 1]


@pytest.mark.parametrize("kind", STORES)
async def test_rejection_is_recorded_and_keeps_the_order_moving(kind: str) -> None:
    def on_event(e: Event) -> None:
        if e.aggregate_version == 1:
            raise RejectEvent("invalid order")

    applier = EventApplier(on_event, _store(kind))
    assert (await applier.submit(_event("e2", 2)))[0].outcome is Outcome.BUFFERED
    outs = await applier.submit(_event("e1", 1))
    assert [(o.event.event_id, o.outcome) for o in outs] == [
        ("e1", Outcome.REJECTED),
        ("e2", Outcome.APPLIED),
    ]
    # an earlier version under another id is stale (version 0 is no version: see below)
    assert (await applier.submit(_event("e1b", 1)))[0].outcome is Outcome.STALE


async def test_sqlite_effects_commit_with_the_applied_record_or_not_at_all(tmp_path: Path) -> None:
    store = SqliteStore(str(tmp_path / "sub.db"))
    store.connection.execute("CREATE TABLE orders (id TEXT PRIMARY KEY, total INTEGER)")
    boom = {"on": True}

    def on_event(e: Event) -> None:
        store.connection.execute("INSERT INTO orders VALUES (?, ?)", (e.event_id, 1))
        if boom["on"]:
            raise RuntimeError("crash after the effect, before the record")

    applier = EventApplier(on_event, store)
    with pytest.raises(RuntimeError):
        await applier.submit(_event("e1", 1))
    assert store.connection.execute("SELECT count(*) FROM orders").fetchone()[0] == 0
    boom["on"] = False
    await applier.submit(_event("e1", 1))
    await applier.submit(_event("e1", 1))
    assert store.connection.execute("SELECT count(*) FROM orders").fetchone()[0] == 1
    store.close()


async def test_sqlite_buffer_survives_a_restart(tmp_path: Path) -> None:
    path = str(tmp_path / "sub.db")
    seen: list[int] = []
    first = EventApplier(lambda e: seen.append(e.aggregate_version), SqliteStore(path))
    assert (await first.submit(_event("e2", 2)))[0].outcome is Outcome.BUFFERED
    assert (await first.submit(_event("e3", 3)))[0].outcome is Outcome.BUFFERED
    first.store.close()  # type: ignore[attr-defined]
    second = EventApplier(lambda e: seen.append(e.aggregate_version), SqliteStore(path))
    outs = await second.submit(_event("e1", 1))
    assert [o.outcome for o in outs] == [Outcome.APPLIED] * 3 and seen == [1, 2, 3]
    second.store.close()  # type: ignore[attr-defined]


async def test_joining_a_stream_mid_way_and_the_buffer_bound() -> None:
    applier = EventApplier(lambda e: None, InMemoryStore(), max_buffered=2)
    applier.start_aggregate("agg-1", 41)
    assert (await applier.submit(_event("e42", 42)))[0].outcome is Outcome.APPLIED
    assert (await applier.submit(_event("e44", 44)))[0].outcome is Outcome.BUFFERED
    assert (await applier.submit(_event("e45", 45)))[0].outcome is Outcome.BUFFERED
    (out,) = await applier.submit(_event("e46", 46))
    assert out.outcome is Outcome.CONFLICT and out.detail == "buffer full"


def test_event_from_delivery_binds_the_headers() -> None:
    headers, body = delivery("e1", 1, traceparent="00-" + "a" * 32 + "-" + "b" * 16 + "-01")
    ev = Event.from_delivery(body, headers)
    assert (ev.event_id, ev.subscription_id, ev.generation) == ("e1", "sub_1", 3)
    assert ev.traceparent and ev.payload == json.loads(body)["payload"]
    headers["Webhook-Id"] = "e2"
    with pytest.raises(ValueError):
        Event.from_delivery(body, headers)


@pytest.mark.parametrize("kind", STORES)
async def test_version_0_is_applied_once_by_id_without_order(kind: str) -> None:
    """A CloudEvent published without aggregateversion arrives as version 0 (of its subject,
    or of its own id): applied once each, never stale, and the aggregate's order untouched."""
    applied: list[str] = []
    applier = EventApplier(lambda e: applied.append(e.event_id), _store(kind))
    outcomes = [await applier.submit(_event(eid, 0, "order-1")) for eid in ("u1", "u2")]
    assert [o[0].outcome for o in outcomes] == [Outcome.APPLIED, Outcome.APPLIED]
    (again,) = await applier.submit(_event("u1", 0, "order-1"))
    assert again.outcome == Outcome.DUPLICATE
    # the aggregate's ordered versions still start at 1 and go in order
    (early,) = await applier.submit(_event("v2", 2, "order-1"))
    assert early.outcome == Outcome.BUFFERED
    first = await applier.submit(_event("v1", 1, "order-1"))
    assert [o.outcome for o in first] == [Outcome.APPLIED, Outcome.APPLIED]
    assert applied == ["u1", "u2", "v1", "v2"]
    # counting from 0, version 0 is the first ordered one, as before
    zero = EventApplier(lambda e: None, _store(kind), first_version=0)
    (out,) = await zero.submit(_event("z0", 0, "agg-z"))
    (late,) = await zero.submit(_event("z0b", 0, "agg-z"))
    assert out.outcome == Outcome.APPLIED and late.outcome == Outcome.STALE
