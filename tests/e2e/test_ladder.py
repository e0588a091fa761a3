"""The evidence ladder end to end: a running engine (real Postgres, its API on a real aiohttp
server), real HTTPS to subscribers built only on the SDK, receipts back over HTTP."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web

from hookproof.engine.runtime.daemon import Engine
from hookproof_subscriber import (
    JwksKeyResolver,
    SigningKey,
    SqliteStore,
    averify_request,
    content_digest,
)
from tests.receipts.harness import (
    FAST,
    Api,
    HookServer,
    active_subscription,
    delivery,
    dispatch_all,
    publish,
    receipt_key_body,
    stream_types,
)

from .sdk_app import is_challenge, sdk_app


async def test_with_receipts_reaches_application_confirmed(
    monkeypatch: pytest.MonkeyPatch,
    engine: Engine,
    api: Api,
    hooks: HookServer,
    tenant_token: tuple[str, str],
) -> None:
    tenant, token = tenant_token
    key = SigningKey.generate_ed25519("rk-orders")
    app = sdk_app(api, hooks, "orders", receipt_key=key)
    sid = await active_subscription(engine, tenant, app.url, receiptKey=receipt_key_body(key))
    app.sdk.subscription_id = sid  # pin deliveries to this subscription from now on
    result = await publish(engine, tenant, "evt-1")
    [d] = result.deliveries
    assert await dispatch_all(engine) == 1
    await app.sdk.drain()
    assert app.effects == [("evt-1", 1)]
    assert [s for s, _ in app.answers] == [201]
    status, view = await api.call("GET", f"/v1/deliveries/{d['deliveryId']}", token=token)
    assert status == 200
    assert view["state"] == "APPLICATION_CONFIRMED"
    assert view["evidence"] == {"endpoint": "ENDPOINT_ACCEPTED", "application": "CONFIRMED"}
    assert view["applicationReceipt"]["result"] == "applied"
    assert view["applicationReceipt"]["receiptKeyId"] == "rk-orders"
    assert view["attempts"][0]["outcome"] == "ENDPOINT_ACCEPTED"
    status, ev = await api.call("GET", "/v1/events/evt-1", token=token)
    assert ev["deliveries"][0]["evidence"]["application"] == "CONFIRMED"
    # a confirmed delivery is never claimed again
    assert await dispatch_all(engine) == 0
    assert engine.services.receipt_redeliverer is not None
    assert await engine.services.receipt_redeliverer.redeliver_overdue(older_than_s=0) == 0
    monkeypatch.setenv("HOOKPROOF_METRICS_TOKEN", "metrics-token")
    status, text = await api.call("GET", "/metrics", token="metrics-token")
    assert 'hookproof_receipts_total{outcome="accepted"} 1' in text


async def _answer_202(request: web.Request) -> web.StreamResponse:
    from hookproof_subscriber import build_challenge_response

    body = await request.read()
    if is_challenge(request):
        return web.Response(body=build_challenge_response(body), content_type="application/json")
    return web.json_response({"result": "applied", "receipt": "trust me"}, status=202)


@pytest.mark.parametrize("kind", ["sdk", "sdk-self-made-receipts", "bare-202"])
async def test_without_receipt_contract_stays_unobservable(
    engine: Engine, api: Api, hooks: HookServer, tenant_token: tuple[str, str], kind: str
) -> None:
    tenant, token = tenant_token
    app = None
    if kind == "bare-202":
        url = hooks.mount("plain", _answer_202)
    else:
        signer = SigningKey.generate_ed25519("rk-unregistered") if "self-made" in kind else None
        app = sdk_app(api, hooks, "plain", signer=signer)
        url = app.url
    await active_subscription(engine, tenant, url)
    [d] = (await publish(engine, tenant, "evt-1")).deliveries
    await dispatch_all(engine)
    if app is not None:
        await app.sdk.drain()
        assert app.effects == [("evt-1", 1)]
        if app.answers:  # its self-made receipts are refused
            assert [(s, a["code"]) for s, a in app.answers] == [(422, "no_receipt_contract")]
    _, view = await api.call("GET", f"/v1/deliveries/{d['deliveryId']}", token=token)
    assert view["state"] == "ENDPOINT_ACCEPTED"
    assert view["evidence"] == {"endpoint": "ENDPOINT_ACCEPTED", "application": "UNOBSERVABLE"}
    assert "applicationReceipt" not in view
    assert await engine.services.receipt_redeliverer.redeliver_overdue(older_than_s=0) == 0


async def test_2xx_without_enqueue_then_redelivery_applies_exactly_once(
    engine: Engine, api: Api, hooks: HookServer, tenant_token: tuple[str, str], tmp_path: Path
) -> None:
    """The endpoint answers 2xx and crashes before the event reaches the application."""
    tenant, token = tenant_token
    key = SigningKey.generate_ed25519("rk-1")
    store = SqliteStore(str(tmp_path / "subscriber.db"))
    app = sdk_app(api, hooks, "flaky", receipt_key=key, store=store)
    inner = hooks.handlers["flaky"]
    crashed: list[bytes] = []

    async def front(request: web.Request) -> web.StreamResponse:
        if not is_challenge(request) and not crashed:
            crashed.append(await request.read())  # acknowledged, never enqueued
            return web.Response(status=200)
        return await inner(request)

    hooks.mount("flaky", front)
    sid = await active_subscription(engine, tenant, app.url, receiptKey=receipt_key_body(key))
    app.sdk.subscription_id = sid
    [d] = (await publish(engine, tenant, "evt-1")).deliveries
    await dispatch_all(engine)
    await app.sdk.drain()
    view = await delivery(engine, tenant, d["deliveryId"])
    assert view["state"] == "ENDPOINT_ACCEPTED"
    assert view["evidence"] == {"endpoint": "ENDPOINT_ACCEPTED", "application": "PENDING"}
    assert "applicationReceipt" not in view and app.effects == [] and app.answers == []

    # the receipt timeout sends it again, same identity; the SDK applies it once
    redeliverer = engine.services.receipt_redeliverer
    assert await redeliverer.redeliver_overdue(older_than_s=3600) == 0  # not overdue yet
    assert await redeliverer.redeliver_overdue(older_than_s=0) == 1
    assert await dispatch_all(engine) == 1
    await app.sdk.drain()
    assert app.effects == [("evt-1", 1)]
    assert [s for s, _ in app.answers] == [201]
    _, view = await api.call("GET", f"/v1/deliveries/{d['deliveryId']}", token=token)
    assert view["state"] == "APPLICATION_CONFIRMED"
    assert view["evidence"] == {"endpoint": "ENDPOINT_ACCEPTED", "application": "CONFIRMED"}
    assert [a["attempt"] for a in view["attempts"]] == [1, 2]
    assert await redeliverer.redeliver_overdue(older_than_s=0) == 0
    assert await dispatch_all(engine) == 0
    assert len(crashed) == 1
    store.close()


async def test_lost_2xx_then_retry_one_effect_one_receipt(
    engine: Engine, api: Api, hooks: HookServer, tenant_token: tuple[str, str]
) -> None:
    tenant, token = tenant_token
    key = SigningKey.generate_ed25519("rk-1")
    app = sdk_app(api, hooks, "lossy", receipt_key=key, gated=True)  # receipts held back
    inner = hooks.handlers["lossy"]
    answered: list[dict[str, Any]] = []

    async def front(request: web.Request) -> web.StreamResponse:
        resp = await inner(request)
        if is_challenge(request):
            return resp
        assert isinstance(resp, web.Response) and resp.body is not None
        answered.append(json.loads(resp.body))  # type: ignore[arg-type]
        if len(answered) == 1:  # applied, but the 2xx never reaches the engine
            lost = web.StreamResponse(status=200, headers={"Content-Length": "100"})
            await lost.prepare(request)
            await lost.write(b"partial")
            assert request.transport is not None
            request.transport.abort()
            return lost
        return resp

    hooks.mount("lossy", front)
    sid = await active_subscription(
        engine, tenant, app.url, receiptKey=receipt_key_body(key), **FAST
    )
    app.sdk.subscription_id = sid
    [d] = (await publish(engine, tenant, "evt-1")).deliveries
    await dispatch_all(engine)
    view = await delivery(engine, tenant, d["deliveryId"])
    assert view["state"] == "UNKNOWN_TRANSPORT", view
    await asyncio.sleep(0.1)
    assert await dispatch_all(engine) == 1  # the retry, same identity
    view = await delivery(engine, tenant, d["deliveryId"])
    assert view["state"] == "ENDPOINT_ACCEPTED"
    assert [a["result"] for a in answered] == ["applied", "duplicate"]
    assert answered[0]["operationId"] == answered[1]["operationId"]
    assert app.gate is not None
    app.gate.set()  # the receipts get through now: the original one and its re-send
    await app.sdk.drain()
    assert app.effects == [("evt-1", 1)]
    assert len({(r.operation_id, r.result, r.applied_at) for r in app.sent}) == 1
    assert sorted((s, a["receipt"]) for s, a in app.answers) == [
        (200, "duplicate"),
        (201, "accepted"),
    ]
    types = await stream_types(engine, f"delivery-{d['deliveryId']}")
    assert types.count("delivery.application_confirmed") == 1
    _, view = await api.call("GET", f"/v1/deliveries/{d['deliveryId']}", token=token)
    assert view["state"] == "APPLICATION_CONFIRMED"
    assert [a["outcome"] for a in view["attempts"]] == ["UNKNOWN_TRANSPORT", "ENDPOINT_ACCEPTED"]
    await asyncio.sleep(0.1)
    assert await dispatch_all(engine) == 0


async def test_out_of_order_versions_are_applied_in_order_and_all_confirmed(
    engine: Engine, api: Api, hooks: HookServer, tenant_token: tuple[str, str]
) -> None:
    tenant, token = tenant_token
    key = SigningKey.generate_ed25519("rk-1")
    app = sdk_app(api, hooks, "ordered", receipt_key=key)
    sid = await active_subscription(engine, tenant, app.url, receiptKey=receipt_key_body(key))
    app.sdk.subscription_id = sid
    ids = []
    for v in (3, 1, 2):
        [d] = (await publish(engine, tenant, f"evt-v{v}", aggregateVersion=v)).deliveries
        ids.append(d["deliveryId"])
    await dispatch_all(engine)
    await app.sdk.drain()
    assert [v for _, v in app.effects] == [1, 2, 3]
    for did in ids:
        _, view = await api.call("GET", f"/v1/deliveries/{did}", token=token)
        assert view["evidence"]["application"] == "CONFIRMED", view


async def test_sdk_verifies_a_real_delivery_with_the_engines_jwks(
    engine: Engine, api: Api, hooks: HookServer, tenant_token: tuple[str, str]
) -> None:
    tenant, _ = tenant_token
    key = SigningKey.generate_ed25519("rk-1")
    app = sdk_app(api, hooks, "verify", receipt_key=key)
    inner = hooks.handlers["verify"]
    captured: list[tuple[list[tuple[str, str]], bytes]] = []

    async def tap(request: web.Request) -> web.StreamResponse:
        if not is_challenge(request):
            captured.append((list(request.headers.items()), await request.read()))
            return web.Response(status=204)
        return await inner(request)

    hooks.mount("verify", tap)
    await active_subscription(engine, tenant, app.url, receiptKey=receipt_key_body(key))
    result = await publish(engine, tenant, "evt-1")
    await dispatch_all(engine)
    [(headers, body)] = captured
    # a fresh resolver fetches the engine's real JWKS over HTTP
    resolver = JwksKeyResolver.for_engine(api.base)
    res = await averify_request("POST", app.url, headers, body, keys=resolver)
    assert res.ok, res
    assert resolver.fetches == 1 and res.key_id in resolver.key_ids
    assert content_digest(body) == result.payload_digest
    tampered = body.replace(b"42", b"43")
    res = await averify_request("POST", app.url, headers, tampered, keys=resolver)
    assert str(res.reason) == "digest_mismatch"
    res = await averify_request("POST", hooks.url("elsewhere"), headers, body, keys=resolver)
    assert str(res.reason) == "bad_signature"
    # and the SDK subscriber itself verified the challenge and the JWKS through the engine
    assert app.sdk.keys.fetches >= 1  # type: ignore[union-attr]
