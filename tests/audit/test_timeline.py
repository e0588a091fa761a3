"""Timelines and as-of views from a scripted history match the expected states at each moment."""

from __future__ import annotations

import json
from datetime import datetime

import asyncpg
import pytest

from hookproof.engine.audit import (
    delivery_timeline,
    event_timeline,
    parse_as_of,
    subscription_timeline,
)
from hookproof.engine.cli.audit import render_timeline
from hookproof.errors import NotFound
from hookproof.events import EventStore
from tests.daemon import run_cli

from . import history as h


async def _now(pool: asyncpg.Pool) -> datetime:
    """A moment strictly after every event recorded so far (recorded_at is clock_timestamp())."""
    value = await pool.fetchval("SELECT clock_timestamp()")
    assert isinstance(value, datetime)
    return value


async def test_delivery_and_subscription_as_of(pool: asyncpg.Pool) -> None:
    store = EventStore(pool)
    moments: dict[str, datetime] = {"before": await _now(pool)}
    await h.put(store, "subscription-s1", h.registered("s1"), h.issued("s1", "c1"), actor="api")
    moments["registered"] = await _now(pool)
    await h.put(
        store,
        "subscription-s1",
        h.passed("s1", "c1"),
        h.state_changed("s1", "activate", "PENDING_CHALLENGE", "ACTIVE"),
        actor="challenger",
    )
    moments["active"] = await _now(pool)
    await h.put(store, "event-e1", h.ingested("e1", ["d1"]), actor="tenant:t1")
    await h.put(store, "delivery-d1", h.planned("d1"), actor="tenant:t1")
    moments["planned"] = await _now(pool)
    await h.put(store, "delivery-d1", h.admitted("d1", 1, key_id="kA"), actor="w1")
    moments["dispatching"] = await _now(pool)
    await h.put(store, "delivery-d1", h.failed("d1", 1, "UNKNOWN_TRANSPORT"), actor="w1")
    moments["unknown"] = await _now(pool)
    await h.put(store, "delivery-d1", h.admitted("d1", 2, key_id="kB", reconciles=True), actor="w2")
    await h.put(store, "delivery-d1", h.accepted("d1", 2), actor="w2")
    moments["accepted"] = await _now(pool)
    await h.put(store, "subscription-s1", h.state_changed("s1", "suspend", "ACTIVE", "SUSPENDED"))
    moments["suspended"] = await _now(pool)

    expected_delivery = {
        "planned": ("PLANNED", 0, "VERIFIED_ENDPOINT", 1),
        "dispatching": ("DISPATCHING", 1, "VERIFIED_ENDPOINT", 2),
        "unknown": ("UNKNOWN_TRANSPORT", 1, "VERIFIED_ENDPOINT", 3),
        "accepted": ("ENDPOINT_ACCEPTED", 2, "ENDPOINT_ACCEPTED", 5),
        "suspended": ("ENDPOINT_ACCEPTED", 2, "ENDPOINT_ACCEPTED", 5),
    }
    for moment, (state, attempt, endpoint, n) in expected_delivery.items():
        t = await delivery_timeline(store, "d1", as_of=moments[moment])
        assert t.state is not None
        assert (t.state["state"], t.state["attempt"], len(t.entries)) == (state, attempt, n), moment
        assert t.state["evidence"] == {"endpoint": endpoint, "application": "UNOBSERVABLE"}
    for moment in ("before", "registered", "active"):
        with pytest.raises(NotFound):
            await delivery_timeline(store, "d1", as_of=moments[moment])

    full = await delivery_timeline(store, "d1")
    assert [e.type for e in full.entries] == [
        "delivery.planned",
        "delivery.attempt_admitted",
        "delivery.attempt_failed",
        "delivery.attempt_admitted",
        "delivery.endpoint_accepted",
    ]
    assert [e.state for e in full.entries] == [
        "PLANNED",
        "DISPATCHING",
        "UNKNOWN_TRANSPORT",
        "DISPATCHING",
        "ENDPOINT_ACCEPTED",
    ]
    assert [e.key_id for e in full.entries] == [None, "kA", None, "kB", None]
    assert [e.actor for e in full.entries] == ["tenant:t1", "w1", "w1", "w2", "w2"]
    assert all(e.generation == 1 for e in full.entries)
    assert "UNKNOWN_TRANSPORT response_lost" in full.entries[2].outcome
    assert "reconciling" in full.entries[3].outcome
    assert full.entries[-1].evidence == "ENDPOINT_ACCEPTED / UNOBSERVABLE"
    times = [e.recorded_at for e in full.entries]
    assert times == sorted(times)

    expected_subscription = {
        "registered": ("PENDING_CHALLENGE", "UNVERIFIED", "c1"),
        "active": ("ACTIVE", "VERIFIED_ENDPOINT (generation 1)", None),
        "accepted": ("ACTIVE", "VERIFIED_ENDPOINT (generation 1)", None),
        "suspended": ("SUSPENDED", "VERIFIED_ENDPOINT (generation 1)", None),
    }
    for moment, (state, evidence, pending) in expected_subscription.items():
        t = await subscription_timeline(store, "s1", as_of=moments[moment])
        assert t.state is not None
        got = (t.state["state"], t.state["evidence"], t.state["pendingChallenge"])
        assert got == (state, evidence, pending), moment
    with pytest.raises(NotFound):
        await subscription_timeline(store, "s1", as_of=moments["before"])

    ev = await event_timeline(store, "e1", as_of=moments["dispatching"])
    assert [c.id for c in ev.children] == ["d1"]
    assert ev.state is not None and ev.state["deliveries"][0]["state"] == "DISPATCHING"
    ev_now = await event_timeline(store, "e1")
    assert ev_now.state is not None
    assert ev_now.state["deliveries"][0]["state"] == "ENDPOINT_ACCEPTED"
    text = "\n".join(render_timeline(ev_now))
    assert "event e1" in text and "delivery d1" in text and "ENDPOINT_ACCEPTED" in text
    assert json.dumps(ev_now.to_json())


async def test_receipts_reach_application_confirmed(pool: asyncpg.Pool) -> None:
    store = EventStore(pool)
    await h.put(store, "delivery-d2", h.planned("d2", receipts=True), h.admitted("d2", 1))
    await h.put(store, "delivery-d2", h.accepted("d2", 1))
    mid = await _now(pool)
    await h.put(store, "delivery-d2", h.confirmed("d2", op="op-9"))
    t = await delivery_timeline(store, "d2", as_of=mid)
    assert t.state is not None
    assert t.state["evidence"] == {"endpoint": "ENDPOINT_ACCEPTED", "application": "PENDING"}
    t = await delivery_timeline(store, "d2")
    assert t.state is not None
    assert t.state["state"] == "APPLICATION_CONFIRMED"
    assert t.state["evidence"] == {"endpoint": "ENDPOINT_ACCEPTED", "application": "CONFIRMED"}
    assert t.entries[-1].key_id == "rk1" and "op=op-9" in t.entries[-1].outcome


def test_parse_as_of() -> None:
    assert parse_as_of("2026-01-01T12:00:00Z") == h.T0
    assert parse_as_of("2026-01-01T12:00:00") == h.T0
    assert parse_as_of(None) is None


def test_cli_timelines(db_url_sync: str) -> None:
    import asyncio

    from hookproof.engine.db.database import connect_pool

    async def script() -> str:
        pool = await connect_pool(db_url_sync, min_size=1, max_size=2)
        try:
            store = EventStore(pool)
            await h.put(store, "subscription-s1", h.registered("s1"), h.issued("s1", "c1"))
            await h.put(store, "delivery-d1", h.planned("d1"), h.admitted("d1", 1, key_id="kA"))
            middle = (await _now(pool)).isoformat()
            await h.put(store, "delivery-d1", h.accepted("d1", 1))
            await h.put(store, "event-e1", h.ingested("e1", ["d1"]))
            return middle
        finally:
            await pool.close()

    middle = asyncio.run(script())
    env = {"HOOKPROOF_DATABASE_URL": db_url_sync}
    r = run_cli(["audit", "delivery", "d1", "--as-of", middle, "--json"], env)
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["state"]["state"] == "DISPATCHING" and len(out["entries"]) == 2
    assert out["entries"][1]["keyId"] == "kA"
    r = run_cli(["audit", "delivery", "d1"], env)
    assert r.returncode == 0, r.stderr
    assert "endpoint_accepted" in r.stdout and "ENDPOINT_ACCEPTED" in r.stdout
    r = run_cli(["audit", "subscription", "s1", "--json"], env)
    assert r.returncode == 0 and json.loads(r.stdout)["state"]["state"] == "PENDING_CHALLENGE"
    r = run_cli(["audit", "event", "e1"], env)
    assert r.returncode == 0 and "delivery d1" in r.stdout
    r = run_cli(["audit", "delivery", "nope"], env)
    assert r.returncode != 0 and "nope" in r.stderr
