"""Rotation and compromise end to end: keys, challenges with the next key, suspensions, signing."""

from __future__ import annotations

import base64

import msgspec

from hookproof.engine.runtime.daemon import Engine
from hookproof.schemas.api import SubscriptionCreate

from .conftest import Subscriber, active_subscription, delivery, dispatch_all, publish


async def test_engine_key_rotation_round(
    engine: Engine, tenant: str, subscriber: Subscriber
) -> None:
    ring = engine.services.keyring
    old = await ring.active()
    a = await active_subscription(engine, tenant, subscriber.url("ok-a"))
    b = await active_subscription(engine, tenant, subscriber.url("ok-b"))
    c = await active_subscription(engine, tenant, subscriber.url("ok-c"))
    subscriber.modes["ok-c"] = "refuse-challenges"
    report = await engine.services.rotation.rotate_engine_key(actor="test")
    assert sorted(report["proved"]) == sorted([a, b]) and report["suspended"] == [c]
    new = await ring.active()
    assert new.key_id == report["keyId"] != old.key_id
    assert str((await ring.get(old.key_id)).state) == "VERIFY_ONLY"
    assert (await ring.get(old.key_id)).verify_only_until is not None
    states = {s: (await engine.subscriptions.load(s)).state for s in (a, b, c)}  # type: ignore[union-attr]
    assert states == {a: "ACTIVE", b: "ACTIVE", c: "SUSPENDED"}
    for s in (a, b):
        hist = [e.type for e in await engine.store.read_stream(f"subscription-{s}")]
        assert hist[-4:] == [
            "subscription.state_changed",  # start_rotation
            "subscription.challenge_issued",
            "subscription.challenge_passed",
            "subscription.state_changed",  # activate
        ]
    [d] = [
        x for x in (await publish(engine, tenant, "evt-rot")).deliveries if x["subscriptionId"] == a
    ]
    await dispatch_all(engine)
    view = await delivery(engine, tenant, d["deliveryId"])
    assert view["attempts"][0]["keyId"] == new.key_id
    assert subscriber.deliveries("ok-c") == []


async def test_compromise_suspends_and_nothing_is_signed_with_the_revoked_key(
    engine: Engine, tenant: str, subscriber: Subscriber
) -> None:
    ring = engine.services.keyring
    sid = await active_subscription(engine, tenant, subscriber.url("ok-x"))
    active = await ring.active()
    report = await engine.services.rotation.compromise(active.key_id, actor="test")
    assert report["suspended"] == [sid] and report["signingPaused"] is True
    assert (await engine.subscriptions.load(sid)).state == "SUSPENDED"  # type: ignore[union-attr]
    await publish(engine, tenant, "evt-after")
    await dispatch_all(engine)
    admitted = await engine.pool.fetchval(
        "SELECT count(*) FROM events WHERE type = 'delivery.attempt_admitted' "
        "AND convert_from(data, 'UTF8')::jsonb->>'key_id' = $1",
        active.key_id,
    )
    assert admitted == 0
    assert subscriber.deliveries("ok-x") == []
    # rollback to a revoked key is refused
    from hookproof.errors import HookproofError

    try:
        await ring.rollback(active.key_id, actor="test")
        raise AssertionError("rollback to a revoked key must be refused")
    except HookproofError as exc:
        assert exc.code in ("rollback_refused", "key_transition_forbidden")


async def test_shared_secret_rotation_through_a_challenge(
    engine: Engine, tenant: str, subscriber: Subscriber
) -> None:
    body = msgspec.convert(
        {
            "endpoint": subscriber.url("ok-h"),
            "topics": ["order.created"],
            "eventVersions": [1],
            "region": "eu",
            "signatureAlgorithm": "hmac-sha256",
            "owner": "o",
        },
        SubscriptionCreate,
    )
    state, secret = await engine.subscriptions.register(tenant, body, actor="test")
    sid = state.subscription_id
    assert secret is not None
    subscriber.secrets["ok-h"] = secret
    assert (await engine.services.challenger.run(sid, actor="test"))["passed"]
    rotation = engine.services.rotation
    issued = await rotation.rotate_secret(tenant, sid, actor="test")
    assert (await engine.subscriptions.load(sid)).state == "ROTATING"  # type: ignore[union-attr]
    # the subscriber has not installed the next secret yet: the challenge fails, nothing changes
    failed = await rotation.challenge(sid, actor="test")
    assert not failed["passed"]
    subscriber.secrets["ok-h"] = base64.b64decode(issued["secret"])
    passed = await rotation.challenge(sid, actor="test")
    assert passed["passed"] and passed["promotedKeyId"] == issued["keyId"]
    assert (await engine.subscriptions.load(sid)).state == "ACTIVE"  # type: ignore[union-attr]
    [d] = (await publish(engine, tenant, "evt-h")).deliveries
    await dispatch_all(engine)
    view = await delivery(engine, tenant, d["deliveryId"])
    assert view["attempts"][0]["keyId"] == issued["keyId"]
    assert view["attempts"][0]["signatureAlgorithm"] == "hmac-sha256"


async def test_rotation_through_the_api_and_the_cli(
    engine: Engine,
    tenant: str,
    subscriber: Subscriber,
    db_url: str,
    tmp_path,
    ca,
    monkeypatch,  # type: ignore[no-untyped-def]
) -> None:
    import asyncio
    import json

    import aiohttp
    from aiohttp.test_utils import TestServer

    from ..daemon import run_cli

    ring = engine.services.keyring
    sid = await active_subscription(engine, tenant, subscriber.url("ok-api"))
    first = await ring.active()
    server = TestServer(engine.app(), host="127.0.0.1")
    await server.start_server()
    try:
        url = str(server.make_url("/v1/keys/rotate"))
        async with aiohttp.ClientSession() as http:
            async with http.post(url) as r:  # no operator token configured: refused
                problem = await r.json()
                assert r.status == 403 and problem["code"] == "admin_disabled"
                assert problem["title"] == "Operator routes disabled"
                assert "HOOKPROOF_ADMIN_TOKEN" in problem["detail"]
            monkeypatch.setenv("HOOKPROOF_ADMIN_TOKEN", "op-secret")
            async with http.post(url, headers={"Authorization": "Bearer nope"}) as r:
                assert r.status == 401
            async with http.post(url, headers={"Authorization": "Bearer op-secret"}) as r:
                body = await r.json()
                assert r.status == 200, body
        assert body["proved"] == [sid] and body["previousKeyId"] == first.key_id
    finally:
        await server.close()
    second = await ring.active()
    assert second.key_id == body["keyId"]

    # the CLI runs the same round in its own process, against the same database
    ca_file = tmp_path / "ca-cli.pem"
    ca.cert_pem.write_to_path(str(ca_file))
    env = {
        "HOOKPROOF_DATABASE_URL": db_url,
        "HOOKPROOF_DATA_DIR": str(tmp_path),  # the master key file the engine created
        "HOOKPROOF_EGRESS_ALLOW": f"127.0.0.1:{subscriber.port}",
        "HOOKPROOF_EGRESS_CA_FILE": str(ca_file),
        "HOOKPROOF_DNS_SERVERS": "127.0.0.1:9",
    }
    r = await asyncio.to_thread(run_cli, ["keys", "rotate", "--json", "--actor", "ops:eve"], env)
    assert r.returncode == 0, r.stdout + r.stderr
    out = json.loads(r.stdout.strip().splitlines()[-1])
    assert out["proved"] == [sid] and out["previousKeyId"] == second.key_id
    third = await ring.active()
    assert third.key_id == out["keyId"]
    states = {v.key_id: str(v.state) for v in await ring.keys(purpose="engine")}
    assert states[first.key_id] == "VERIFY_ONLY" and states[second.key_id] == "VERIFY_ONLY"
    actors = {e.meta().actor for e in await engine.store.read_stream(f"key-{third.key_id}")}
    assert actors == {"ops:eve"}


async def test_second_secret_rotation_replaces_the_pending_secret(
    engine: Engine, tenant: str, subscriber: Subscriber
) -> None:
    """Issue 11, defect 10: one pending secret per subscription. A second rotate replaces the
    pending one (withdrawn, its material destroyed); the newest secret is the one proved."""
    from hookproof.errors import HookproofError

    body = msgspec.convert(
        {
            "endpoint": subscriber.url("ok-r2"),
            "topics": ["order.created"],
            "eventVersions": [1],
            "region": "eu",
            "signatureAlgorithm": "hmac-sha256",
            "owner": "o",
        },
        SubscriptionCreate,
    )
    state, secret = await engine.subscriptions.register(tenant, body, actor="test")
    sid = state.subscription_id
    assert secret is not None
    subscriber.secrets["ok-r2"] = secret
    assert (await engine.services.challenger.run(sid, actor="test"))["passed"]
    rotation = engine.services.rotation
    ring = engine.services.keyring
    first = await rotation.rotate_secret(tenant, sid, actor="test")
    second = await rotation.rotate_secret(tenant, sid, actor="test")
    assert "replacedKeyIds" not in first
    assert second["replacedKeyIds"] == [first["keyId"]]
    assert [v.key_id for v in await rotation.pending_secrets(sid)] == [second["keyId"]]
    replaced = await ring.get(first["keyId"])
    assert str(replaced.state).endswith("REVOKED")
    try:
        await ring.secret_for(first["keyId"])
        raise AssertionError("a replaced pending secret must be unusable")
    except HookproofError:
        pass
    material = await engine.pool.fetchval(
        "SELECT count(*) FROM key_material WHERE key_id = $1 AND ciphertext IS NOT NULL",
        first["keyId"],
    )
    assert material == 0, "the replaced secret's material is destroyed"
    # the subscriber installs the newest secret shown: the challenge proves and promotes it
    subscriber.secrets["ok-r2"] = base64.b64decode(second["secret"])
    passed = await rotation.challenge(sid, actor="test")
    assert passed["passed"] and passed["promotedKeyId"] == second["keyId"]
    assert (await engine.subscriptions.load(sid)).state == "ACTIVE"  # type: ignore[union-attr]
