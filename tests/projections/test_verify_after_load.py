"""``projections rebuild --verify`` finds every projection equal to a rebuild from the log after
a load run through the real engine (ingest, claims, signed HTTPS sends, outcomes, retries and
dead letters), with the stream catalogue kept in batches: nothing projected it during the
load, and the command brings it up to the log before comparing."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from hookproof.engine.runtime.daemon import Engine

from ..daemon import run_cli
from ..delivery.conftest import Subscriber, active_subscription, dispatch_all, publish
from ..support import log_settled

FAST_DEAD = {"retryPolicy": {"initialDelayS": 0.05, "maxDelayS": 0.05, "maxAttempts": 2}}


async def test_verify_is_equal_after_a_load_run(
    engine: Engine, tenant: str, subscriber: Subscriber, db_url: str, tmp_path: Path
) -> None:
    topics = ["order.a", "order.b"]
    ok = [
        await active_subscription(engine, tenant, subscriber.url("ok-1"), topics=topics),
        await active_subscription(engine, tenant, subscriber.url("ok-2"), topics=["order.a"]),
    ]
    await active_subscription(
        engine, tenant, subscriber.url("fail500-3"), topics=["order.b"], **FAST_DEAD
    )
    for round_ in range(4):  # ingest and delivery interleaved, as under load
        await asyncio.gather(
            *(publish(engine, tenant, f"evt-{round_}-{i}", topic=topics[i % 2]) for i in range(15))
        )
        await dispatch_all(engine)
    for _ in range(300):  # the answering endpoints done (the failing one's retries wait)
        accepted = await engine.pool.fetchval(
            "SELECT count(*) FROM deliveries"
            " WHERE state = 'ENDPOINT_ACCEPTED' AND subscription_id = ANY($1::text[])",
            ok,
        )
        if accepted == 2 * 32 + 28:  # order.a (32 events) to both, order.b (28) to the first
            break
        await asyncio.sleep(0.05)
        await dispatch_all(engine)
    states = dict(await engine.pool.fetch("SELECT state, count(*) FROM deliveries GROUP BY state"))
    assert accepted == 92 and sum(states.values()) == 120, states
    assert set(states) & {"PLANNED", "RETRYABLE", "DEAD_LETTER"}, states
    await log_settled(engine.pool)
    assert await engine.pool.fetchval("SELECT count(*) FROM proj_stream_catalogue") == 0

    env = {"HOOKPROOF_DATABASE_URL": db_url, "HOOKPROOF_DATA_DIR": str(tmp_path)}
    out = run_cli(["projections", "rebuild", "--verify", "--json"], env, timeout=120)
    assert out.returncode == 0, out.stdout + out.stderr[-2000:]
    lines = {r["projection"]: r for r in map(json.loads, out.stdout.splitlines())}
    assert set(lines) == {
        "attempt_stats",
        "consumers",
        "deliveries",
        "event_types",
        "stream_catalogue",
        "subscriptions",
    }
    for name, line in lines.items():
        assert line["differences"] == [], name
    # the catalogue was caught up, not compared empty against an empty rebuild
    streams = await engine.pool.fetchval("SELECT count(DISTINCT stream_id) FROM events")
    assert lines["stream_catalogue"]["rows"] == streams
    assert await engine.pool.fetchval("SELECT count(*) FROM proj_stream_catalogue") == streams
    # the attempt statistics too: caught up and compared, one row per (subscription, hour,
    # outcome) with attempts
    assert lines["attempt_stats"]["caughtUp"] > 0
    buckets = await engine.pool.fetchval("SELECT count(*) FROM proj_attempt_stats")
    assert lines["attempt_stats"]["rows"] == buckets >= 3
