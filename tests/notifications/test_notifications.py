"""Operator notifications end to end: each kind produced by a real cause (a dead letter, a
suspension, a certificate drift, a key compromise, a paused rollout) reaches a subscribed
endpoint over real HTTPS, signed and ledgered, and never reaches another tenant; a
notification never causes a notification about itself."""

from __future__ import annotations

import json
from typing import Any

import msgspec
import pytest
import trustme

from hookproof.engine.notifications import (
    DEAD_LETTERED,
    DRIFT_DETECTED,
    KEY_COMPROMISED,
    ROLLOUT_PAUSED,
    SUSPENDED,
)
from hookproof.engine.runtime.daemon import Engine
from hookproof.errors import ValidationError
from hookproof.schemas.api import EventIn
from hookproof_subscriber import JwksKeyResolver, VerificationKey, verify_request

from ..delivery.conftest import Received, dispatch_all
from ..support import log_settled
from .conftest import Server, subscribe


class _Secret:
    def __init__(self, secret: bytes) -> None:
        self.secret = secret

    def resolve(self, key_id: str) -> VerificationKey | None:
        return VerificationKey.hmac(key_id, self.secret)


async def _jwks(engine: Engine) -> JwksKeyResolver:
    ring = engine.services.keyring

    async def fetch(_: str) -> bytes:
        return json.dumps(await ring.jwks()).encode()

    resolver = JwksKeyResolver(
        "https://engine.invalid/.well-known/hookproof/jwks.json", fetch=fetch
    )
    await resolver.refresh()
    return resolver


async def _settle(engine: Engine, rounds: int = 4) -> None:
    """Dispatch, let the notifier read the log, dispatch what it published; a few times."""
    for _ in range(rounds):
        await dispatch_all(engine)
        await log_settled(engine.store.pool)
        await engine.services.notifier.run_once()
    await dispatch_all(engine)


def _notices(server: Server, path: str) -> list[tuple[Received, dict[str, Any]]]:
    out = []
    for r in server.sub.deliveries(path):
        doc = json.loads(r.body)
        if doc["type"].startswith("hookproof."):
            out.append((r, doc))
    return out


async def _publish(engine: Engine, tenant: str, event_id: str, topic: str = "t") -> Any:
    doc = {
        "eventId": event_id,
        "topic": topic,
        "version": "1.0",
        "aggregateId": "a-1",
        "aggregateVersion": 1,
        "occurredAt": "2026-11-30T10:00:00Z",
        "payload": {"n": 1},
    }
    return await engine.services.ingest.ingest(
        tenant, msgspec.convert(doc, EventIn), actor=f"tenant:{tenant}"
    )


async def _verified(engine: Engine, server: Server, path: str, r: Received, keys: Any) -> None:
    verdict = verify_request("POST", server.sub.url(path), r.headers, r.body, keys=keys)
    assert verdict.ok, verdict.reason


async def test_dead_letter_and_suspension_reach_only_the_tenant_that_asked(
    engine: Engine, watched: Server, receiver: Server
) -> None:
    acme = (await engine.tenants.create("acme")).tenant_id
    other = (await engine.tenants.create("other")).tenant_id
    failing, _ = await subscribe(engine, acme, watched, "fail500-src", ["t"])
    await subscribe(engine, acme, receiver, "ok-acme", ["hookproof.*"])
    await subscribe(engine, acme, receiver, "ok-acme-star", ["*"])  # a bare '*' never hears
    await subscribe(engine, other, receiver, "ok-other", ["hookproof.*"])
    await subscribe(engine, other, watched, "fail500-other", ["t"])

    result = await _publish(engine, acme, "evt-1")
    [planned] = [d for d in result.deliveries if d["subscriptionId"] == failing]
    await _settle(engine)
    [(got, doc)] = _notices(receiver, "ok-acme")
    assert doc["type"] == DEAD_LETTERED
    assert doc["aggregateId"] == planned["deliveryId"]
    assert doc["payload"]["deliveryId"] == planned["deliveryId"]
    assert doc["payload"]["subscriptionId"] == failing
    assert doc["payload"]["eventId"] == "evt-1"
    assert doc["payload"]["reason"].startswith("exhausted:")
    assert doc["payload"]["replay"] == f"POST /v1/deliveries/{planned['deliveryId']}/replay"
    await _verified(engine, receiver, "ok-acme", got, await _jwks(engine))
    # ledgered like any delivery, evidence and all
    did = got.headers["Webhook-Delivery-Id"]
    view = await engine.services.reader.delivery(acme, did)
    assert view["state"] == "ENDPOINT_ACCEPTED" and view["eventId"] == got.headers["Webhook-Id"]

    await engine.subscriptions.transition(
        acme, failing, "suspend", actor="tenant:acme", reason="maintenance"
    )
    await _settle(engine)
    kinds = [d["type"] for _, d in _notices(receiver, "ok-acme")]
    assert kinds == [DEAD_LETTERED, SUSPENDED]
    _, suspended = _notices(receiver, "ok-acme")[1]
    assert suspended["payload"]["subscriptionId"] == failing
    assert suspended["payload"]["reason"] == "maintenance"
    assert suspended["payload"]["fromState"] == "ACTIVE"

    assert _notices(receiver, "ok-other") == []
    assert _notices(receiver, "ok-acme-star") == []
    # the other tenant hears nothing of acme's and acme's notifications name nothing of its
    status_other = await engine.services.reader.dead_letters(other)
    assert status_other == []


async def test_a_dead_notification_is_not_announced(
    engine: Engine, watched: Server, receiver: Server
) -> None:
    acme = (await engine.tenants.create("acme")).tenant_id
    await subscribe(engine, acme, watched, "fail500-src", ["t"])
    await subscribe(engine, acme, receiver, "fail500-listener", [DEAD_LETTERED])
    await _publish(engine, acme, "evt-1")
    await _settle(engine, rounds=6)
    # the listener got the first dead-letter notification and dead-lettered it too ...
    sent = _notices(receiver, "fail500-listener")
    assert [d["type"] for _, d in sent] == [DEAD_LETTERED]
    dead = await engine.services.reader.dead_letters(acme)
    assert len(dead) == 2
    # ... and that second dead letter, a notification's, produced nothing
    rows = await engine.pool.fetch("SELECT topic FROM event_bodies ORDER BY created_at")
    assert [r["topic"] for r in rows] == ["t", DEAD_LETTERED]
    assert await engine.services.notifier.run_once() == 0


async def test_tenants_cannot_publish_under_the_reserved_prefix(engine: Engine) -> None:
    acme = (await engine.tenants.create("acme")).tenant_id
    with pytest.raises(ValidationError) as err:
        await _publish(engine, acme, "forged", topic=DEAD_LETTERED)
    assert err.value.code == "reserved_topic"


async def test_certificate_drift_is_announced(
    engine: Engine, watched: Server, receiver: Server, other_ca: trustme.CA
) -> None:
    acme = (await engine.tenants.create("acme")).tenant_id
    other = (await engine.tenants.create("other")).tenant_id
    sid, _ = await subscribe(engine, acme, watched, "ok-watched", ["t"], retryPolicy={})
    await subscribe(engine, acme, receiver, "ok-acme", [DRIFT_DETECTED, SUSPENDED])
    await subscribe(engine, other, receiver, "ok-other", ["hookproof.*"])
    # the watched endpoint now presents a certificate from another (also trusted) issuer
    other_ca.issue_cert("127.0.0.1").configure_cert(watched.ctx)
    await _publish(engine, acme, "evt-1")
    await _settle(engine)
    assert (await engine.subscriptions.load(sid)).state == "SUSPENDED"  # type: ignore[union-attr]
    got = {d["type"]: (r, d) for r, d in _notices(receiver, "ok-acme")}
    assert set(got) == {DRIFT_DETECTED, SUSPENDED}
    r, drift = got[DRIFT_DETECTED]
    assert drift["payload"]["subscriptionId"] == sid
    assert drift["payload"]["reason"] == "certificate_issuer_changed"
    assert drift["payload"]["spkiSha256"]
    await _verified(engine, receiver, "ok-acme", r, await _jwks(engine))
    assert got[SUSPENDED][1]["payload"]["reason"] == "certificate_issuer_changed"
    assert _notices(receiver, "ok-other") == []


async def test_engine_key_compromise_is_heard_by_tenants_it_signs_for(
    engine: Engine, watched: Server, receiver: Server
) -> None:
    acme = (await engine.tenants.create("acme")).tenant_id
    other = (await engine.tenants.create("other")).tenant_id
    signed, _ = await subscribe(engine, acme, watched, "ok-signed", ["t"])
    # hmac subscriptions are signed with their own secret: a channel the compromise leaves
    _, secret = await subscribe(
        engine, acme, receiver, "ok-acme", [KEY_COMPROMISED], signatureAlgorithm="hmac-sha256"
    )
    # the other tenant has no subscription the engine key signs: it is not concerned
    await subscribe(
        engine, other, receiver, "ok-other", ["hookproof.*"], signatureAlgorithm="hmac-sha256"
    )
    ring = engine.services.keyring
    key_id = (await ring.active("engine")).key_id
    report = await engine.services.rotation.compromise(key_id, actor="operator:test")
    assert signed in report["suspended"]
    await _settle(engine)
    [(r, doc)] = _notices(receiver, "ok-acme")
    assert doc["type"] == KEY_COMPROMISED and doc["aggregateId"] == key_id
    assert doc["payload"]["keyId"] == key_id and doc["payload"]["purpose"] == "engine"
    assert signed in doc["payload"]["subscriptions"]
    assert secret is not None
    await _verified(engine, receiver, "ok-acme", r, _Secret(secret))
    assert _notices(receiver, "ok-other") == []


async def test_paused_rollout_is_heard_by_tenants_in_it(
    engine: Engine, watched: Server, receiver: Server
) -> None:
    acme = (await engine.tenants.create("acme")).tenant_id
    other = (await engine.tenants.create("other")).tenant_id
    inside, _ = await subscribe(engine, acme, watched, "ok-in", ["t"])
    await subscribe(engine, acme, receiver, "ok-acme", [ROLLOUT_PAUSED])
    await subscribe(engine, other, watched, "ok-out", ["t"])
    await subscribe(engine, other, receiver, "ok-other", [ROLLOUT_PAUSED])
    rollouts = engine.services.rollouts
    view = await rollouts.create(
        target_kind="signatureProfile",
        target="standard-webhooks.v1",
        subscriptions=[inside],
        internal=[],
        dual_window_s=None,
        actor="operator:test",
    )
    await rollouts.pause(view.rollout_id, actor="operator:test")
    await _settle(engine)
    [(r, doc)] = _notices(receiver, "ok-acme")
    assert doc["type"] == ROLLOUT_PAUSED and doc["aggregateId"] == view.rollout_id
    assert doc["payload"]["reason"] == "operator"
    assert doc["payload"]["subscriptions"] == [inside]
    await _verified(engine, receiver, "ok-acme", r, await _jwks(engine))
    assert _notices(receiver, "ok-other") == []
