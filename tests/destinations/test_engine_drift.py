"""Pin drift on a broker address, through the whole engine (DESIGN.md sections 5 and 13): the
broker's host name is resolved by a real DNS server on loopback; the challenge pins what it
answered; when the answer changes afterwards, the next delivery is not sent to the new address
(no socket is opened to it, nothing reaches the stream) and the subscription is SUSPENDED with
a ``DriftDetected`` event, as an HTTPS subscription is (``tests/challenge/test_drift.py``).
Getting back takes ``resume`` and a new challenge answered by the consumer; the held delivery
then arrives under its own id.

Real parts only: the embedded NATS JetStream server, RabbitMQ (HOOKPROOF_TEST_AMQP_URL), the
DNS server, Postgres, the engine."""

from __future__ import annotations

import asyncio
import secrets
from pathlib import Path
from typing import Any

import asyncpg
import nats
import pytest

from hookproof.config import Settings
from hookproof.engine.cli.embedded_nats import EmbeddedNats
from hookproof.engine.runtime.daemon import Engine
from hookproof_subscriber import answer_broker_challenge
from tests.egress.conftest import DnsServer, SocketGuard

from .conftest import Rabbit
from .engine_support import Api, started
from .test_engine_amqp import activate, bound_queue, take
from .test_engine_amqp import sub_body as amqp_body
from .test_engine_nats import event, messages, new_stream, sub_body

HOST = "broker.test"


def settings_for(tmp: Path, dns: DnsServer, *pairs: tuple[str, int]) -> Settings:
    return Settings(
        data_dir=tmp,
        egress_allow=tuple(pairs),
        dns_servers=(("127.0.0.1", dns.port),),
        connect_timeout_s=2.0,
        request_timeout_s=3.0,
    )


async def answer_pending(
    engine: Engine, api: Api, token: str, js: Any, sid: str, stream: str
) -> None:
    """The consumer reads the pending challenge from the stream and answers it."""
    await engine.drain()
    status, doc = await api.call("GET", f"/v1/subscriptions/{sid}", token=token)
    assert doc["state"] == "PENDING_CHALLENGE", doc
    cid = doc["pendingChallenge"]["challengeId"]
    msg = next(m for m in await messages(js, stream) if m.headers["hookproof-delivery-id"] == cid)
    keys = await engine.services.keyring.resolver()
    answer = await answer_broker_challenge(
        msg.headers, msg.data, doc["destination"]["uri"], keys=keys
    )
    status, out = await api.call("POST", f"/v1/challenges/{cid}/response", data=answer.body)
    assert status == 200 and out["passed"], out


async def history(engine: Engine, sid: str) -> list[Any]:
    return [e.decode() for e in await engine.store.read_stream(f"subscription-{sid}")]


async def dispatch(engine: Engine, rounds: int = 3) -> None:
    d = engine.services.dispatcher
    for _ in range(rounds):
        await d.run_once()
        await d.drain()


@pytest.mark.parametrize(
    ("answers", "reason"),
    [
        (["10.0.0.7"], "dns_rebinding_denied"),  # rebound into a denied range
        (["127.0.0.1", "169.254.169.254"], "dns_rebinding_denied"),  # a good one excuses nothing
        (["127.0.0.2"], "address_set_changed"),  # moved to another allowed address
    ],
)
async def test_broker_address_drift_suspends_before_anything_is_sent(
    pool: asyncpg.Pool,
    tmp_path: Path,
    nats_server: EmbeddedNats,
    dns: DnsServer,
    socket_guard: SocketGuard,
    answers: list[str],
    reason: str,
) -> None:
    port = nats_server.port
    dns.records[HOST] = ["127.0.0.1"]
    nc = await nats.connect(nats_server.url, allow_reconnect=False)
    js = nc.jetstream()
    tag = secrets.token_hex(3)
    stream = await new_stream(js, f"d{tag}.>")
    # 127.0.0.2 is an allowed pair too: only the pin stands between it and the engine
    settings = settings_for(tmp_path, dns, ("127.0.0.1", port), ("127.0.0.2", port))
    try:
        async with started(pool, settings) as (engine, api):
            token = (await engine.tenants.create("acme")).token
            body = sub_body(f"nats://{HOST}:{port}", f"d{tag}.in", stream)
            status, doc = await api.call("POST", "/v1/subscriptions", token=token, json=body)
            assert status == 201, doc
            sid = doc["id"]
            await answer_pending(engine, api, token, js, sid, stream)
            state = await engine.subscriptions.load(sid)
            assert state is not None and state.pinned_addresses == ("127.0.0.1",)

            # delivered while the answer holds (the pooled connection stays open)
            await api.call("POST", "/v1/events", token=token, json=event(1))
            await dispatch(engine)
            (first,) = await engine.pool.fetch(
                "SELECT delivery_id, state FROM deliveries WHERE subscription_id = $1", sid
            )
            assert first["state"] == "ENDPOINT_ACCEPTED"
            stored_before = len(await messages(js, stream))

            dns.records[HOST] = answers
            attempts_before = list(socket_guard.attempts)
            await api.call("POST", "/v1/events", token=token, json=event(2))
            held = await engine.pool.fetchval(
                "SELECT delivery_id FROM deliveries WHERE subscription_id = $1"
                " AND delivery_id <> $2",
                sid,
                first["delivery_id"],
            )
            await dispatch(engine)

            # nothing sent: no connect to the broker's port, nothing new in the stream
            connects = socket_guard.attempts[len(attempts_before) :]
            assert [c for c in connects if c[1] == port] == [], connects
            assert socket_guard.refused == []
            assert len(await messages(js, stream)) == stored_before
            row = await engine.pool.fetchrow(
                "SELECT state, last_code FROM deliveries WHERE delivery_id = $1", held
            )
            assert row["state"] != "ENDPOINT_ACCEPTED", dict(row)
            status, doc = await api.call("GET", f"/v1/deliveries/{held}", token=token)
            attempt = doc["attempts"][0]
            assert attempt["broker"]["published"] is False
            # the tenant is not told what the engine's resolver answered (one code for both)
            assert attempt["broker"]["code"] == "endpoint_ip_forbidden"

            # suspended, with the drift as evidence, in one append
            status, doc = await api.call("GET", f"/v1/subscriptions/{sid}", token=token)
            assert doc["state"] == "SUSPENDED" and doc["lastReason"] == reason, doc
            events = await history(engine, sid)
            drifts = [e for e in events if type(e).__name__ == "DriftDetected"]
            assert [d.reason for d in drifts] == [reason]
            assert set(drifts[0].addresses) == set(answers)

            # more dispatching changes nothing: no second suspension, still nothing sent
            await dispatch(engine)
            again = [e for e in await history(engine, sid) if type(e).__name__ == "DriftDetected"]
            assert len(again) == 1
            assert len(await messages(js, stream)) == stored_before

            # back: the name answers the broker again, resume, the consumer answers the new
            # challenge; the held delivery arrives under its own id
            dns.records[HOST] = ["127.0.0.1"]
            status, doc = await api.call("POST", f"/v1/subscriptions/{sid}/resume", token=token)
            assert status == 200, doc
            await answer_pending(engine, api, token, js, sid, stream)
            for _ in range(40):
                await dispatch(engine, 1)
                got = await engine.pool.fetchval(
                    "SELECT state FROM deliveries WHERE delivery_id = $1", held
                )
                if got == "ENDPOINT_ACCEPTED":
                    break
                await asyncio.sleep(0.1)
            assert got == "ENDPOINT_ACCEPTED"
            ids = [m.headers.get("hookproof-delivery-id") for m in await messages(js, stream)]
            assert ids.count(held) == 1
    finally:
        await nc.close()


async def test_rabbitmq_address_rebound_to_a_denied_range_suspends_before_any_publish(
    pool: asyncpg.Pool,
    tmp_path: Path,
    rabbit: Rabbit,
    dns: DnsServer,
    socket_guard: SocketGuard,
) -> None:
    """The same through RabbitMQ: the pooled AMQP connection to the pinned address stays
    open, yet nothing is published on it once the name answers a denied address."""
    dns.records[HOST] = [rabbit.host]
    name = f"hp-drift-{secrets.token_hex(4)}"
    conn, queue = await bound_queue(rabbit, name, "orders")
    try:
        settings = settings_for(tmp_path, dns, (rabbit.host, rabbit.port))
        async with started(pool, settings) as (engine, api):
            token = (await engine.tenants.create("acme")).token
            body = amqp_body(rabbit.port, rabbit, name, "orders")
            body["destination"]["url"] = f"amqp://{HOST}:{rabbit.port}/%2F"
            sid = await activate(engine, api, token, queue, body)
            await api.call("POST", "/v1/events", token=token, json=event(1))
            await dispatch(engine)
            assert [m.headers["hookproof-generation"] for m in await take(queue, 1)] == ["1"]

            dns.records[HOST] = ["10.0.0.7"]
            before = list(socket_guard.attempts)
            await api.call("POST", "/v1/events", token=token, json=event(2))
            await dispatch(engine)
            assert [c for c in socket_guard.attempts[len(before) :] if c[1] == rabbit.port] == []
            await asyncio.sleep(0.2)
            assert await queue.get(no_ack=True, fail=False) is None  # nothing published
            status, doc = await api.call("GET", f"/v1/subscriptions/{sid}", token=token)
            assert doc["state"] == "SUSPENDED" and doc["lastReason"] == "dns_rebinding_denied"
            states = await engine.pool.fetch(
                "SELECT state FROM deliveries WHERE subscription_id = $1", sid
            )
            accepted = [r for r in states if r["state"] == "ENDPOINT_ACCEPTED"]
            assert len(states) == 2 and len(accepted) == 1  # the second one is held
    finally:
        await conn.close()
