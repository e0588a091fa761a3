"""Issue 46, item 5: one subscription's stored numbers never stop the claim of the others.

A ``rateLimit.perSecond`` of ``5e-324`` was accepted once, and from then on every claim, every
tenant's, failed on float8 underflow in the bucket's arithmetic until the row was fixed by
hand. The API refuses it now (``tests/challenge/test_extreme_numbers.py``); here the rows
are written as a database from before the fix (or a hand) holds them: the bucket's
arithmetic clamps them (migration 1046, ``dispatch_claim_rate.sql``), and a row the
dispatcher cannot read at all is left out of claims with its subscription (logged
``claim_row_unreadable``, and the subscription suspended with that reason: parked by an
event, not claimed and failed again) while every other subscription's deliveries go on."""

from __future__ import annotations

import json
from typing import Any

import pytest
from structlog.testing import capture_logs

from hookproof.engine.runtime.daemon import Engine

from .conftest import Subscriber, active_subscription, dispatch_all, publish


async def _set_config(engine: Engine, sid: str, path: str, value: str) -> None:
    """Write the JSON text ``value`` (any number literal) at ``path`` (``a.b``) of the
    subscription's stored config, kept compact as the engine writes it."""
    text = await engine.pool.fetchval(
        "SELECT config FROM subscriptions WHERE subscription_id = $1", sid
    )
    doc = json.loads(text)
    *parents, last = path.split(".")
    node = doc
    for key in parents:
        node = node[key]
    node[last] = "__value__"
    text = json.dumps(doc, separators=(",", ":")).replace('"__value__"', value)
    await engine.pool.execute(
        "UPDATE subscriptions SET config = $2 WHERE subscription_id = $1", sid, text
    )


@pytest.mark.parametrize(
    ("per_second", "burst", "tokens"),
    [
        ("5e-324", "5", "0"),  # the review's value: underflow in perSecond * elapsed
        ("1e-320", "1e308", "NaN"),
        ("1e400", "0", "Infinity"),  # not even a float8
        ("-1", "-5", "-Infinity"),
    ],
)
async def test_a_bucket_with_any_stored_number_stops_no_claim(
    engine: Engine, subscriber: Subscriber, per_second: str, burst: str, tokens: str
) -> None:
    a = (await engine.tenants.create("hostile")).tenant_id
    b = (await engine.tenants.create("victim")).tenant_id
    limited = await active_subscription(
        engine,
        a,
        subscriber.url("ok/limited"),
        topics=["a"],
        rateLimit={"perSecond": 1, "burst": 1},
    )
    victim = await active_subscription(engine, b, subscriber.url("ok/victim"), topics=["b"])
    await publish(engine, a, "evt-a-0", topic="a")
    assert await dispatch_all(engine) == 1  # the bucket's row exists now
    for i in range(1, 4):  # published first: ingest reads the config too (its own tenant's)
        await publish(engine, a, f"evt-a-{i}", topic="a")
    await _set_config(engine, limited, "rate_limit.burst", burst)
    await _set_config(engine, limited, "rate_limit.per_second", per_second)
    await engine.pool.execute(
        "UPDATE subscription_rate_buckets SET tokens = $2::text::float8 WHERE subscription_id = $1",
        limited,
        tokens,
    )
    engine.services.dispatcher.gates.held.clear()  # as a restarted daemon: nothing held
    await publish(engine, b, "evt-b-0", topic="b")
    await dispatch_all(engine)
    assert len(subscriber.deliveries("ok/victim")) == 1
    # the hostile bucket, clamped, still grants whole tokens within the API's bounds
    row = await engine.pool.fetchrow(
        "SELECT tokens FROM subscription_rate_buckets WHERE subscription_id = $1", limited
    )
    assert row is not None and 0 <= row["tokens"] <= 100_000
    assert victim


async def test_an_unreadable_row_parks_its_subscription_only(
    engine: Engine, subscriber: Subscriber
) -> None:
    a = (await engine.tenants.create("hostile")).tenant_id
    b = (await engine.tenants.create("victim")).tenant_id
    broken = await active_subscription(engine, a, subscriber.url("ok/broken"), topics=["a"])
    await active_subscription(engine, b, subscriber.url("ok/victim"), topics=["b"])
    await publish(engine, a, "evt-a", topic="a")
    await publish(engine, b, "evt-b", topic="b")
    await _set_config(engine, broken, "retry_policy", '{"initial_delay_s": "soon"}')
    with capture_logs() as logs:
        await dispatch_all(engine)
    assert len(subscriber.deliveries("ok/victim")) == 1
    assert subscriber.deliveries("ok/broken") == []
    parked: list[dict[str, Any]] = [e for e in logs if e["event"] == "claim_row_unreadable"]
    assert [e["subscription_id"] for e in parked] == [broken]
    assert parked[0]["reason"].startswith("unreadable_config")
    assert broken in engine.services.dispatcher.gates.held  # left out of the next claims
    # parked by an event (suspended, the reason recorded), not claimed and failed again later
    assert (
        await engine.pool.fetchval(
            "SELECT state FROM subscriptions WHERE subscription_id = $1", broken
        )
        == "SUSPENDED"
    )
    changes = await engine.pool.fetch(
        "SELECT convert_from(data, 'UTF8')::jsonb AS doc FROM events"
        " WHERE stream_id = $1 AND type = 'subscription.state_changed' ORDER BY stream_version",
        f"subscription-{broken}",
    )
    last = json.loads(changes[-1]["doc"])
    assert last["reason"] == "claim_row_unreadable", last
