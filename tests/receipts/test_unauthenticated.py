"""Issue 11, defects 2 and 4: input no key has authenticated never creates an event, and no
receipt body, however hostile, is answered with a 5xx."""

from __future__ import annotations

import json

from hookproof.engine.runtime.daemon import Engine
from hookproof_subscriber import SigningKey, sign_receipt

from .harness import Api, HookServer, active_subscription, ok_endpoint, receipt_key_body


async def _events(engine: Engine) -> int:
    return int(await engine.store.pool.fetchval("SELECT count(*) FROM events"))


def _body(sid: str, **over: object) -> bytes:
    doc: dict[str, object] = {
        "type": "applicationReceipt.v1",
        "subscriptionId": sid,
        "eventId": "evt-1",
        "deliveryId": "dlv_" + "0" * 28,
        "payloadDigest": "sha-256=:" + "A" * 43 + "=:",
        "operationId": "op-1",
        "result": "applied",
        "appliedAt": "2026-11-30T10:00:00Z",
        "receiptKeyGeneration": 1,
    }
    doc.update(over)
    return json.dumps(doc).encode()


async def test_fifty_unsigned_receipts_add_no_event(
    engine: Engine, api: Api, hooks: HookServer, tenant_token: tuple[str, str]
) -> None:
    tenant, _ = tenant_token
    key = SigningKey.generate_ed25519("rk-1")
    hooks.mount("a", ok_endpoint(key))
    sid = await active_subscription(
        engine, tenant, hooks.url("a"), receiptKey=receipt_key_body(key)
    )
    await engine.drain()
    before = await _events(engine)
    intruder = SigningKey.generate_ed25519("k" * 7000)  # an attacker-chosen 7,000-char key id
    codes = set()
    for i in range(50):
        body = _body(sid, operationId=f"op-{i}")
        if i % 2:
            headers, body = sign_receipt(body, url=api.receipts_url, key=intruder)
        else:  # no signature at all
            headers = {"Content-Type": "application/json", "Signature-Input": "receipt=()"}
        status, doc = await api.call("POST", "/v1/receipts", data=body, headers=headers)
        assert 400 <= status < 500, doc
        codes.add(doc["code"])
    assert await _events(engine) == before, "a refused receipt appended an event"
    assert await engine.store.read_stream(f"receipts-{sid}") == []
    assert codes <= {"malformed", "unknown_key", "bad_signature"}, codes
    # the refusals are counted, by reason, in the metrics
    registry = engine.services.metrics.registry
    assert registry.get_sample_value("hookproof_receipts_total", {"outcome": "rejected"}) == 50
    # a refusal naming no existing subscription is not even tallied
    ghost = _body("sub_" + "f" * 24)
    status, _ = await api.call(
        "POST", "/v1/receipts", data=ghost, headers={"Content-Type": "application/json"}
    )
    assert status == 404
    # the audit trail of refusals: the engine's own timer writes one aggregate per
    # subscription per interval, reason codes and counts only
    service = engine.services.receipts
    assert await service.refusals.flush(engine.store) == 1
    [rec] = await engine.store.read_stream(f"receipts-{sid}")
    event = rec.decode()
    assert rec.type == "receipts.refusals_counted" and rec.meta().actor == "system:receipts"
    assert sum(event.counts.values()) == 50 and set(event.counts) == codes
    assert b"kkkkkkkk" not in rec.data and b"op-" not in rec.data
    assert await service.refusals.flush(engine.store) == 0  # nothing new: nothing written
    assert await _events(engine) == before + 1


async def test_hostile_receipt_bodies_are_4xx(
    engine: Engine, api: Api, hooks: HookServer, tenant_token: tuple[str, str]
) -> None:
    tenant, _ = tenant_token
    key = SigningKey.generate_ed25519("rk-1")
    hooks.mount("a", ok_endpoint(key))
    sid = await active_subscription(
        engine, tenant, hooks.url("a"), receiptKey=receipt_key_body(key)
    )
    await engine.drain()
    before = await _events(engine)
    json_headers = {"Content-Type": "application/json"}
    bodies = [
        b"[" * 5000 + b"]" * 5000,  # nested 5,000 deep
        b'{"a":' * 5000 + b"1" + b"}" * 5000,
        _body("sub_\u0000x"),  # a NUL in the id (json.dumps escapes it as \u0000)
        _body(sid).replace(sid.encode(), b"\\ud800"),  # a lone surrogate
        _body(sid, eventId="e\u0000"),
        _body(sid, deliveryId="\udfff"),
    ]
    for body in bodies:
        status, doc = await api.call("POST", "/v1/receipts", data=body, headers=json_headers)
        assert 400 <= status < 500, (body[:60], status, doc)
        assert doc["code"]
        # signed by the registered key too: still refused before any query sees the id
        headers, signed = sign_receipt(body, url=api.receipts_url, key=key)
        status, doc = await api.call("POST", "/v1/receipts", data=signed, headers=headers)
        assert 400 <= status < 500, (body[:60], status, doc)
    assert await _events(engine) == before
