"""A broker's refusal reaches the subscription's ``lastReasonDetail`` in the broker's own
words (a real RabbitMQ: a challenge published to an exchange that does not exist), with what
to do, and never the credentials."""

from __future__ import annotations

import secrets
from pathlib import Path

import asyncpg

from .conftest import Rabbit
from .engine_support import dispatch_until, started
from .test_engine_amqp import activate, bound_queue, event, settings_for, sub_body


async def test_a_missing_exchange_is_named_in_last_reason_detail(
    pool: asyncpg.Pool, tmp_path: Path, rabbit: Rabbit
) -> None:
    missing = f"hp-missing-{secrets.token_hex(4)}"
    async with started(pool, settings_for(tmp_path, (rabbit.host, rabbit.port))) as (engine, api):
        token = (await engine.tenants.create("acme")).token
        body = sub_body(rabbit.port, rabbit, missing, "orders")
        status, doc = await api.call("POST", "/v1/subscriptions", token=token, json=body)
        assert status == 201, doc
        await engine.drain()  # the challenge's publish
        status, view = await api.call("GET", f"/v1/subscriptions/{doc['id']}", token=token)
        assert view["state"] == "PENDING_CHALLENGE", view
        assert view["lastReason"] == "broker_refused", view
        detail = view["lastReasonDetail"]
        assert f"NOT_FOUND - no exchange '{missing}'" in detail, detail
        assert "must exist before the subscription" in detail  # what to do
        assert rabbit.password not in detail, detail  # the broker's words, no credential


async def test_a_delivery_to_an_exchange_deleted_since_names_it_in_last_code_detail(
    pool: asyncpg.Pool, tmp_path: Path, rabbit: Rabbit
) -> None:
    name = f"hp-gone-{secrets.token_hex(4)}"
    conn, queue = await bound_queue(rabbit, name, "orders")
    try:
        pair = (rabbit.host, rabbit.port)
        async with started(pool, settings_for(tmp_path, pair)) as (engine, api):
            token = (await engine.tenants.create("acme")).token
            body = sub_body(rabbit.port, rabbit, name, "orders")
            sid = await activate(engine, api, token, queue, body)
            channel = await conn.channel()
            await channel.exchange_delete(name)  # the operator removed it since
            status, out = await api.call("POST", "/v1/events", token=token, json=event(1))
            assert status == 202, out
            [did] = [d["deliveryId"] for d in out["deliveries"] if d["subscriptionId"] == sid]

            async def refused() -> bool:
                _, view = await api.call("GET", f"/v1/deliveries/{did}", token=token)
                return bool(view.get("lastCode") == "broker_refused")

            await dispatch_until(engine, refused)
            _, view = await api.call("GET", f"/v1/deliveries/{did}", token=token)
            detail = view["lastCodeDetail"]
            assert f"NOT_FOUND - no exchange '{name}'" in detail, detail
            assert "must exist before the subscription" in detail
            assert rabbit.password not in detail
    finally:
        await conn.close()
