"""Issue 18, item 1: recovery by time range (DESIGN section 11 "Recovery by time range").

Over real HTTPS and a real Postgres: exactly the dead letters inside the range come back,
keep their ids, get the next attempt number and reach ENDPOINT_ACCEPTED once the subscriber
is healthy; a second identical call recovers nothing new; another tenant cannot; the call is
one ``deliveries.recovered`` event that ``hookproof audit subscription`` shows; the CLI does
the same; and a recovery racing a generation change never sends an old generation to the
new endpoint.
"""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import aiohttp
import msgspec
import pytest
from aiohttp.test_utils import TestServer

from hookproof.engine.audit.timeline import subscription_timeline
from hookproof.engine.runtime.daemon import Engine
from hookproof.schemas.api import SubscriptionPatch

from ..daemon import run_cli
from .conftest import Subscriber, active_subscription, delivery, dispatch_all, publish

DEAD = {"retryPolicy": {"onGone": "dead_letter", "maxAttempts": 3}}


async def _dead(engine: Engine, tenant: str, sub: Subscriber, ids: list[str]) -> list[str]:
    out = []
    for event_id in ids:
        [d] = (await publish(engine, tenant, event_id)).deliveries
        out.append(d["deliveryId"])
    await dispatch_all(engine)
    for did in out:
        assert (await delivery(engine, tenant, did))["state"] == "DEAD_LETTER"
    await asyncio.sleep(0.02)  # the next batch dead-letters strictly later
    return out


async def _call(
    http: aiohttp.ClientSession, base: str, path: str, token: str, body: dict[str, Any]
) -> tuple[int, Any]:
    async with http.post(base + path, json=body, headers={"Authorization": f"Bearer {token}"}) as r:
        return r.status, await r.json(content_type=None)


async def test_recover_a_range(
    engine: Engine, tenant: str, subscriber: Subscriber, db_url: str, tmp_path: Path
) -> None:
    token = (await engine.tenants.issue_token(tenant)).token
    other = await engine.tenants.create("globex")
    subscriber.modes["flaky"] = "gone"
    sid = await active_subscription(engine, tenant, subscriber.url("flaky"), **DEAD)
    before = await _dead(engine, tenant, subscriber, ["e-0", "e-1"])
    since = datetime.now(UTC).isoformat()
    inside = await _dead(engine, tenant, subscriber, ["e-2", "e-3"])
    until = datetime.now(UTC).isoformat()
    after = await _dead(engine, tenant, subscriber, ["e-4"])
    subscriber.modes["flaky"] = "ok"  # the subscriber is healthy again
    server = TestServer(engine.app(), host="127.0.0.1")
    await server.start_server()
    base = str(server.make_url("")).rstrip("/")
    path = f"/v1/subscriptions/{sid}/recover"
    try:
        async with aiohttp.ClientSession() as http:
            # another tenant cannot, and learns nothing
            status, doc = await _call(http, base, path, other.token, {"since": since})
            assert status == 404 and doc["code"] == "subscription_not_found"
            status, doc = await _call(http, base, path, token, {"since": since, "until": until})
            assert status == 202, doc
            assert doc["recovered"] == 2 and sorted(doc["deliveryIds"]) == sorted(inside)
            assert "nextSince" not in doc
            # repeated: nothing new
            again = await _call(http, base, path, token, {"since": since, "until": until})
            assert again == (202, {"recovered": 0, "deliveryIds": []})
            status, doc = await _call(http, base, path, token, {"since": "yesterday"})
            assert status == 400 and doc["field"] == "since"
            status, doc = await _call(
                http, base, path, token, {"since": since, "states": ["ENDPOINT_ACCEPTED"]}
            )
            assert status == 400 and doc["code"] == "state_not_recoverable"
    finally:
        await server.close()
    await dispatch_all(engine)
    for did in inside:
        view = await delivery(engine, tenant, did)
        assert view["state"] == "ENDPOINT_ACCEPTED", view
        assert [a["attempt"] for a in view["attempts"]] == [1, 2]  # the next attempt number
    for did in before + after:
        assert (await delivery(engine, tenant, did))["state"] == "DEAD_LETTER"
    sent = [r.headers["Webhook-Delivery-Id"] for r in subscriber.deliveries("flaky")]
    assert sorted(sent[-2:]) == sorted(inside)  # same identity on the wire
    # one deliveries.recovered for the call, shown by the subscription's audit timeline
    timeline = await subscription_timeline(engine.store, sid)
    recovered = [e for e in timeline.entries if e.type == "deliveries.recovered"]
    assert len(recovered) == 1, [e.type for e in timeline.entries]
    assert recovered[0].outcome.startswith("recovered 2 DEAD_LETTER delivery(ies) since ")
    assert recovered[0].actor == f"tenant:{tenant}"
    [rec] = [
        r.decode()
        for r in await engine.store.read_stream(f"subscription-{sid}")
        if r.type == "deliveries.recovered"
    ]
    assert (rec.count, rec.by, rec.states) == (2, f"tenant:{tenant}", ["DEAD_LETTER"])
    assert rec.since == datetime.fromisoformat(since).isoformat()
    # the operator's CLI: everything dead since the start, one at a time with nextSince
    env = {"HOOKPROOF_DATABASE_URL": db_url, "HOOKPROOF_DATA_DIR": str(tmp_path)}
    args = ["deliveries", "recover", "--subscription", sid, "--since", "2020-01-01T00:00:00Z"]
    out = await asyncio.to_thread(run_cli, [*args, "--limit", "1", "--json"], env)
    assert out.returncode == 0, out.stderr
    first = json.loads(out.stdout.strip().splitlines()[-1])
    # oldest first: one of the first batch's dead letters (one outcome append can dead-letter
    # both at the same recorded time; the tie is broken by delivery id)
    assert first["recovered"] == 1 and first["nextSince"]
    assert first["deliveryIds"][0] in before, (first, before)
    out = await asyncio.to_thread(run_cli, [*args, "--json"], env)
    assert out.returncode == 0, out.stderr
    rest = json.loads(out.stdout.strip().splitlines()[-1])
    left = sorted(set(before + after) - set(first["deliveryIds"]))
    assert sorted(rest["deliveryIds"]) == left, (out.stdout, first)
    await dispatch_all(engine)
    for did in before + after:
        assert (await delivery(engine, tenant, did))["state"] == "ENDPOINT_ACCEPTED"
    # a subscription that is not ACTIVE is refused with a code
    await engine.subscriptions.transition(tenant, sid, "suspend", actor="test")
    with pytest.raises(Exception) as err:
        await engine.services.recovery.recover(sid, tenant_id=tenant, since=since, actor="test")
    assert getattr(err.value, "code", None) == "subscription_not_active"


@pytest.mark.parametrize("policy", ["drain", "quarantine"])
async def test_recovery_racing_a_generation_change(
    engine: Engine, tenant: str, subscriber: Subscriber, policy: str
) -> None:
    subscriber.modes["old-ep"] = "gone"
    sid = await active_subscription(
        engine, tenant, subscriber.url("old-ep"), oldGenerationPolicy=policy, **DEAD
    )
    dead = await _dead(engine, tenant, subscriber, ["g-0", "g-1", "g-2"])
    subscriber.modes["old-ep"] = "ok"
    since = "2020-01-01T00:00:00Z"
    recovery = engine.services.recovery
    state = await engine.subscriptions.load(sid)
    assert state is not None
    patch = msgspec.convert({"endpoint": subscriber.url("ok-new")}, SubscriptionPatch)

    async def recover() -> Any:
        try:
            return await recovery.recover(sid, tenant_id=tenant, since=since, actor="test")
        except Exception as exc:  # the generation moved first: refused, nothing recovered
            assert getattr(exc, "code", None) == "subscription_not_active"
            return None

    results = await asyncio.gather(
        recover(),
        engine.subscriptions.update(tenant, sid, state.generation, patch, actor="test"),
    )
    assert (await engine.services.challenger.run(sid, actor="test"))["passed"]
    again = await recover()  # now ACTIVE at generation 2: whatever is still dead comes back
    recovered = (results[0].recovered if results[0] else 0) + (again.recovered if again else 0)
    assert recovered == 3
    for _ in range(3):
        await dispatch_all(engine)
    to_new = {r.headers.get("Webhook-Delivery-Id") for r in subscriber.deliveries("ok-new")}
    assert not to_new & set(dead), "an old generation's delivery reached the new endpoint"
    for did in dead:
        view = await delivery(engine, tenant, did)
        assert view["generation"] == 1
        expected = "ENDPOINT_ACCEPTED" if policy == "drain" else "QUARANTINED"
        assert view["state"] == expected, view
        for attempt in view["attempts"]:
            assert attempt["endpoint"] == subscriber.url("old-ep")
