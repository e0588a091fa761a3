"""A receipt arriving while another dispatcher claims the same delivery: the receipt waits for
the ledger row and then confirms; neither side deadlocks (the fault campaign saw
``DeadlockDetectedError`` as a 500 from ``POST /v1/receipts``)."""

from __future__ import annotations

import asyncio
from typing import Any

from aiohttp import web

from hookproof.engine.delivery.dispatcher import Dispatcher
from hookproof.engine.runtime.daemon import Engine
from hookproof_subscriber import SigningKey, build_challenge_response, build_receipt, sign_receipt
from tests.support import until_a_writer_waits

from .harness import (
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


async def test_receipt_racing_a_claim_of_the_same_delivery_confirms_without_deadlock(
    engine: Engine, api: Api, hooks: HookServer, tenant_token: tuple[str, str]
) -> None:
    tenant, _ = tenant_token
    key = SigningKey.generate_ed25519("rk-1")

    async def fail500(request: Any) -> Any:
        body = await request.read()
        if b'"type":"hookproof.challenge.v1"' in body:
            return web.Response(
                body=build_challenge_response(body, receipt_key=key),
                content_type="application/json",
            )
        return web.Response(status=500)

    hooks.mount("f", fail500)
    sid = await active_subscription(
        engine, tenant, hooks.url("f"), receiptKey=receipt_key_body(key), **FAST
    )
    result = await publish(engine, tenant, "evt-1")
    [d] = result.deliveries
    await dispatch_all(engine)
    assert (await delivery(engine, tenant, d["deliveryId"]))["state"] == "RETRYABLE"

    real = engine.services.dispatcher
    holding, go_on = asyncio.Event(), asyncio.Event()

    async def held_keys(scope: str, alg: str):  # type: ignore[no-untyped-def]
        holding.set()  # B's claiming transaction holds the delivery's row here
        await go_on.wait()
        return await real.key_provider(scope, alg)

    b = Dispatcher(
        engine.store,
        engine.settings,
        key_provider=held_keys,
        destination=real.destination,
        name="B",
    )
    await asyncio.sleep(0.1)  # the retry is due after the policy's 50 ms at most
    claim = asyncio.create_task(b.claim())
    await holding.wait()
    receipt = build_receipt(
        subscription_id=sid,
        event_id="evt-1",
        delivery_id=d["deliveryId"],
        payload_digest=result.payload_digest,
        operation_id="op-1",
        receipt_key_generation=1,
    )
    headers, body = sign_receipt(receipt, url=api.receipts_url, key=key)
    post = asyncio.create_task(api.call("POST", "/v1/receipts", data=body, headers=headers))
    await until_a_writer_waits(engine.pool)  # the receipt waits for B (the row)
    go_on.set()
    claimed, answered = await asyncio.gather(claim, post, return_exceptions=True)
    assert not isinstance(claimed, BaseException), repr(claimed)
    assert [j.row.delivery_id for j in claimed] == [d["deliveryId"]]
    assert not isinstance(answered, BaseException), repr(answered)
    status, doc = answered
    assert status == 201, doc
    assert doc["state"] == "APPLICATION_CONFIRMED"
    types = await stream_types(engine, f"delivery-{d['deliveryId']}")
    assert types[-2:] == ["delivery.attempt_admitted", "delivery.application_confirmed"], types
