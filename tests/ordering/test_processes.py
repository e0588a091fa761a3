"""Two ``hookproof serve`` processes share one ordered subscription's queue: each aggregate's
versions still reach the subscriber one at a time, in order, each once."""

from __future__ import annotations

import asyncio
import json
import random
from pathlib import Path
from typing import Any

import aiohttp
import trustme

from ..delivery.conftest import Subscriber
from ..live import Client, engine_env, new_tenant, start, stop, wait_for

AGGREGATES = ("order-a", "order-b", "order-c")
VERSIONS = 12


async def test_two_dispatcher_processes_keep_the_order(
    db_url: str, pool: Any, tmp_path: Path, subscriber: Subscriber, ca: trustme.CA
) -> None:
    env = engine_env(db_url, tmp_path, subscriber.port, ca)
    a = await start(env, tmp_path)
    b = await start(env, tmp_path)
    try:
        _, token = await new_tenant(env, "acme")
        async with aiohttp.ClientSession() as http:
            api_a = Client(http, a.base_url, token)
            api_b = Client(http, b.base_url, token)
            sid = await api_a.subscribe(subscriber.url("ok-ordered"), ["t"], ordering="aggregate")
            work = [(agg, v) for agg in AGGREGATES for v in range(1, VERSIONS + 1)]
            random.Random(7).shuffle(work)  # every aggregate's versions arrive out of order

            async def publish(i: int, agg: str, v: int) -> None:
                api = api_a if i % 2 else api_b
                await api.publish(f"{agg}-{v}", aggregateId=agg, aggregateVersion=v)

            await asyncio.gather(*(publish(i, agg, v) for i, (agg, v) in enumerate(work)))

            async def all_accepted() -> bool:
                n = await pool.fetchval(
                    "SELECT count(*) FROM deliveries WHERE subscription_id = $1 "
                    "AND state = 'ENDPOINT_ACCEPTED'",
                    sid,
                )
                return bool(n == len(work))

            await wait_for(all_accepted, what="every version accepted", timeout=120)
    finally:
        await stop(a)
        await stop(b)
    seen: dict[str, list[int]] = {agg: [] for agg in AGGREGATES}
    for r in subscriber.deliveries("ok-ordered"):
        doc = json.loads(r.body)
        seen[doc["aggregateId"]].append(doc["aggregateVersion"])
    for agg in AGGREGATES:
        assert seen[agg] == list(range(1, VERSIONS + 1)), (agg, seen[agg])
    dispatchers = await pool.fetch(
        "SELECT DISTINCT convert_from(data, 'UTF8')::jsonb->>'dispatcher' AS d FROM events "
        "WHERE type = 'delivery.attempt_admitted'"
    )
    assert len(dispatchers) == 2, "both processes admitted attempts"
