"""Issue 54 item 2: bulk replay as an audited job.

Over real HTTPS dead letters and a real Postgres: a dry run's count is the real run's; the
run records ``replay.started`` (digest, count, who) and ``replay.finished``, and every
replayed delivery's ``delivery.replay_requested`` names the replay; a replay cancelled
half-way leaves the rest untouched and says how many; the rate is respected (by the recorded
times); a portal session replays and sees its own consumer's only.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

import aiohttp
import pytest

from hookproof.engine.audit.timeline import delivery_timeline
from hookproof.engine.runtime.daemon import Engine
from hookproof.engine.search import query_digest
from hookproof.events.replay_events import replay_stream_id

from ..consumers.conftest import Tenant, event, new_tenant
from ..delivery.conftest import Subscriber, dispatch_all
from ..live import Client


@dataclass
class World:
    acme: Tenant
    portal: Client  # cust-a's session
    dead_a: list[str]  # cust-a's dead letters, oldest first
    dead_b: list[str]


async def _dead(engine: Engine, acme: Tenant, consumer: str, n: int, batch: str) -> list[str]:
    out = []
    for i in range(n):
        body = event(f"{batch}-{consumer}-{i}", consumer, payload={"batch": batch, "i": i})
        status, answer = await acme.call("POST", "/v1/events", body)
        assert status == 202, answer
        out += [d["deliveryId"] for d in answer["deliveries"]]
    while await dispatch_all(engine):
        pass
    return out


@pytest.fixture
async def world(
    engine: Engine, base: str, http: aiohttp.ClientSession, subscriber: Subscriber
) -> World:
    acme = await new_tenant(engine, http, base, "acme")
    await acme.consumer("cust-a")
    await acme.consumer("cust-b")
    await acme.subscribe(subscriber.url("fail500-a"), "cust-a")
    await acme.subscribe(subscriber.url("fail500-b"), "cust-b")
    dead_a = await _dead(engine, acme, "cust-a", 6, "one")
    dead_b = await _dead(engine, acme, "cust-b", 2, "one")
    status, session = await acme.call(
        "POST", "/v1/consumers/cust-a/portal-sessions", {"capabilities": ["read", "replay"]}
    )
    assert status == 201, session
    return World(acme, Client(http, base, session["token"]), dead_a, dead_b)


async def _state(engine: Engine, tenant: str, did: str) -> str:
    return str((await engine.services.reader.delivery(tenant, did))["state"])


async def _replay_events(engine: Engine, did: str) -> list[Any]:
    recorded = await engine.store.read_stream(f"delivery-{did}")
    return [r for r in recorded if r.type == "delivery.replay_requested"]


SEARCH = {"filters": [{"match": {"data": {"batch": "one"}}}], "state": "DEAD_LETTER"}


async def test_dry_run_count_is_the_real_runs(world: World, engine: Engine) -> None:
    tenant = world.acme.tenant_id
    status, dry = await world.acme.call("POST", "/v1/replays", {**SEARCH, "dryRun": True})
    assert status == 200, dry
    everything = set(world.dead_a + world.dead_b)
    assert dry["count"] == len(everything) and set(dry["sample"]) <= everything
    assert dry["queryDigest"] == query_digest(SEARCH)
    for did in everything:  # a dry run changes nothing
        assert await _state(engine, tenant, did) == "DEAD_LETTER"
    status, job = await world.acme.call("POST", "/v1/replays", {**SEARCH, "ratePerSecond": 100})
    assert status == 202, job
    assert job["total"] == dry["count"] and job["queryDigest"] == dry["queryDigest"]
    assert job["state"] == "RUNNING" and job["requestedBy"] == f"tenant:{tenant}"
    await engine.drain()
    status, done = await world.acme.call("GET", f"/v1/replays/{job['id']}")
    assert status == 200 and done["state"] == "DONE", done
    assert done["progress"] == {
        "replayed": len(everything),
        "failed": 0,
        "cancelled": 0,
        "pending": 0,
    }
    [one] = sorted(everything)[:1]
    timeline = await delivery_timeline(engine.store, one)
    assert any(e.outcome.endswith(f"(bulk replay {job['id']})") for e in timeline.entries)
    for did in everything:  # each replayed once, naming the replay
        [replayed] = await _replay_events(engine, did)
        data = replayed.decode()
        assert data.replay_id == job["id"] and data.by == f"tenant:{tenant}"
        assert await _state(engine, tenant, did) != "DEAD_LETTER"
    started, finished = [
        r.decode() for r in await engine.store.read_stream(replay_stream_id(job["id"]))
    ]
    assert started.type == "replay.started" and finished.type == "replay.finished"
    assert (started.count, started.by, started.query_digest) == (
        len(everything),
        f"tenant:{tenant}",
        dry["queryDigest"],
    )
    assert finished.replayed == len(everything)
    # the same search again: nothing is dead any more
    status, again = await world.acme.call("POST", "/v1/replays", {**SEARCH, "dryRun": True})
    assert again["count"] == 0
    status, problem = await world.acme.call("POST", f"/v1/replays/{job['id']}/cancel")
    assert status == 409 and problem["code"] == "replay_not_running"


async def test_cancel_half_way_leaves_the_rest(world: World, engine: Engine) -> None:
    tenant = world.acme.tenant_id
    body = {**SEARCH, "consumerId": "cust-a", "ratePerSecond": 4}
    status, job = await world.acme.call("POST", "/v1/replays", body)
    assert status == 202 and job["total"] == len(world.dead_a), job
    view = job
    for _ in range(200):  # until two were replayed (the job runs beside the test)
        _, view = await world.acme.call("GET", f"/v1/replays/{job['id']}")
        if view["progress"]["replayed"] >= 2:
            break
        await asyncio.sleep(0.05)
    status, cancelled = await world.acme.call("POST", f"/v1/replays/{job['id']}/cancel")
    assert status == 200 and cancelled["state"] == "CANCELLED", cancelled
    await engine.drain()
    _, final = await world.acme.call("GET", f"/v1/replays/{job['id']}")
    progress = final["progress"]
    assert final["state"] == "CANCELLED" and progress["pending"] == 0
    assert progress["replayed"] >= 2 and progress["cancelled"] >= 1
    assert progress["replayed"] + progress["failed"] + progress["cancelled"] == len(world.dead_a)
    replayed = [d for d in world.dead_a if await _replay_events(engine, d)]
    untouched = [d for d in world.dead_a if d not in replayed]
    assert len(replayed) == progress["replayed"] and len(untouched) == progress["cancelled"]
    assert replayed == world.dead_a[: len(replayed)]  # oldest first
    for did in untouched:
        assert await _state(engine, tenant, did) == "DEAD_LETTER"
    for did in world.dead_b:  # another consumer's: never in the selection
        assert await _state(engine, tenant, did) == "DEAD_LETTER"
    recorded = [r.decode() for r in await engine.store.read_stream(replay_stream_id(job["id"]))]
    assert [e.type for e in recorded] == ["replay.started", "replay.cancelled"]
    assert recorded[1].cancelled == progress["cancelled"] and recorded[1].by == f"tenant:{tenant}"


async def test_rate_is_respected(world: World, engine: Engine) -> None:
    rate = 5.0
    status, job = await world.acme.call(
        "POST", "/v1/replays", {**SEARCH, "consumerId": "cust-a", "ratePerSecond": rate}
    )
    assert status == 202, job
    await engine.drain()
    [started] = await engine.store.read_stream(replay_stream_id(job["id"]), to_version=1)
    times = sorted([(await _replay_events(engine, did))[0].recorded_at for did in world.dead_a])
    assert len(times) == len(world.dead_a)
    for i, at in enumerate(times):  # the i-th never before i / rate after the start
        assert (at - started.recorded_at).total_seconds() >= i / rate - 0.01, (i, at)
    for i in range(len(times)):  # no second holds more than rate + 1 of them
        window = [t for t in times if 0 <= (t - times[i]).total_seconds() < 1.0]
        assert len(window) <= rate + 1


async def test_portal_replays_its_own_only(world: World, engine: Engine) -> None:
    tenant = world.acme.tenant_id
    status, dry = await world.portal.call("POST", "/v1/replays", {**SEARCH, "dryRun": True})
    assert status == 200 and dry["count"] == len(world.dead_a), dry
    assert set(dry["sample"]) <= set(world.dead_a)
    status, problem = await world.portal.call(
        "POST", "/v1/replays", {**SEARCH, "consumerId": "cust-b"}
    )
    assert status == 403 and problem["code"] == "portal_scope"
    status, job = await world.portal.call("POST", "/v1/replays", {**SEARCH, "ratePerSecond": 50})
    assert status == 202 and job["total"] == len(world.dead_a), job
    await engine.drain()
    _, seen = await world.portal.call("GET", f"/v1/replays/{job['id']}")
    assert seen["state"] == "DONE" and seen["requestedBy"].startswith("portal:ps_")
    for did in world.dead_b:
        assert await _state(engine, tenant, did) == "DEAD_LETTER"
        assert await _replay_events(engine, did) == []
    # the tenant's own replay is not the portal's to see; another tenant sees neither
    status, tenant_job = await world.acme.call("POST", "/v1/replays", {"consumerId": "cust-b"})
    assert status == 202, tenant_job
    await engine.drain()
    status, problem = await world.portal.call("GET", f"/v1/replays/{tenant_job['id']}")
    assert status == 404 and problem["code"] == "replay_not_found"
    status, _ = await world.portal.call("POST", f"/v1/replays/{tenant_job['id']}/cancel")
    assert status == 404
    other = await new_tenant(engine, world.acme.client.http, world.portal.base, "globex")
    status, _ = await other.call("GET", f"/v1/replays/{job['id']}")
    assert status == 404
    status, _ = await other.call("GET", "/v1/replays/rpl_nope")
    assert status in (400, 404)
