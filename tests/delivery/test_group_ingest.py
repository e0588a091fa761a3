"""Group commit and batch ingest: many events per transaction, each answered as if alone.

A real engine behind a real HTTP server on loopback, a real subscriber, a fresh database.
The group-commit window is long here (0.2 s, one group at a time) so that concurrent requests
really share transactions; what is asserted is the answers and the log, never a time.
"""

from __future__ import annotations

import asyncio
import json
import random
from collections import Counter, defaultdict
from collections.abc import AsyncIterator
from dataclasses import replace
from datetime import datetime
from typing import Any

import aiohttp
import asyncpg
import pytest
from aiohttp.test_utils import TestServer

from hookproof.config import Settings
from hookproof.engine.runtime.daemon import Engine
from hookproof.events.delivery_events import event_stream_id

from ..support import running_engine
from .conftest import Subscriber, active_subscription, dispatch_all


@pytest.fixture
def settings(settings: Settings) -> Settings:
    return replace(settings, ingest_group_window_s=0.2, ingest_group_inflight=1)


@pytest.fixture
async def engine(pool: asyncpg.Pool, settings: Settings) -> AsyncIterator[Engine]:
    async with running_engine(pool, settings) as e:
        yield e


class Client:
    def __init__(self, http: aiohttp.ClientSession, base: str, token: str) -> None:
        self.http, self.base, self.token = http, base, token

    async def post(self, path: str, body: Any) -> tuple[int, Any]:
        headers = {"Authorization": f"Bearer {self.token}"}
        async with self.http.post(self.base + path, json=body, headers=headers) as r:
            return r.status, await r.json(content_type=None)

    async def get(self, path: str) -> tuple[int, Any]:
        headers = {"Authorization": f"Bearer {self.token}"}
        async with self.http.get(self.base + path, headers=headers) as r:
            return r.status, await r.json(content_type=None)


@pytest.fixture
async def client(engine: Engine) -> AsyncIterator[Client]:
    issued = await engine.tenants.create("acme")
    server = TestServer(engine.app(), host="127.0.0.1")
    await server.start_server()
    conn = aiohttp.TCPConnector(limit=300)
    async with aiohttp.ClientSession(connector=conn) as http:
        c = Client(http, str(server.make_url("")).rstrip("/"), issued.token)
        c.tenant = issued.tenant_id  # type: ignore[attr-defined]
        yield c
    await server.close()


def event(event_id: str, payload: Any, **over: Any) -> dict[str, Any]:
    doc = {
        "eventId": event_id,
        "topic": "order.created",
        "version": "1.0",
        "aggregateId": "order-1",
        "aggregateVersion": 1,
        "occurredAt": "2026-11-30T10:00:00Z",
        "payload": payload,
    }
    doc.update(over)
    return doc


@pytest.mark.solo  # timing across processes: after the parallel part, alone (Makefile)
async def test_200_concurrent_posts_each_get_the_answer_they_would_get_alone(
    engine: Engine, client: Client, subscriber: Subscriber
) -> None:
    tenant = client.tenant  # type: ignore[attr-defined]
    subs = {
        await active_subscription(engine, tenant, subscriber.url("ok-1")),
        await active_subscription(engine, tenant, subscriber.url("ok-2")),
    }
    rng = random.Random(11)
    posts: list[dict[str, Any]] = []
    posts += [event(f"solo-{i}", {"i": i}) for i in range(120)]
    posts += [event(f"same-{i}", {"i": i}) for i in range(20) for _ in range(2)]  # idempotent
    posts += [event(f"diff-{i}", {"i": i, "v": v}) for i in range(10) for v in (1, 2, 3)]
    posts += [event(f"bad-{i}", {"i": i}, version="one") for i in range(10)]  # 400 each
    assert len(posts) == 200
    rng.shuffle(posts)
    groups_before = engine.services.ingest.groups.groups

    answers = await asyncio.gather(*(client.post("/v1/events", p) for p in posts))

    groups = engine.services.ingest.groups.groups - groups_before
    assert groups < 190, "the requests were meant to share transactions"
    by_id: dict[str, list[tuple[dict[str, Any], int, Any]]] = defaultdict(list)
    for p, (status, body) in zip(posts, answers, strict=True):
        by_id[p["eventId"]].append((p, status, body))
    for eid, seen in by_id.items():
        if eid.startswith("bad-"):
            [(_, status, body)] = seen
            assert status == 400 and body["field"] == "version"
            assert (await client.get(f"/v1/events/{eid}"))[0] == 404
            continue
        status, stored = await client.get(f"/v1/events/{eid}")
        assert status == 200
        planned = sorted(
            [
                {"deliveryId": d["deliveryId"], "subscriptionId": d["subscriptionId"]}
                for d in stored["deliveries"]
            ],
            key=lambda d: d["deliveryId"],
        )
        assert {d["subscriptionId"] for d in planned} == subs
        created = [b for _, s, b in seen if s == 202 and b["created"]]
        assert len(created) == 1, eid  # exactly one request created it, as if serialised
        conflicts = 0
        for _, s, b in seen:
            if s == 202:  # its own payload is the stored one, and so are its deliveries
                assert b["payloadDigest"] == stored["payloadDigest"]
                assert b["deliveries"] == planned
            else:
                assert s == 409 and b["code"] == "event_payload_conflict"
                assert b["payloadDigest"] == stored["payloadDigest"]
                conflicts += 1
        kinds = Counter(
            e.type for e in await engine.store.read_stream(event_stream_id(tenant, eid))
        )
        assert kinds == Counter({"event.ingested": 1, "event.payload_conflict": conflicts})
        if eid.startswith("same-"):
            assert [s for _, s, _ in seen] == [202, 202]
        if eid.startswith("diff-"):
            assert conflicts == 2
    n = await engine.pool.fetchval("SELECT count(*) FROM deliveries")
    assert n == 2 * (120 + 20 + 10)  # nothing planned twice
    for _ in range(50):
        if not await dispatch_all(engine):
            break
    bodies = [json.loads(r.body) for r in subscriber.deliveries()]
    assert len(bodies) == n and len({(b["eventId"], json.dumps(b)) for b in bodies}) == n // 2


async def test_batch_answers_each_event_in_order(engine: Engine, client: Client) -> None:
    await client.post("/v1/events", event("known", {"a": 1}))
    docs = [
        event("b-1", {"x": 1}),
        event("b-1", {"x": 1}),  # a repeat inside the batch: decided after the first
        event("b-1", {"x": 2}),  # ... and a conflict with it
        event("known", {"a": 1}),  # idempotent against an earlier request
        event("known", {"a": 2}),  # conflict against an earlier request
        {"eventId": "b-2", "topic": "order.created"},  # missing fields
        event("b-3", {"x": 3}, occurredAt="yesterday"),
        event("b 4", {"x": 4}),  # not an id
        event("b-5", {"x": 5}),
        "not an object",
    ]
    status, body = await client.post("/v1/events/batch", {"events": docs})
    assert status == 200
    got = [(r.get("eventId"), r["status"]) for r in body["results"]]
    assert got == [
        ("b-1", 202),
        ("b-1", 202),
        ("b-1", 409),
        ("known", 202),
        ("known", 409),
        ("b-2", 400),
        ("b-3", 400),
        ("b 4", 400),
        ("b-5", 202),
        (None, 400),
    ]
    r = body["results"]
    assert r[0]["created"] is True and r[1]["created"] is False
    assert r[1]["payloadDigest"] == r[0]["payloadDigest"] == r[2]["problem"]["payloadDigest"]
    assert r[3]["created"] is False
    assert r[2]["problem"]["code"] == "event_payload_conflict"
    assert r[2]["problem"]["status"] == 409
    assert r[5]["problem"]["status"] == 400 and r[6]["problem"]["field"] == "occurredAt"
    assert r[7]["problem"]["field"] == "eventId"
    for eid in ("b-2", "b-3"):
        assert (await client.get(f"/v1/events/{eid}"))[0] == 404
    assert (await client.get("/v1/events/b-5"))[0] == 200


async def test_batch_limits_and_openapi(client: Client) -> None:
    too_many = [event(f"e-{i}", {}) for i in range(1001)]
    status, problem = await client.post("/v1/events/batch", {"events": too_many})
    assert status == 400 and problem["code"] == "batch_too_large"
    for bad in ({"events": []}, {"events": "x"}, {"nope": []}, []):
        status, problem = await client.post("/v1/events/batch", bad)
        assert status == 400, bad
    status, doc = await client.get("/openapi.json")
    op = doc["paths"]["/v1/events/batch"]["post"]
    ref = op["requestBody"]["content"]["application/json"]["schema"]["$ref"]
    schema = doc["components"]["schemas"][ref.rsplit("/", 1)[1]]
    assert schema["properties"]["events"]["maxItems"] == 1000


async def test_one_event_the_database_refuses_never_blocks_its_group(
    engine: Engine, client: Client, subscriber: Subscriber
) -> None:
    tenant = client.tenant  # type: ignore[attr-defined]
    await active_subscription(engine, tenant, subscriber.url("ok"))
    # a poison the validation lets through but the database refuses (a data error)
    await engine.pool.execute(
        """
        CREATE FUNCTION test_poison() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            IF NEW.event_id LIKE 'poison%' THEN
                RAISE EXCEPTION 'refused' USING ERRCODE = '22023';
            END IF;
            RETURN NEW;
        END $$;
        CREATE TRIGGER test_poison BEFORE INSERT ON event_bodies
            FOR EACH ROW EXECUTE FUNCTION test_poison();
        """
    )
    posts = [event(f"fine-{i}", {"i": i}) for i in range(30)] + [event("poison-1", {})]
    answers = await asyncio.gather(*(client.post("/v1/events", p) for p in posts))
    assert [s for s, _ in answers[:30]] == [202] * 30
    assert answers[30][0] == 400 and answers[30][1]["code"] == "invalid_data"
    docs = [event("poison-2", {}), event("fine-b", {"b": 1})]
    status, body = await client.post("/v1/events/batch", {"events": docs})
    assert status == 200
    assert [r["status"] for r in body["results"]] == [400, 202]
    assert body["results"][0]["problem"]["code"] == "invalid_data"
    n = await engine.pool.fetchval("SELECT count(*) FROM deliveries")
    assert n == 31


async def test_large_and_small_groups_write_the_same_ledger_rows(
    engine: Engine, client: Client, subscriber: Subscriber
) -> None:
    """300 planned deliveries in one group go in through COPY; one through the array path."""
    tenant = client.tenant  # type: ignore[attr-defined]
    await active_subscription(engine, tenant, subscriber.url("ok"))
    docs = [event(f"big-{i}", {"i": i}) for i in range(300)]
    status, body = await client.post("/v1/events/batch", {"events": docs})
    assert status == 200 and {r["status"] for r in body["results"]} == {202}
    status, small = await client.post("/v1/events", event("small-1", {"i": 1}))
    assert status == 202
    rows = await engine.pool.fetch("SELECT * FROM deliveries ORDER BY event_id")
    assert len(rows) == 301
    ignore = {"delivery_id", "event_id", "payload_digest", "next_attempt_at"}
    ignore |= {"created_at", "updated_at"}
    shapes = {tuple((k, v) for k, v in dict(r).items() if k not in ignore) for r in rows}
    assert len(shapes) == 1  # every row the same but for its identity and times
    for r in rows:
        assert r["next_attempt_at"] == r["created_at"] == r["updated_at"]
        assert r["state"] == "PLANNED" and r["stream_version"] == 1


def test_the_ingest_ledger_inserts_name_every_ledger_column() -> None:
    """The ledger grows columns (ordering did); ingest's bulk inserts must grow with it."""
    import re

    from hookproof.engine.recording.inline import SQL
    from hookproof.projections.deliveries import DeliveryLedger

    for name in ("deliveries_insert_planned", "deliveries_insert_planned_arrays"):
        sql = SQL[name]
        listed = re.search(r"INSERT INTO deliveries \(([^)]*)\)", sql)
        assert listed is not None
        assert tuple(c.strip() for c in listed.group(1).split(",")) == DeliveryLedger.columns
        updated = re.findall(r"^\s+(\w+) = EXCLUDED\.\1", sql, flags=re.M)
        assert tuple(updated) == DeliveryLedger.columns[1:], name


def unpinned(event_id: str, payload: Any) -> dict[str, Any]:
    """An event whose sender sets no ``occurredAt`` (the SDKs' default)."""
    doc = event(event_id, payload)
    del doc["occurredAt"]
    return doc


async def test_an_unpinned_occurred_at_is_the_engines_and_its_reposts_are_the_same_event(
    engine: Engine, client: Client, subscriber: Subscriber
) -> None:
    """Issue 49: without ``occurredAt`` the engine records when it accepted the event; the
    same id and payload posted again without one (concurrently, in later groups, in a batch)
    is the same event, whatever the time; a time the sender sets is compared as sent."""
    tenant = client.tenant  # type: ignore[attr-defined]
    await active_subscription(engine, tenant, subscriber.url("ok"))
    answers = await asyncio.gather(
        *(client.post("/v1/events", unpinned("u-1", {"a": 1})) for _ in range(6))
    )
    assert [s for s, _ in answers] == [202] * 6
    assert sum(b["created"] for _, b in answers) == 1
    assert len({b["payloadDigest"] for _, b in answers}) == 1
    assert len({json.dumps(b["deliveries"]) for _, b in answers}) == 1
    status, stored = await client.get("/v1/events/u-1")
    assert status == 200 and stored["payloadDigest"] == answers[0][1]["payloadDigest"]

    while await dispatch_all(engine):
        pass
    [body] = [json.loads(r.body) for r in subscriber.deliveries("ok")]
    at = body["occurredAt"]
    assert datetime.fromisoformat(at).tzinfo is not None  # the engine's time, with its zone

    # in a batch: unpinned again, pinned to the recorded time, pinned to another, unpinned
    # with another payload; a pinned event reposted unpinned is the same event too
    await client.post("/v1/events", event("p-1", {"b": 1}))
    docs = [
        unpinned("u-1", {"a": 1}),
        event("u-1", {"a": 1}, occurredAt=at),
        event("u-1", {"a": 1}, occurredAt="2020-01-01T00:00:00Z"),
        unpinned("u-1", {"a": 2}),
        unpinned("p-1", {"b": 1}),
    ]
    status, batch = await client.post("/v1/events/batch", {"events": docs})
    assert status == 200
    r = batch["results"]
    assert [x["status"] for x in r] == [202, 202, 409, 409, 202]
    assert r[0]["created"] is False and r[1]["created"] is False and r[4]["created"] is False
    assert r[0]["payloadDigest"] == r[1]["payloadDigest"] == stored["payloadDigest"]
    assert {x["problem"]["code"] for x in r[2:4]} == {"event_payload_conflict"}
    kinds = Counter(e.type for e in await engine.store.read_stream(event_stream_id(tenant, "u-1")))
    assert kinds == Counter({"event.ingested": 1, "event.payload_conflict": 2})
    assert await engine.pool.fetchval("SELECT count(*) FROM deliveries") == 2
