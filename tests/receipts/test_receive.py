"""``POST /v1/receipts`` over a real aiohttp server: every refusal has its reason code and
moves nothing; conflicts are quarantined; duplicates are idempotent; a valid receipt
confirms (also from RETRYABLE, and stops the retries)."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import jsonschema_rs
import msgspec
import pytest
from aiohttp import web

from hookproof.engine.api.openapi import openapi_document
from hookproof.engine.runtime.daemon import Engine
from hookproof.schemas.api import SubscriptionPatch
from hookproof_subscriber import (
    SigningKey,
    build_challenge_response,
    build_receipt,
    content_digest,
    sign_receipt,
)

from .harness import (
    FAST,
    Api,
    HookServer,
    active_subscription,
    delivery,
    dispatch_all,
    ok_endpoint,
    publish,
    receipt_key_body,
    stream_types,
)


async def _delivered(
    engine: Engine,
    tenant: str,
    hooks: HookServer,
    path: str,
    event_id: str,
    key: SigningKey | None,
    **over: Any,
) -> tuple[str, dict[str, Any], Any]:
    hooks.mount(path, ok_endpoint(key))
    extra = {"receiptKey": receipt_key_body(key)} if key is not None else {}
    topic = f"{path}.created"  # one subscription per topic: one delivery per event
    sid = await active_subscription(
        engine, tenant, hooks.url(path), topics=[topic], **extra, **over
    )
    result = await publish(engine, tenant, event_id, topic=topic)
    [d] = result.deliveries
    await dispatch_all(engine)
    return sid, d, result


def _receipt(sid: str, d: dict[str, Any], event_id: str, digest: str, **over: Any) -> Any:
    fields: dict[str, Any] = {
        "subscription_id": sid,
        "event_id": event_id,
        "delivery_id": d["deliveryId"],
        "payload_digest": digest,
        "operation_id": "op-1",
        "receipt_key_generation": 1,
    }
    fields.update(over)
    return build_receipt(**fields)


async def _post(api: Api, headers: dict[str, str], body: bytes) -> tuple[int, Any]:
    return await api.call("POST", "/v1/receipts", data=body, headers=headers)


async def test_forged_receipts_are_refused_with_their_reason_and_move_nothing(
    monkeypatch: pytest.MonkeyPatch,
    engine: Engine,
    api: Api,
    hooks: HookServer,
    tenant_token: tuple[str, str],
) -> None:
    tenant, token = tenant_token
    key_a = SigningKey.generate_ed25519("rk-a")
    key_b = SigningKey.generate_ed25519("rk-b")
    sid_a, da, ra = await _delivered(engine, tenant, hooks, "a", "evt-a", key_a)
    _sid_b, db, rb = await _delivered(engine, tenant, hooks, "b", "evt-b", key_b)
    url = api.receipts_url
    good = _receipt(sid_a, da, "evt-a", ra.payload_digest)

    cases: list[tuple[str, int, dict[str, str], bytes]] = []

    def add(reason: str, status: int, signed: tuple[dict[str, str], bytes]) -> None:
        cases.append((reason, status, *signed))

    stranger = SigningKey.generate_ed25519("rk-stranger")
    add("unknown_key", 401, sign_receipt(good, url=url, key=stranger))
    # a stranger's key claiming A's key id
    add("bad_signature", 401, sign_receipt(good, url=url, key=SigningKey.generate_ed25519("rk-a")))
    # B's key (its own key id, and A's key id) for A's delivery
    add("unknown_key", 401, sign_receipt(good, url=url, key=key_b))
    key_b_as_a = SigningKey.ed25519("rk-a", key_b.private_key)  # type: ignore[arg-type]
    add("bad_signature", 401, sign_receipt(good, url=url, key=key_b_as_a))
    # altered body after signing (payloadDigest changed): Content-Digest no longer matches
    h, body = sign_receipt(good, url=url, key=key_a)
    tampered = body.replace(ra.payload_digest.encode(), rb.payload_digest.encode())
    assert tampered != body
    add("digest_mismatch", 400, (h, tampered))
    # altered body with a recomputed Content-Digest: the signature no longer verifies
    add("bad_signature", 401, ({**h, "Content-Digest": content_digest(tampered)}, tampered))
    # A's valid receipt for evt-a replayed as a receipt for B's event (body rewritten)
    replay = body.replace(b"evt-a", b"evt-b").replace(
        da["deliveryId"].encode(), db["deliveryId"].encode()
    )
    add("digest_mismatch", 400, (h, replay))
    add("bad_signature", 401, ({**h, "Content-Digest": content_digest(replay)}, replay))
    # signed for another engine's receipts URL (@target-uri)
    add(
        "bad_signature", 401, sign_receipt(good, url="https://other.example/v1/receipts", key=key_a)
    )
    # the right key but another generation claimed
    add(
        "wrong_key_generation",
        422,
        sign_receipt(
            _receipt(sid_a, da, "evt-a", ra.payload_digest, receipt_key_generation=2),
            url=url,
            key=key_a,
        ),
    )
    # expired signature
    old = int(time.time()) - 7200
    add("expired", 401, sign_receipt(good, url=url, key=key_a, created=old, expires=old + 300))
    # a valid signature by A on a receipt naming B's delivery under A's subscription
    add(
        "delivery_not_found",
        404,
        sign_receipt(_receipt(sid_a, db, "evt-a", ra.payload_digest), url=url, key=key_a),
    )
    add(
        "delivery_not_found",
        404,
        sign_receipt(_receipt(sid_a, da, "evt-b", ra.payload_digest), url=url, key=key_a),
    )
    # no signature at all; not a receipt at all
    add("malformed", 400, ({"Content-Type": "application/json"}, good.to_bytes()))
    add("malformed", 400, sign_receipt(b'{"type":"nope"}', url=url, key=key_a))

    for reason, status, headers, payload in cases:
        got_status, doc = await _post(api, headers, payload)
        assert (got_status, doc["code"]) == (status, reason), (reason, doc)
        assert doc["status"] == status and doc["title"] and doc["type"].endswith(reason)

    # nothing moved
    for tenant_d in (da, db):
        view = await delivery(engine, tenant, tenant_d["deliveryId"])
        assert view["state"] == "ENDPOINT_ACCEPTED"
        assert view["evidence"] == {"endpoint": "ENDPOINT_ACCEPTED", "application": "PENDING"}
        assert "applicationReceipt" not in view
    assert "delivery.application_confirmed" not in await stream_types(
        engine, f"delivery-{da['deliveryId']}"
    )
    # input no key authenticated never creates an event: refusals are only counted
    assert await engine.store.read_stream(f"receipts-{sid_a}") == []
    # counted on /metrics
    monkeypatch.setenv("HOOKPROOF_METRICS_TOKEN", "metrics-token")
    status, text = await api.call("GET", "/metrics", token="metrics-token")
    assert status == 200
    assert 'hookproof_receipts_rejected_total{reason="unknown_key"} 2' in text
    assert 'hookproof_receipts_rejected_total{reason="bad_signature"} 5' in text
    assert 'hookproof_receipts_rejected_total{reason="digest_mismatch"} 2' in text
    assert 'hookproof_receipts_rejected_total{reason="malformed"} 2' in text
    assert 'hookproof_receipts_total{outcome="accepted"} 0' in text
    assert "hookproof_queue_depth" in text  # the delivery metrics are still there

    # the genuine receipt still works afterwards
    status, doc = await _post(api, *sign_receipt(good, url=url, key=key_a))
    assert status == 201 and doc["receipt"] == "accepted", doc
    view = await delivery(engine, tenant, da["deliveryId"])
    assert view["state"] == "APPLICATION_CONFIRMED"
    assert view["evidence"]["application"] == "CONFIRMED"
    _ = token


async def test_duplicate_is_idempotent_and_conflict_is_quarantined(
    monkeypatch: pytest.MonkeyPatch,
    engine: Engine,
    api: Api,
    hooks: HookServer,
    tenant_token: tuple[str, str],
) -> None:
    tenant, token = tenant_token
    key = SigningKey.generate_ed25519("rk-1")
    sid, d, r = await _delivered(engine, tenant, hooks, "a", "evt-1", key)
    url = api.receipts_url
    stream = f"delivery-{d['deliveryId']}"

    wrong = _receipt(sid, d, "evt-1", "sha-256=:" + "A" * 43 + "=:", operation_id="op-x")
    for _ in range(2):
        status, doc = await _post(api, *sign_receipt(wrong, url=url, key=key))
        assert status == 409 and doc["code"] == "receipt_conflict", doc
        assert doc["deliveredDigest"] == r.payload_digest
    types = await stream_types(engine, stream)
    assert types.count("delivery.receipt_conflict") == 1  # the same conflict recorded once
    view = await delivery(engine, tenant, d["deliveryId"])
    assert view["state"] == "ENDPOINT_ACCEPTED" and view["evidence"]["application"] == "PENDING"
    [quarantined] = view["receiptConflicts"]
    assert quarantined["operationId"] == "op-x"

    good = _receipt(sid, d, "evt-1", r.payload_digest)
    status, first = await _post(api, *sign_receipt(good, url=url, key=key))
    assert status == 201 and first["receipt"] == "accepted"
    assert first["state"] == "APPLICATION_CONFIRMED"
    assert first["evidence"] == {"endpoint": "ENDPOINT_ACCEPTED", "application": "CONFIRMED"}
    answers = []
    for _ in range(3):  # the same receipt again (re-signed, as the SDK re-sends it)
        answers.append(await _post(api, *sign_receipt(good, url=url, key=key)))
    signed = sign_receipt(good, url=url, key=key)
    answers.append(await _post(api, *signed))
    answers.append(await _post(api, *signed))  # byte-identical replay: same answer too
    assert all(s == 200 for s, _ in answers)
    assert all(a == answers[0][1] for _, a in answers)
    assert answers[0][1]["receipt"] == "duplicate"
    assert answers[0][1]["operationId"] == "op-1"
    # both answers are the type /openapi.json documents for 201 and 200
    doc_schema = {
        "$ref": "#/components/schemas/ReceiptConfirmed",
        "components": openapi_document()["components"],
    }
    conforms = jsonschema_rs.validator_for(doc_schema)
    conforms.validate(first)
    conforms.validate(answers[0][1])
    # another operation id for the same (subscription, event): still the first confirmation
    other = _receipt(sid, d, "evt-1", r.payload_digest, operation_id="op-2", result="duplicate")
    status, doc = await _post(api, *sign_receipt(other, url=url, key=key))
    assert status == 200 and doc["operationId"] == "op-1"
    # concurrent copies: one confirmation
    types = await stream_types(engine, stream)
    assert types.count("delivery.application_confirmed") == 1

    # evidence over the HTTP API
    status, view = await api.call("GET", f"/v1/deliveries/{d['deliveryId']}", token=token)
    assert status == 200
    assert view["evidence"] == {"endpoint": "ENDPOINT_ACCEPTED", "application": "CONFIRMED"}
    assert view["applicationReceipt"]["operationId"] == "op-1"
    assert view["applicationReceipt"]["receiptKeyId"] == "rk-1"
    monkeypatch.setenv("HOOKPROOF_METRICS_TOKEN", "metrics-token")
    status, text = await api.call("GET", "/metrics", token="metrics-token")
    assert 'hookproof_receipts_total{outcome="accepted"} 1' in text
    assert 'hookproof_receipts_total{outcome="duplicate"} 6' in text
    assert 'hookproof_receipts_total{outcome="conflict"} 2' in text


async def test_concurrent_receipts_confirm_once(
    engine: Engine, api: Api, hooks: HookServer, tenant_token: tuple[str, str]
) -> None:
    tenant, _ = tenant_token
    key = SigningKey.generate_ed25519("rk-1")
    sid, d, r = await _delivered(engine, tenant, hooks, "a", "evt-1", key)
    good = _receipt(sid, d, "evt-1", r.payload_digest)
    answers = await asyncio.gather(
        *[_post(api, *sign_receipt(good, url=api.receipts_url, key=key)) for _ in range(6)]
    )
    assert sorted(s for s, _ in answers) == [200] * 5 + [201]
    types = await stream_types(engine, f"delivery-{d['deliveryId']}")
    assert types.count("delivery.application_confirmed") == 1


async def test_rotated_receipt_key_old_key_is_revoked(
    engine: Engine, api: Api, hooks: HookServer, tenant_token: tuple[str, str]
) -> None:
    tenant, _ = tenant_token
    old = SigningKey.generate_ed25519("rk-old")
    sid, d, r = await _delivered(engine, tenant, hooks, "a", "evt-1", old)
    new = SigningKey.generate_ed25519("rk-new")
    state = await engine.subscriptions.load(sid)
    assert state is not None
    patch = msgspec.convert({"receiptKey": receipt_key_body(new)}, SubscriptionPatch)
    state = await engine.subscriptions.update(tenant, sid, state.generation, patch, actor="test")
    assert state.config.receipt_key is not None and state.config.receipt_key.generation == 2
    url = api.receipts_url
    gen1 = _receipt(sid, d, "evt-1", r.payload_digest, receipt_key_generation=1)
    status, doc = await _post(api, *sign_receipt(gen1, url=url, key=old))
    assert (status, doc["code"]) == (401, "revoked_receipt_key"), doc
    # the new key claiming the old generation
    status, doc = await _post(api, *sign_receipt(gen1, url=url, key=new))
    assert (status, doc["code"]) == (422, "wrong_key_generation")
    # the old key reusing the new key id does not verify
    old_as_new = SigningKey.ed25519("rk-new", old.private_key)  # type: ignore[arg-type]
    gen2 = _receipt(sid, d, "evt-1", r.payload_digest, receipt_key_generation=2)
    status, doc = await _post(api, *sign_receipt(gen2, url=url, key=old_as_new))
    assert (status, doc["code"]) == (401, "bad_signature")
    view = await delivery(engine, tenant, d["deliveryId"])
    assert view["evidence"]["application"] == "PENDING"
    status, doc = await _post(api, *sign_receipt(gen2, url=url, key=new))
    assert status == 201, doc
    assert await engine.store.read_stream(f"receipts-{sid}") == []  # refusals: no events


async def test_old_receipt_key_stays_revoked_after_many_ordinary_patches(
    engine: Engine, api: Api, hooks: HookServer, tenant_token: tuple[str, str]
) -> None:
    """Issue 32, point 5: register with key A, rotate to B, then 32 PATCHes that change no key
    (over the API): a receipt signed with A is still ``revoked_receipt_key``, not
    ``unknown_key``; the key index holds one row per key change."""
    tenant, token = tenant_token
    key_a = SigningKey.generate_ed25519("rk-a")
    sid, d, r = await _delivered(engine, tenant, hooks, "p", "evt-p", key_a)

    async def patch(body: dict[str, Any]) -> None:
        status, sub = await api.call("GET", f"/v1/subscriptions/{sid}", token=token)
        assert status == 200, sub
        status, out = await api.call(
            "PATCH",
            f"/v1/subscriptions/{sid}",
            token=token,
            json=body,
            headers={"If-Match": f'"{sub["generation"]}"'},
        )
        assert status == 200, out

    key_b = SigningKey.generate_ed25519("rk-b")
    await patch({"receiptKey": receipt_key_body(key_b)})
    for i in range(32):  # no key in any of them (and no new generation: no challenge)
        await patch({"region": f"eu-{i}"})
    gen1 = _receipt(sid, d, "evt-p", r.payload_digest, receipt_key_generation=1)
    status, doc = await _post(api, *sign_receipt(gen1, url=api.receipts_url, key=key_a))
    assert (status, doc["code"]) == (401, "revoked_receipt_key"), doc
    rows = await engine.pool.fetch(
        "SELECT receipt_key ->> 'key_id' AS k FROM receipt_key_history"
        " WHERE subscription_id = $1 ORDER BY stream_version",
        sid,
    )
    assert [row["k"] for row in rows] == ["rk-a", "rk-b"]
    gen2 = _receipt(sid, d, "evt-p", r.payload_digest, receipt_key_generation=2)
    status, doc = await _post(api, *sign_receipt(gen2, url=api.receipts_url, key=key_b))
    assert status == 201, doc


async def test_no_receipt_contract_stays_unobservable(
    engine: Engine, api: Api, hooks: HookServer, tenant_token: tuple[str, str]
) -> None:
    tenant, _ = tenant_token
    sid, d, r = await _delivered(engine, tenant, hooks, "a", "evt-1", None)
    key = SigningKey.generate_ed25519("rk-self-made")
    receipt = _receipt(sid, d, "evt-1", r.payload_digest)
    status, doc = await _post(api, *sign_receipt(receipt, url=api.receipts_url, key=key))
    assert (status, doc["code"]) == (422, "no_receipt_contract")
    view = await delivery(engine, tenant, d["deliveryId"])
    assert view["state"] == "ENDPOINT_ACCEPTED"
    assert view["evidence"] == {"endpoint": "ENDPOINT_ACCEPTED", "application": "UNOBSERVABLE"}
    # unknown subscription: nothing recorded anywhere, still a stable code
    ghost = _receipt("sub_ghost", d, "evt-1", r.payload_digest)
    status, doc = await _post(api, *sign_receipt(ghost, url=api.receipts_url, key=key))
    assert (status, doc["code"]) == (404, "delivery_not_found")
    assert await engine.store.read_stream("receipts-sub_ghost") == []
    # oversized body
    status, doc = await _post(api, {"Content-Type": "application/json"}, b"{" + b" " * 70000)
    assert (status, doc["code"]) == (413, "body_too_large")


async def test_receipt_settles_retryable_and_stops_retries(
    engine: Engine, api: Api, hooks: HookServer, tenant_token: tuple[str, str]
) -> None:
    tenant, _ = tenant_token
    key = SigningKey.generate_ed25519("rk-1")
    failing = {"n": 0}

    async def fail500(request: Any) -> Any:
        body = await request.read()
        if b'"type":"hookproof.challenge.v1"' in body:
            return web.Response(
                body=build_challenge_response(body, receipt_key=key),
                content_type="application/json",
            )
        failing["n"] += 1
        return web.Response(status=500)

    hooks.mount("f", fail500)
    sid = await active_subscription(
        engine, tenant, hooks.url("f"), receiptKey=receipt_key_body(key), **FAST
    )
    result = await publish(engine, tenant, "evt-1")
    [d] = result.deliveries
    await dispatch_all(engine)
    view = await delivery(engine, tenant, d["deliveryId"])
    assert view["state"] == "RETRYABLE"
    good = _receipt(sid, d, "evt-1", result.payload_digest)
    status, doc = await _post(api, *sign_receipt(good, url=api.receipts_url, key=key))
    assert status == 201 and doc["state"] == "APPLICATION_CONFIRMED"
    # the endpoint never accepted: evidence says so, application is confirmed
    assert doc["evidence"] == {"endpoint": "NONE", "application": "CONFIRMED"}
    await asyncio.sleep(0.1)
    assert await dispatch_all(engine) == 0
    assert failing["n"] == 1
