"""The daemon's projector keeps the attempt statistics on their own, shorter interval
(``HOOKPROOF_STATS_INTERVAL_S``), while the stream catalogue keeps its minute-long batches."""

from __future__ import annotations

import asyncio
import contextlib
from datetime import UTC, datetime

from hookproof.config import Settings
from hookproof.engine.recording.projections_runner import ProjectorRole
from hookproof.engine.recording.registry import async_projections
from hookproof.engine.runtime.daemon import Engine
from hookproof.projections.attempt_stats import AttemptStats

from ..delivery.conftest import Subscriber, active_subscription, dispatch_all, publish
from ..live import wait_for
from ..support import log_settled


def test_the_interval_is_a_setting_within_bounds() -> None:
    def interval(value: str) -> float:
        return Settings.from_env({"HOOKPROOF_STATS_INTERVAL_S": value}).stats_interval_s

    assert Settings.from_env({}).stats_interval_s == 5.0
    assert interval("0.5") == 0.5
    assert interval("0") == 0.05 and interval("1e9") == 3600.0 and interval("nan") == 5.0


async def test_stats_pass_on_their_interval_and_the_catalogue_waits_for_its_own(
    engine: Engine, tenant: str, subscriber: Subscriber
) -> None:
    role = ProjectorRole(
        engine.store, async_projections(), interval_s=60.0, intervals={AttemptStats.name: 0.1}
    )
    run, settle = role.run, role.settle
    stop = asyncio.Event()
    worker = asyncio.create_task(run(stop))
    try:
        await asyncio.sleep(0.3)  # both made their first pass over an empty log
        sid = await active_subscription(engine, tenant, subscriber.url("ok-r"))
        await publish(engine, tenant, "evt-r")
        await dispatch_all(engine)
        await log_settled(engine.pool)

        async def counted() -> bool:
            view = await engine.services.reader.attempt_stats(tenant, sid, datetime.now(UTC))
            return any(b["counts"] for b in view["buckets"])

        await wait_for(counted, what="the attempt statistics' next pass", timeout=30)
        # the catalogue's batch is a minute away: nothing of the new streams yet
        assert await _catalogued_deliveries(engine) == 0
    finally:
        stop.set()
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.wait_for(worker, 10)
    await settle()  # a stop brings both to the head
    assert await _catalogued_deliveries(engine) == 1


async def _catalogued_deliveries(engine: Engine) -> int:
    return int(
        await engine.pool.fetchval(
            "SELECT count(*) FROM proj_stream_catalogue WHERE category = 'delivery'"
        )
    )
