"""An archival run over a real workload: exactly the closed streams older than the cutoff leave
the hot log; open ones, their fencing and their expected versions are untouched; archived
evidence still answers."""

from __future__ import annotations

import asyncio
from datetime import datetime
from typing import Any

import asyncpg
import pytest

from hookproof.engine.audit import delivery_timeline, event_timeline
from hookproof.engine.delivery.log_repository import DeliveryLogKeys
from hookproof.engine.runtime.composition import construct_archiver
from hookproof.engine.runtime.daemon import Engine
from hookproof.errors import ConcurrencyConflict, ConflictError, StreamArchived
from hookproof.events import NO_STREAM, StreamAppend
from hookproof.events.delivery_events import DeliveryReplayRequested, event_stream_id

from ..delivery.conftest import Subscriber, active_subscription, delivery, dispatch_all, publish

FAST_DEAD = {"retryPolicy": {"initialDelayS": 0.05, "maxDelayS": 0.05, "maxAttempts": 1}}
SLOW_RETRY = {"retryPolicy": {"initialDelayS": 3600, "maxDelayS": 3600, "maxAttempts": 5}}


async def _snapshot(pool: asyncpg.Pool) -> dict[str, Any]:
    rows = await pool.fetch("SELECT stream_id, stream_version, hash FROM events")
    streams: dict[str, list[tuple[int, bytes]]] = {}
    for r in rows:
        streams.setdefault(r["stream_id"], []).append((r["stream_version"], bytes(r["hash"])))
    deliveries = {r["delivery_id"]: dict(r) for r in await pool.fetch("SELECT * FROM deliveries")}
    subs = {r["subscription_id"]: dict(r) for r in await pool.fetch("SELECT * FROM subscriptions")}
    return {
        "streams": {k: sorted(v) for k, v in streams.items()},
        "deliveries": deliveries,
        "subscriptions": subs,
    }


async def _now(pool: asyncpg.Pool) -> datetime:
    value = await pool.fetchval("SELECT clock_timestamp()")
    assert isinstance(value, datetime)
    return value


async def _workload(engine: Engine, tenant: str, subscriber: Subscriber) -> dict[str, Any]:
    a = await active_subscription(
        engine, tenant, subscriber.url("ok-a"), topics=["order.a", "order.ac"]
    )
    b = await active_subscription(
        engine, tenant, subscriber.url("fail500-b"), topics=["order.b"], **FAST_DEAD
    )
    c = await active_subscription(
        engine, tenant, subscriber.url("fail500-c"), topics=["order.c", "order.ac"], **SLOW_RETRY
    )
    ids: dict[str, list[str]] = {
        "accepted": [],
        "dead": [],
        "retrying": [],
        "mixed_ok": [],
        "mixed_open": [],
    }
    events: dict[str, str] = {}
    for i in range(4):
        [d] = (await publish(engine, tenant, f"evt-a{i}", topic="order.a")).deliveries
        ids["accepted"].append(d["deliveryId"])
        events[d["deliveryId"]] = f"evt-a{i}"
    for i in range(2):
        [d] = (await publish(engine, tenant, f"evt-b{i}", topic="order.b")).deliveries
        ids["dead"].append(d["deliveryId"])
    for i in range(2):
        [d] = (await publish(engine, tenant, f"evt-c{i}", topic="order.c")).deliveries
        ids["retrying"].append(d["deliveryId"])
    both = (await publish(engine, tenant, "evt-ac", topic="order.ac")).deliveries
    for d in both:
        ids["mixed_ok" if d["subscriptionId"] == a else "mixed_open"].append(d["deliveryId"])
    await dispatch_all(engine)
    await asyncio.sleep(0.1)
    await dispatch_all(engine)
    for did in ids["accepted"] + ids["mixed_ok"]:
        assert (await delivery(engine, tenant, did))["state"] == "ENDPOINT_ACCEPTED"
    for did in ids["dead"]:
        assert (await delivery(engine, tenant, did))["state"] == "DEAD_LETTER"
    for did in ids["retrying"] + ids["mixed_open"]:
        assert (await delivery(engine, tenant, did))["state"] == "RETRYABLE"
    return {"subs": (a, b, c), "ids": ids}


async def test_run_removes_exactly_the_closed_streams_older_than_the_cutoff(
    engine: Engine, tenant: str, subscriber: Subscriber
) -> None:
    w = await _workload(engine, tenant, subscriber)
    ids = w["ids"]
    cutoff = await _now(engine.pool)
    # closed, but after the cutoff: stays
    [late] = (await publish(engine, tenant, "evt-late", topic="order.a")).deliveries
    await dispatch_all(engine)
    store = engine.store  # the engine's store reads archived streams back
    timelines = {
        did: (await delivery_timeline(store, did)).to_json()
        for did in ids["accepted"] + ids["dead"] + ids["mixed_ok"]
    }
    event_tl = (await event_timeline(store, "evt-a0")).to_json()
    views = {did: await delivery(engine, tenant, did) for did in ids["accepted"] + ids["dead"]}
    reader = engine.services.reader
    event_views = {e: await reader.event(tenant, e) for e in ("evt-a0", "evt-ac")}
    before = await _snapshot(engine.pool)

    result = await construct_archiver(engine.pool, engine.settings).run(cutoff)

    after = await _snapshot(engine.pool)
    closed_deliveries = ids["accepted"] + ids["dead"] + ids["mixed_ok"]
    closed_events = [f"evt-a{i}" for i in range(4)] + [f"evt-b{i}" for i in range(2)]
    expected = {f"delivery-{d}" for d in closed_deliveries} | {
        event_stream_id(tenant, e) for e in closed_events
    }
    tombstones = {
        r["stream_id"] for r in await engine.pool.fetch("SELECT stream_id FROM archived_streams")
    }
    assert tombstones == expected
    assert result.streams == len(expected)
    assert result.events == sum(len(before["streams"][s]) for s in expected)
    assert result.removed == result.events
    # exactly those left the hot log; every other stream is byte for byte as it was
    anchors = after["streams"].pop("archive-segments")
    assert len(anchors) == 1 and "archive-segments" not in before["streams"]
    assert set(after["streams"]) == set(before["streams"]) - expected
    for s, rows in after["streams"].items():
        assert rows == before["streams"][s], s
    # open deliveries, their leases and retry times, and the subscriptions (fencing) untouched
    for did in ids["retrying"] + ids["mixed_open"] + [late["deliveryId"]]:
        assert after["deliveries"][did] == before["deliveries"][did]
    assert set(after["deliveries"]) == set(before["deliveries"]) - set(closed_deliveries)
    # the delivery log's keys left with their ledger rows (archive_remove.sql), no others
    keys = {r[0] for r in await engine.pool.fetch("SELECT delivery_id FROM delivery_log")}
    assert keys == set(after["deliveries"])
    assert await DeliveryLogKeys(engine.pool).drift() == []
    assert after["subscriptions"] == before["subscriptions"]
    for e in ("evt-c0", "evt-c1", "evt-ac", "evt-late"):
        assert event_stream_id(tenant, e) in after["streams"]

    # appends keep their expected versions: an open stream takes the next version ...
    open_id = ids["retrying"][0]
    version = before["deliveries"][open_id]["stream_version"]
    with pytest.raises(ConcurrencyConflict):
        await store.append(
            [
                StreamAppend(
                    f"delivery-{open_id}",
                    [
                        DeliveryReplayRequested(
                            delivery_id=open_id, by="test", at=cutoff.isoformat()
                        )
                    ],
                    version - 1,
                )
            ]
        )
    # ... an archived one takes none, whatever version is claimed
    dead = ids["dead"][0]
    for expected_version in (before["deliveries"][dead]["stream_version"], NO_STREAM):
        with pytest.raises(StreamArchived):
            await store.append(
                [
                    StreamAppend(
                        f"delivery-{dead}",
                        [
                            DeliveryReplayRequested(
                                delivery_id=dead, by="test", at=cutoff.isoformat()
                            )
                        ],
                        expected_version,
                    )
                ]
            )
    # canonical bodies of archived events left with them; the digest stays in the log
    bodies = {r["event_id"] for r in await engine.pool.fetch("SELECT event_id FROM event_bodies")}
    assert bodies == {"evt-c0", "evt-c1", "evt-ac", "evt-late"}
    [ingested] = await store.read_stream(event_stream_id(tenant, "evt-a0"))
    assert ingested.decode().payload_digest  # type: ignore[attr-defined]
    # the same event id again plans nothing twice: the archived stream takes no append
    with pytest.raises(ConflictError) as refused:
        await publish(engine, tenant, "evt-a0", topic="order.a")
    assert refused.value.code == "stream_archived"
    assert (
        await engine.pool.fetchval(
            "SELECT count(*) FROM events WHERE stream_id = ANY($1)",
            [event_stream_id(tenant, "evt-a0"), f"delivery-{ids['accepted'][0]}"],
        )
        == 0
    )

    # archived evidence still answers, and says the same
    for did, tl in timelines.items():
        assert (await delivery_timeline(store, did)).to_json() == tl
    assert (await event_timeline(store, "evt-a0")).to_json() == event_tl
    for did, view in views.items():
        now_view = await delivery(engine, tenant, did)
        assert now_view.pop("archived") is True
        # the body the attempts sent has left the hot store with the event: the view says so
        sent = view.pop("requestBody")
        assert sent["archived"] is False and sent["text"] is not None
        assert now_view.pop("requestBody") == {
            "text": None, "bytes": None, "truncated": False, "archived": True
        }
        assert now_view == view

    # GET /v1/events/{id}: an archived event, and a hot one with an archived delivery
    for e, view in event_views.items():
        now_view = await reader.event(tenant, e)
        if e == "evt-a0":
            assert now_view.pop("archived") is True
        archived_ids = {d["deliveryId"] for d in now_view["deliveries"] if d.pop("archived", False)}
        assert archived_ids == {
            d["deliveryId"] for d in view["deliveries"] if d["deliveryId"] in closed_deliveries
        }
        assert now_view == view

    # a second run finds nothing more; the late one stays
    again = await construct_archiver(engine.pool, engine.settings).run(cutoff)
    assert again.streams == 0 and again.removed == 0
