"""A hostile tenant's hung destinations never take another tenant's place in a claim (issue
46), for every kind of the hostile kit, asserted on what the claims took (not on time).

One tenant's 34 destinations on a broker that takes the connection and never answers, 340
deliveries due before another tenant's one HTTPS delivery (a real trustme receiver):

- the first claim takes the victim's row although the hostile backlog is due first and fills
  more than a claim (``fair_pick``: in turns by tenant);
- while the hostile attempts are parked in flight, the next claim takes the victim's new row
  and none of the hostile tenant's (their endpoints are full);
- as the hung attempts end one by one (past the dispatcher's attempt deadline) no endpoint is
  refilled with another hung attempt: each hostile destination was admitted at most its room
  (8) of its 10 deliveries, and its breaker opens;
- the victim's deliveries are answered by its own endpoint only, each attempt's recorded
  endpoint its own.
"""

from __future__ import annotations

import asyncio
import json
from collections import Counter
from pathlib import Path

import asyncpg
import msgspec
import pytest
import trustme

from hookproof.config import Settings
from hookproof.engine.delivery.job import Job
from hookproof.schemas.api import EventIn, SubscriptionCreate
from tests.delivery.conftest import Subscriber

from ..engine_support import started
from .kinds import KINDS, HostileKind
from .test_hostile_victim import HOSTILE, event, hostile_subscriptions, receiver

__all__ = ["receiver"]  # the fixture, shared with test_hostile_victim

ADMITTED_PER_SUBSCRIPTION = (
    "SELECT d.subscription_id, count(*) AS n FROM events AS e"
    " JOIN deliveries AS d ON e.stream_id = 'delivery-' || d.delivery_id"
    " WHERE e.type = 'delivery.attempt_admitted' AND d.tenant_id = $1 GROUP BY 1"
)


@pytest.mark.parametrize("kind", KINDS, ids=[k.name for k in KINDS])
async def test_hung_destinations_never_take_the_victims_place_in_a_claim(
    pool: asyncpg.Pool,
    tmp_path: Path,
    receiver: tuple[Subscriber, trustme.CA],
    kind: HostileKind,
) -> None:
    sub, ca = receiver
    fake = kind.make()
    await fake.start()
    ca_file = tmp_path / "ca.pem"
    ca.cert_pem.write_to_path(str(ca_file))
    settings = Settings(
        data_dir=tmp_path,
        egress_allow=(("127.0.0.1", sub.port), ("127.0.0.1", fake.port)),
        egress_ca_file=str(ca_file),
        dns_servers=(("127.0.0.1", 9),),
        connect_timeout_s=1.0,
        request_timeout_s=3.0,
    )
    stop = asyncio.Event()
    try:
        async with started(pool, settings) as (engine, api):
            hostile = await engine.tenants.create("hostile")
            victim = (await engine.tenants.create("victim")).tenant_id
            hostile_sids = await hostile_subscriptions(engine, api, hostile.token, kind, fake)
            state, _ = await engine.subscriptions.register(
                victim,
                msgspec.convert(
                    {
                        "endpoint": sub.url("ok-victim"),
                        "topics": ["order.created"],
                        "eventVersions": [1],
                        "region": "eu",
                        "signatureAlgorithm": "ed25519",
                        "owner": "victim",
                    },
                    SubscriptionCreate,
                ),
                actor="test",
            )
            outcome = await engine.services.challenger.run(state.subscription_id, actor="test")
            assert outcome["passed"], outcome
            fake.mode = kind.hung
            fake.drop_all()
            d = engine.services.dispatcher
            d.attempt_deadline_s = 3.0  # the hung attempts end here, before the broker's own
            ingest = engine.services.ingest

            def tenants(jobs: list[Job]) -> Counter[str]:
                return Counter("victim" if j.row.tenant_id == victim else "hostile" for j in jobs)

            async def claim() -> list[Job]:
                jobs = await d.claim()
                for job in jobs:
                    d.inflight.start(d.send(job))
                return jobs

            storm = [
                msgspec.convert(event("order.created", n, "storm"), EventIn) for n in range(10)
            ]
            await ingest.ingest_batch(hostile.tenant_id, storm, actor="test")
            ev = msgspec.convert(event("order.created", 0, "victim"), EventIn)
            await ingest.ingest(victim, ev, actor="test")
            # 340 hostile rows due first, more than a claim (100): the victim's is taken anyway
            first = await claim()
            assert len(first) == d.batch and tenants(first)["victim"] == 1, tenants(first)
            taken = len(first) - 1
            for _ in range(20):  # the hostile endpoints fill up (8 each)
                more = await claim()
                assert tenants(more)["victim"] == 0
                taken += len(more)
                if taken >= HOSTILE * 8:
                    break
                if not more:  # max_inflight started and not parked yet: room once parked
                    await asyncio.sleep(d.inflight.park_after_s)
            assert taken == HOSTILE * 8
            await asyncio.sleep(d.inflight.park_after_s + 0.1)
            assert d.inflight.parked  # hung, parked (each until its deadline)
            ev = msgspec.convert(event("order.created", 1, "victim"), EventIn)
            await ingest.ingest(victim, ev, actor="test")
            after = await claim()
            assert tenants(after) == {"victim": 1}, tenants(after)
            # the loop runs while the hung attempts end one by one: none is replaced
            running = asyncio.create_task(d.run(stop))
            try:
                async with asyncio.timeout(30):
                    while True:
                        if sum(v == "open" for v in d.gates.states().values()) >= HOSTILE:
                            break
                        await asyncio.sleep(0.1)
            finally:
                stop.set()
                await running
            admitted = {
                r["subscription_id"]: r["n"]
                for r in await engine.pool.fetch(ADMITTED_PER_SUBSCRIPTION, hostile.tenant_id)
            }
            assert set(admitted) == set(hostile_sids)
            # the victim's evidence is its own: its endpoint, its events, nothing else
            endpoints = await engine.pool.fetch(
                "SELECT DISTINCT convert_from(e.data, 'UTF8')::jsonb->>'endpoint' AS endpoint"
                " FROM events AS e JOIN deliveries AS d"
                " ON e.stream_id = 'delivery-' || d.delivery_id"
                " WHERE e.type = 'delivery.attempt_admitted' AND d.tenant_id = $1",
                victim,
            )
            assert [r["endpoint"] for r in endpoints] == [sub.url("ok-victim")]
            got = [json.loads(r.body).get("eventId") for r in sub.deliveries()]
            assert sorted(e for e in got if e) == ["evt-victim-0", "evt-victim-1"]
    finally:
        await fake.close()
