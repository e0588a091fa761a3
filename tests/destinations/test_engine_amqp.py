"""RabbitMQ destinations through the whole engine (DESIGN.md section 13), against a real broker
(HOOKPROOF_TEST_AMQP_URL; skipped, saying why, where none answers; .ci/run requires it): a
subscription created through the API with write-only credentials, its challenge read from a
durable queue and answered by a consumer, deliveries verified by the SDK with the confirmation
recorded; an exchange with no binding never accepted; a confirmation lost between publish and
ack is UNKNOWN_TRANSPORT and then accepted under the same delivery id; a private broker address
refused; the credentials in no log line, event, error body or metric."""

from __future__ import annotations

import asyncio
import json
import secrets
from pathlib import Path
from typing import Any

import aio_pika
import asyncpg
import structlog

from hookproof.config import Settings
from hookproof.engine.runtime.daemon import Engine
from hookproof_subscriber import answer_broker_challenge, verify_broker_message

from .conftest import Rabbit
from .engine_support import Api, ConfirmCutter, dispatch_until, started

FAST_RETRY = {"maxAttempts": 10, "initialDelayS": 0.05, "maxDelayS": 0.1}


def settings_for(tmp: Path, *pairs: tuple[str, int], **kw: Any) -> Settings:
    return Settings(
        data_dir=tmp,
        egress_allow=tuple(pairs),
        dns_servers=(("127.0.0.1", 9),),
        connect_timeout_s=2.0,
        request_timeout_s=3.0,
        **kw,
    )


def sub_body(port: int, rabbit: Rabbit, exchange: str, key: str, **over: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "destination": {
            "type": "amqp",
            "url": f"amqp://{rabbit.host}:{port}/%2F",
            "exchange": exchange,
            "routingKey": key,
            "credentials": {"username": rabbit.username, "password": rabbit.password},
        },
        "topics": ["order.created"],
        "eventVersions": [1],
        "region": "eu",
        "signatureAlgorithm": "ed25519",
        "owner": "team",
        "retryPolicy": FAST_RETRY,
    }
    body.update(over)
    return body


def event(n: int) -> dict[str, Any]:
    return {
        "eventId": f"evt-{n}-{secrets.token_hex(4)}",
        "topic": "order.created",
        "version": "1.0",
        "aggregateId": f"order-{n}",
        "aggregateVersion": 1,
        "occurredAt": "2026-12-01T10:00:00Z",
        "payload": {"n": n},
    }


async def bound_queue(rabbit: Rabbit, exchange: str, key: str) -> tuple[Any, Any]:
    conn = await aio_pika.connect(rabbit.url)
    ch = await conn.channel()
    ex = await ch.declare_exchange(exchange, aio_pika.ExchangeType.DIRECT, durable=True)
    queue = await ch.declare_queue(f"{exchange}.q", durable=True)
    await queue.bind(ex, key)
    return conn, queue


async def take(queue: Any, want: int) -> list[Any]:
    got: list[Any] = []
    async with asyncio.timeout(20):
        while len(got) < want:
            msg = await queue.get(no_ack=True, fail=False)
            if msg is None:
                await asyncio.sleep(0.02)
                continue
            got.append(msg)
    return got


async def activate(engine: Engine, api: Api, token: str, queue: Any, body: dict[str, Any]) -> str:
    status, doc = await api.call("POST", "/v1/subscriptions", token=token, json=body)
    assert status == 201, doc
    assert "credentials" not in doc["destination"] and rabbit_password(body) not in json.dumps(doc)
    sid = doc["id"]
    await engine.drain()
    status, doc = await api.call("GET", f"/v1/subscriptions/{sid}", token=token)
    assert doc["state"] == "PENDING_CHALLENGE", doc
    cid = doc["pendingChallenge"]["challengeId"]
    (msg,) = await take(queue, 1)
    assert msg.message_id == cid
    keys = await engine.services.keyring.resolver()
    answer = await answer_broker_challenge(
        msg.headers, msg.body, doc["destination"]["uri"], keys=keys
    )
    assert answer.ok, answer.reason
    status, out = await api.call("POST", f"/v1/challenges/{cid}/response", data=answer.body)
    assert status == 200 and out["passed"], out
    return str(sid)


async def states(engine: Engine, sid: str) -> list[str]:
    rows = await engine.pool.fetch("SELECT state FROM deliveries WHERE subscription_id = $1", sid)
    return [r["state"] for r in rows]


async def test_deliveries_confirmed_and_verified(
    pool: asyncpg.Pool, tmp_path: Path, rabbit: Rabbit
) -> None:
    name = f"hp-e2e-{secrets.token_hex(4)}"
    conn, queue = await bound_queue(rabbit, name, "orders")
    try:
        pair = (rabbit.host, rabbit.port)
        async with started(pool, settings_for(tmp_path, pair)) as (engine, api):
            token = (await engine.tenants.create("acme")).token
            sid = await activate(
                engine, api, token, queue, sub_body(rabbit.port, rabbit, name, "orders")
            )
            for n in range(6):
                await api.call("POST", "/v1/events", token=token, json=event(n))

            async def accepted() -> bool:
                s = await states(engine, sid)
                return len(s) == 6 and set(s) == {"ENDPOINT_ACCEPTED"}

            await dispatch_until(engine, accepted)
            status, sub = await api.call("GET", f"/v1/subscriptions/{sid}", token=token)
            keys = await engine.services.keyring.resolver()
            got = await take(queue, 6)
            for m in got:
                await verify_broker_message(
                    m.headers, m.body, sub["destination"]["uri"], keys=keys, subscription_id=sid
                )
                assert m.delivery_mode == aio_pika.DeliveryMode.PERSISTENT
                status, doc = await api.call("GET", f"/v1/deliveries/{m.message_id}", token=token)
                broker = doc["attempts"][-1]["broker"]
                assert broker["amqp"]["confirmed"] is True and broker["amqp"]["returned"] is False
                assert broker["peerAddress"] == rabbit.host
            status, audit = await api.call(
                "GET", f"/v1/deliveries/{got[0].message_id}", token=token
            )
            assert status == 200
    finally:
        await conn.close()


async def test_unroutable_is_never_accepted(
    pool: asyncpg.Pool, tmp_path: Path, rabbit: Rabbit
) -> None:
    name = f"hp-e2e-{secrets.token_hex(4)}"
    conn, queue = await bound_queue(rabbit, name, "orders")
    try:
        pair = (rabbit.host, rabbit.port)
        async with started(pool, settings_for(tmp_path, pair)) as (engine, api):
            token = (await engine.tenants.create("acme")).token
            body = sub_body(rabbit.port, rabbit, name, "nobody-binds-this")
            status, doc = await api.call("POST", "/v1/subscriptions", token=token, json=body)
            await engine.drain()
            status, doc = await api.call("GET", f"/v1/subscriptions/{doc['id']}", token=token)
            assert doc["state"] == "PENDING_CHALLENGE" and doc["lastReason"] == "unroutable"
            assert "pendingChallenge" not in doc
    finally:
        await conn.close()


async def test_lost_confirmation_is_unknown_then_accepted_under_the_same_id(
    pool: asyncpg.Pool, tmp_path: Path, rabbit: Rabbit
) -> None:
    name = f"hp-e2e-{secrets.token_hex(4)}"
    conn, queue = await bound_queue(rabbit, name, "orders")
    cutter = ConfirmCutter((rabbit.host, rabbit.port))
    port = await cutter.start()
    try:
        async with started(pool, settings_for(tmp_path, ("127.0.0.1", port))) as (engine, api):
            token = (await engine.tenants.create("acme")).token
            sid = await activate(engine, api, token, queue, sub_body(port, rabbit, name, "orders"))
            await api.call("POST", "/v1/events", token=token, json=event(1))
            delivery_id = await engine.pool.fetchval(
                "SELECT delivery_id FROM deliveries WHERE subscription_id = $1", sid
            )
            cutter.marker = delivery_id.encode()

            async def accepted() -> bool:
                return await states(engine, sid) == ["ENDPOINT_ACCEPTED"]

            await dispatch_until(engine, accepted)
            assert cutter.cuts == 1
            status, doc = await api.call("GET", f"/v1/deliveries/{delivery_id}", token=token)
            first, last = doc["attempts"][0], doc["attempts"][-1]
            assert first["outcome"] == "UNKNOWN_TRANSPORT" and first["broker"]["published"]
            assert last["outcome"] == "ENDPOINT_ACCEPTED" and last["broker"]["amqp"]["confirmed"]
            got = await take(queue, 2)  # the broker kept both publishes: one identity
            assert {m.message_id for m in got} == {delivery_id}
    finally:
        await cutter.close()
        await conn.close()


async def test_private_broker_address_refused(
    pool: asyncpg.Pool, tmp_path: Path, rabbit: Rabbit
) -> None:
    async with started(pool, settings_for(tmp_path)) as (engine, api):
        token = (await engine.tenants.create("acme")).token
        for url, code in (
            ("amqps://10.1.2.3:5671/%2F", "destination_ip_forbidden"),
            ("amqp://127.0.0.1:5672/%2F", "destination_plain_not_allowed"),
            ("amqps://user:pw@broker.example:5671/", "destination_userinfo"),
        ):
            body = sub_body(5671, rabbit, "ex", "rk")
            body["destination"]["url"] = url
            status, doc = await api.call("POST", "/v1/subscriptions", token=token, json=body)
            assert status == 400 and doc["code"] == code, doc
        count = await engine.pool.fetchval(
            "SELECT count(*) FROM events WHERE stream_id LIKE 'subscription-%'"
        )
        assert count == 0


async def test_credentials_never_leave(pool: asyncpg.Pool, tmp_path: Path, rabbit: Rabbit) -> None:
    """A password (the real one, so the broker takes it, plus a marker sent where it is
    refused) appears in no log line, event, error body or metric."""
    name = f"hp-e2e-{secrets.token_hex(4)}"
    conn, queue = await bound_queue(rabbit, name, "orders")
    marker = "pw-" + secrets.token_hex(12)
    try:
        pair = (rabbit.host, rabbit.port)
        scrape = "m-" + secrets.token_hex(8)
        settings = settings_for(tmp_path, pair, env={"HOOKPROOF_METRICS_TOKEN": scrape})
        with structlog.testing.capture_logs() as logs:
            async with started(pool, settings) as (engine, api):
                token = (await engine.tenants.create("acme")).token
                sid = await activate(
                    engine, api, token, queue, sub_body(rabbit.port, rabbit, name, "orders")
                )
                await api.call("POST", "/v1/events", token=token, json=event(1))
                bodies = []
                # a wrong password: the broker refuses it; the failure is recorded
                bad = sub_body(rabbit.port, rabbit, name, "orders")
                bad["destination"]["credentials"]["password"] = marker
                status, doc = await api.call("POST", "/v1/subscriptions", token=token, json=bad)
                bodies.append(json.dumps(doc))
                await engine.drain()
                # refused input carrying the marker
                for broken in (
                    {**bad["destination"], "url": "amqps://10.0.0.1/"},
                    {**bad["destination"], "credentials": {"password": marker}},
                    {
                        **bad["destination"],
                        "credentials": {"username": "u", "password": marker, "x": 1},
                    },
                ):
                    status, doc = await api.call(
                        "POST",
                        "/v1/subscriptions",
                        token=token,
                        json={**bad, "destination": broken},
                    )
                    assert status == 400
                    bodies.append(json.dumps(doc))
                for _ in range(3):
                    await engine.services.dispatcher.run_once()
                    await engine.services.dispatcher.drain()
                status, doc = await api.call("GET", f"/v1/subscriptions/{sid}", token=token)
                bodies.append(json.dumps(doc))
                status, text = await api.call(
                    "GET", "/metrics", headers={"Authorization": f"Bearer {scrape}"}
                )
                assert status == 200
                metrics = text if isinstance(text, str) else json.dumps(text)
                rows = await engine.pool.fetch(
                    "SELECT convert_from(data, 'UTF8') || convert_from(metadata, 'UTF8') AS d FROM events"
                )
                events = [r["d"] for r in rows]
        assert any(e for e in events if "credentialsDigest" in e or "credentials_digest" in e)
        lines = [json.dumps(entry, default=str) for entry in logs]
        for secret in (marker, rabbit.password if len(rabbit.password) > 5 else marker):
            for where, texts in (("log", lines), ("event", events), ("error", bodies)):
                assert not any(secret in t for t in texts), where
            assert secret not in metrics
    finally:
        await conn.close()


def rabbit_password(body: dict[str, Any]) -> str:
    return str(body["destination"]["credentials"]["password"])


async def drain(queue: Any) -> list[Any]:
    """Every message the queue holds now (none left behind)."""
    got: list[Any] = []
    while (msg := await queue.get(no_ack=True, fail=False)) is not None:
        got.append(msg)
    return got


async def test_old_generations_never_reach_a_new_destination(
    pool: asyncpg.Pool, tmp_path: Path, rabbit: Rabbit
) -> None:
    """Fencing through RabbitMQ: deliveries planned for generation 1 (the old exchange) and
    still pending when a PATCH moves the subscription to a new exchange (generation 2) never
    arrive at the new one; the new queue holds generation 2's deliveries only, each under its
    own delivery id, and whatever reached the old queue is generation 1's."""
    old, new = f"hp-old-{secrets.token_hex(4)}", f"hp-new-{secrets.token_hex(4)}"
    old_conn, old_queue = await bound_queue(rabbit, old, "orders")
    new_conn, new_queue = await bound_queue(rabbit, new, "orders")
    try:
        pair = (rabbit.host, rabbit.port)
        async with started(pool, settings_for(tmp_path, pair)) as (engine, api):
            token = (await engine.tenants.create("acme")).token
            sid = await activate(
                engine, api, token, old_queue, sub_body(rabbit.port, rabbit, old, "orders")
            )
            for n in range(4):  # planned for generation 1, not yet dispatched
                await api.call("POST", "/v1/events", token=token, json=event(n))
            patch = {"destination": sub_body(rabbit.port, rabbit, new, "orders")["destination"]}
            status, doc = await api.call(
                "PATCH",
                f"/v1/subscriptions/{sid}",
                token=token,
                json=patch,
                headers={"If-Match": '"1"'},
            )
            assert status == 200 and doc["generation"] == 2, doc
            await engine.drain()
            status, doc = await api.call("GET", f"/v1/subscriptions/{sid}", token=token)
            cid = doc["pendingChallenge"]["challengeId"]
            (challenge,) = await take(new_queue, 1)
            assert challenge.message_id == cid
            keys = await engine.services.keyring.resolver()
            answer = await answer_broker_challenge(
                challenge.headers, challenge.body, doc["destination"]["uri"], keys=keys
            )
            status, out = await api.call("POST", f"/v1/challenges/{cid}/response", data=answer.body)
            assert status == 200 and out["passed"], out
            for n in range(4, 8):
                await api.call("POST", "/v1/events", token=token, json=event(n))

            async def settled() -> bool:
                rows = await engine.pool.fetch(
                    "SELECT state FROM deliveries WHERE subscription_id = $1", sid
                )
                return len(rows) == 8 and all(
                    r["state"] in ("ENDPOINT_ACCEPTED", "QUARANTINED") for r in rows
                )

            await dispatch_until(engine, settled)
            generation = {
                r["delivery_id"]: r["generation"]
                for r in await engine.pool.fetch(
                    "SELECT delivery_id, generation, state FROM deliveries"
                    " WHERE subscription_id = $1",
                    sid,
                )
            }
            accepted_new = {
                r["delivery_id"]
                for r in await engine.pool.fetch(
                    "SELECT delivery_id FROM deliveries WHERE subscription_id = $1"
                    " AND generation = 2 AND state = 'ENDPOINT_ACCEPTED'",
                    sid,
                )
            }
            assert len(accepted_new) == 4
            await asyncio.sleep(0.2)  # anything in flight would have been confirmed by now
            on_new = await drain(new_queue)
            on_old = await drain(old_queue)
            assert {m.message_id for m in on_new} == accepted_new
            assert {m.headers["hookproof-generation"] for m in on_new} == {"2"}
            assert all(generation[m.message_id] == 2 for m in on_new)
            assert all(generation[m.message_id] == 1 for m in on_old)
            assert {m.headers["hookproof-generation"] for m in on_old} <= {"1"}
    finally:
        await old_conn.close()
        await new_conn.close()
