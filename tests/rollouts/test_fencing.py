"""The rollout rows are read FOR SHARE by the claiming transaction: a stage change waits for
the admissions decided under the stage it ends, and every later claim sees it."""

from __future__ import annotations

import asyncio

from hookproof.engine.runtime.daemon import Engine
from hookproof.events.sqlfiles import query


async def test_stage_change_waits_for_an_open_claim(engine: Engine) -> None:
    svc = engine.services.rollouts
    view = await svc.create(
        target_kind="signatureProfile",
        target="hookproof.sig.v1",
        subscriptions=None,
        internal=[],
        dual_window_s=60.0,
        actor="test",
    )
    async with engine.pool.acquire() as conn, conn.transaction():
        [held] = await svc.live(conn)  # as a claim does, FOR SHARE
        assert held.stage == "SHADOW"
        advance = asyncio.create_task(svc.advance(view.rollout_id, "INTERNAL", None, actor="t"))
        await asyncio.sleep(0.3)
        assert not advance.done()  # blocked behind the claim's lock
        assert (await conn.fetch(query("rollouts_live", "hookproof.engine")))[0]["version"] == 1
    after = await asyncio.wait_for(advance, 10)
    assert after.stage == "INTERNAL"
    async with engine.pool.acquire() as conn, conn.transaction():
        [seen] = await svc.live(conn)
        assert (seen.stage, seen.version) == ("INTERNAL", 2)
