"""``hookproof listen`` end to end: a real engine (``serve --workers 2``: the relay's
WebSocket lands on one worker, attempts are claimed on either), the CLI as a real process, a
local receiver on the subscriber SDK that verifies every signature and sends receipts."""

from __future__ import annotations

import asyncio
import signal
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import aiohttp
import asyncpg
import pytest

from .harness import Listener, Receiver, engine_env, start_engine, tenant

TOPIC = "order.created"


async def _publish(http: aiohttp.ClientSession, base: str, ids: list[str]) -> list[str]:
    deliveries = []
    for eid in ids:
        body = {
            "eventId": eid,
            "topic": TOPIC,
            "version": "1.0",
            "aggregateId": f"agg-{eid}",
            "aggregateVersion": 1,
            "occurredAt": datetime.now(UTC).isoformat(),
            "payload": {"id": eid},
        }
        async with http.post(f"{base}/v1/events", json=body) as r:
            assert r.status == 202, await r.text()
            [d] = (await r.json())["deliveries"]
            deliveries.append(d["deliveryId"])
    return deliveries


async def _view(http: aiohttp.ClientSession, base: str, did: str) -> dict[str, Any]:
    async with http.get(f"{base}/v1/deliveries/{did}") as r:
        assert r.status == 200
        return dict(await r.json())


async def _relay_subscription(
    http: aiohttp.ClientSession, base: str, receiver: Receiver
) -> dict[str, Any]:
    body = {
        "endpoint": receiver.url,
        "topics": [TOPIC],
        "eventVersions": [1],
        "region": "local",
        "signatureAlgorithm": "ed25519",
        "owner": "dev",
        "receiptKey": receiver.receipt_key(),
        "destination": {"type": "relay"},
        "retryPolicy": {"initialDelayS": 0.2, "maxDelayS": 1.0, "maxAttempts": 100},
    }
    async with http.post(f"{base}/v1/subscriptions", json=body) as r:
        assert r.status == 201, await r.text()
        return dict(await r.json())


async def _accepted_attempts(pool: asyncpg.Pool) -> list[tuple[str, int, str]]:
    rows = await pool.fetch(
        "SELECT convert_from(data, 'UTF8')::jsonb AS d FROM events"
        " WHERE type = 'delivery.endpoint_accepted'"
    )
    out = []
    for r in rows:
        d = r["d"] if isinstance(r["d"], dict) else __import__("json").loads(r["d"])
        out.append((d["delivery_id"], int(d["attempt"]), d["peer_address"]))
    return out


async def test_deliveries_reach_the_local_receiver_through_the_relay_and_survive_a_kill(
    db_url: str, pool: asyncpg.Pool, tmp_path: Path
) -> None:
    env = engine_env(db_url, tmp_path, HOOKPROOF_WORKERS="2")
    daemon = await start_engine(env, tmp_path)
    base = daemon.base_url
    receiver = Receiver(base)
    await receiver.start()
    listeners: list[Listener] = []
    try:
        token = await tenant(env, "acme")
        async with aiohttp.ClientSession(headers={"Authorization": f"Bearer {token}"}) as http:
            sub = await _relay_subscription(http, base, receiver)
            sid = sub["id"]
            assert sub["destination"] == {"type": "relay"}
            assert sub["state"] == "PENDING_CHALLENGE"  # challenged when a relay attaches
            args = ["--to", receiver.url, "--topics", TOPIC, "--engine", base]
            cli_env = {"HOOKPROOF_TOKEN": token}
            first = Listener.start(args, cli_env)
            listeners.append(first)
            # the same --to and topics: the subscription is reused, not made again
            assert await first.first_line() == f"listening {sid} -> {receiver.url}"

            async def state() -> str:
                async with http.get(f"{base}/v1/subscriptions/{sid}") as r:
                    return str((await r.json())["state"])

            for _ in range(600):
                if await state() == "ACTIVE":
                    break
                await asyncio.sleep(0.1)
            async with http.get(f"{base}/v1/subscriptions/{sid}/history") as r:
                history = (await r.json())["items"]
            assert await state() == "ACTIVE", (history, first.lines, daemon.log()[-3000:])
            [passed] = [e for e in history if e["type"] == "subscription.challenge_passed"]
            assert passed["data"]["peer_address"].startswith("relay:rs_")  # through the relay

            ids = [f"evt-{i}" for i in range(8)]
            dids = await _publish(http, base, ids)

            async def reported(did: str) -> bool:
                view = await _view(http, base, did)
                return bool(view["evidence"]["endpoint"] == "RELAY_REPORTED")

            for did in dids:
                for _ in range(600):
                    if await reported(did):
                        break
                    await asyncio.sleep(0.1)
                assert await reported(did)

            # the CLI is killed mid-run: deliveries made meanwhile wait under the retry policy
            await first.stop(signal.SIGKILL)
            more = [f"evt-{i}" for i in range(8, 16)]
            later = await _publish(http, base, more)

            async def waiting_code() -> set[str]:
                codes = set()
                for did in later:
                    view = await _view(http, base, did)
                    if view["state"] in ("RETRYABLE", "UNKNOWN_TRANSPORT"):
                        codes.add(view["lastCode"])
                return codes

            for _ in range(600):
                if "relay_not_attached" in await waiting_code():
                    break
                await asyncio.sleep(0.1)
            assert "relay_not_attached" in await waiting_code()

            second = Listener.start(args, cli_env)
            listeners.append(second)
            assert await second.first_line() == f"listening {sid} -> {receiver.url}"
            for did in dids + later:
                for _ in range(900):
                    if await reported(did):
                        break
                    await asyncio.sleep(0.1)
                assert await reported(did)
            await receiver.sdk.drain()

            views = [await _view(http, base, did) for did in dids + later]
            assert await second.stop(signal.SIGTERM) == 0  # SIGTERM ends it cleanly
    finally:
        for listener in listeners:
            if listener.proc.poll() is None:
                listener.proc.kill()
                await listener.stop()
        await receiver.stop()
        await asyncio.to_thread(daemon.stop)

    # none lost: every event reached the receiver and was applied once (the SDK dedupes)
    assert sorted(set(receiver.effects)) == sorted(ids + more)
    # every delivery relay-reported, never ENDPOINT_ACCEPTED, with the status the relay saw
    for view in views:
        assert view["evidence"]["endpoint"] == "RELAY_REPORTED"
        assert view["evidence"]["reportedStatus"] == 200
        outcomes = [a["outcome"] for a in view["attempts"]]
        assert "ENDPOINT_ACCEPTED" not in outcomes
        assert outcomes.count("RELAY_REPORTED") == 1
    # each delivery was relay-reported once, and only for an attempt the receiver answered
    # 2xx under that delivery id and attempt number (no report credited to another attempt)
    accepted = await _accepted_attempts(pool)
    per_delivery = Counter(d for d, _, _ in accepted)
    assert set(per_delivery) == set(dids + later) and max(per_delivery.values()) == 1
    answered_ok = {(d, int(a)) for d, a, s in receiver.answers if 200 <= s < 300 and a}
    for did, attempt, peer in accepted:
        assert (did, attempt) in answered_ok
        assert peer.startswith("relay:rs_")
    # the SDK verified every request it answered 2xx: no signature was refused
    assert all(s != 401 for _, _, s in receiver.answers)
    # the relay's session is held by one worker; the attempts it carried were claimed by both
    # (``serve --workers 2``): the Postgres handoff carried them across
    workers = await pool.fetch(
        "SELECT DISTINCT convert_from(data, 'UTF8')::jsonb->>'dispatcher' AS d FROM events"
        " WHERE type = 'delivery.attempt_admitted'"
    )
    assert len(workers) == 2, [r["d"] for r in workers]


@pytest.mark.solo  # a CLI process, two sessions and their exits: alone, after the parallel part
async def test_only_the_owner_attaches_and_a_second_attach_replaces_the_first(
    db_url: str, tmp_path: Path
) -> None:
    env = engine_env(db_url, tmp_path)
    daemon = await start_engine(env, tmp_path)
    base = daemon.base_url
    receiver = Receiver(base)
    try:
        owner = await tenant(env, "acme")
        other = await tenant(env, "globex")
        cli = Listener.start(
            ["--to", receiver.url, "--engine", base, "--token", owner, "--json"], {}
        )
        line = await cli.first_line()
        doc = __import__("json").loads(line)
        assert doc["to"] == receiver.url
        sid = doc["subscriptionId"]
        url = f"{base}/v1/relay/{sid}"
        async with aiohttp.ClientSession() as http:
            # another tenant's token: 404, as for any subscription not its own
            with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
                await http.ws_connect(url, headers={"Authorization": f"Bearer {other}"})
            assert refused.value.status == 404
            with pytest.raises(aiohttp.WSServerHandshakeError) as anonymous:
                await http.ws_connect(url)
            assert anonymous.value.status == 401
            # registration: a relay's endpoint is loopback http only, and a relay has no url
            auth = {"Authorization": f"Bearer {owner}"}
            base_body = {
                "topics": ["t"],
                "eventVersions": [1],
                "region": "local",
                "signatureAlgorithm": "ed25519",
                "owner": "dev",
            }
            for endpoint, destination, code in (
                ("http://192.0.2.9/x", {"type": "relay"}, "endpoint_relay_not_loopback"),
                ("https://localhost/x", {"type": "relay"}, "endpoint_relay_scheme"),
                ("http://localhost/x", None, "endpoint_scheme_not_https"),
                ("http://localhost/x", {"type": "relay", "url": "x"}, "destination_invalid"),
            ):
                body = {**base_body, "endpoint": endpoint, "destination": destination}
                async with http.post(f"{base}/v1/subscriptions", json=body, headers=auth) as r:
                    assert r.status == 400, (endpoint, await r.text())
                    assert (await r.json())["code"] == code, (endpoint, await r.text())
            # a plain GET (no upgrade) and a malformed id are refused with a 4xx problem
            async with http.get(url, headers={"Authorization": f"Bearer {owner}"}) as r:
                assert 400 <= r.status < 500, r.status
            async with http.get(
                f"{base}/v1/relay/nope", headers={"Authorization": f"Bearer {owner}"}
            ) as r:  # not a subscription id at all: refused before any query
                assert r.status == 400 and (await r.json())["code"] == "invalid_id"
            # the owner attaching again replaces the CLI's session, which ends (exit 3)
            async with http.ws_connect(url, headers={"Authorization": f"Bearer {owner}"}) as ws:
                hello = await ws.receive_json()
                assert hello["type"] == "attached" and hello["subscriptionId"] == sid
                assert await cli.wait() == 3
        assert any('"replaced"' in line for line in cli.lines)
    finally:
        if cli.proc.poll() is None:
            cli.proc.kill()
        await cli.wait()  # its output read, its pipe closed
        await asyncio.to_thread(daemon.stop)


@pytest.mark.parametrize(
    ("to", "code"),
    [
        ("http://192.0.2.7:3000/webhooks", "endpoint_relay_not_loopback"),
        ("http://hooks.example.com/webhooks", "endpoint_relay_not_loopback"),
        ("https://localhost:3000/webhooks", "endpoint_relay_scheme"),
    ],
)
async def test_a_non_loopback_target_is_refused_before_the_engine_is_asked(
    to: str, code: str
) -> None:
    # the engine URL is a closed port: the refusal must come first, with its own code
    cli = Listener.start(["--to", to, "--engine", "http://127.0.0.1:9", "--token", "hp_x"], {})
    assert await cli.wait() == 2
    assert any(code in line for line in cli.lines), cli.lines
    assert any("loopback" in line or "http://" in line for line in cli.lines)


async def test_a_consumers_portal_session_listens_and_another_consumers_cannot_attach(
    db_url: str, tmp_path: Path
) -> None:
    env = engine_env(db_url, tmp_path)
    daemon = await start_engine(env, tmp_path)
    base = daemon.base_url
    receiver = Receiver(base)
    cli: Listener | None = None
    try:
        token = await tenant(env, "acme")
        portal: dict[str, str] = {}
        async with aiohttp.ClientSession(headers={"Authorization": f"Bearer {token}"}) as http:
            for cid in ("cust-1", "cust-2"):
                async with http.post(f"{base}/v1/consumers", json={"id": cid, "name": cid}) as r:
                    assert r.status == 201, await r.text()
                async with http.post(f"{base}/v1/consumers/{cid}/portal-sessions", json={}) as r:
                    assert r.status == 201, await r.text()
                    portal[cid] = (await r.json())["token"]
        cli = Listener.start(
            ["--to", receiver.url, "--engine", base, "--json"],
            {"HOOKPROOF_TOKEN": portal["cust-1"]},
        )
        sid = __import__("json").loads(await cli.first_line())["subscriptionId"]
        async with aiohttp.ClientSession(headers={"Authorization": f"Bearer {token}"}) as http:
            async with http.get(f"{base}/v1/subscriptions/{sid}") as r:
                view = await r.json()
        assert view["consumerId"] == "cust-1" and view["destination"] == {"type": "relay"}
        url = f"{base}/v1/relay/{sid}"
        async with aiohttp.ClientSession() as http:
            with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
                await http.ws_connect(url, headers={"Authorization": f"Bearer {portal['cust-2']}"})
            assert refused.value.status == 404
        assert cli.proc.poll() is None  # still attached: the refused attempt replaced nothing
        assert await cli.stop(signal.SIGINT) == 0
    finally:
        if cli is not None and cli.proc.poll() is None:
            cli.proc.kill()
        if cli is not None:
            await cli.wait()  # its output read, its pipe closed
        await asyncio.to_thread(daemon.stop)


async def test_the_cli_reconnects_after_the_engine_restarts_and_deliveries_resume(
    db_url: str, tmp_path: Path
) -> None:
    from tests.daemon import free_port, start_daemon

    env = engine_env(db_url, tmp_path)
    port = free_port()
    daemon = await asyncio.to_thread(start_daemon, env, tmp_path, port=port)
    base = daemon.base_url
    receiver = Receiver(base)
    await receiver.start()
    jwk = tmp_path / "receipt.jwk.json"
    jwk.write_text(__import__("json").dumps(receiver.receipt_key()["publicKeyJwk"]))
    cli: Listener | None = None
    try:
        token = await tenant(env, "acme")
        cli = Listener.start(
            [
                "--to",
                receiver.url,
                "--engine",
                base,
                "--topics",
                TOPIC,
                "--receipt-key-id",
                receiver.key.key_id,
                "--receipt-key-jwk",
                str(jwk),
            ],
            {"HOOKPROOF_TOKEN": token},
        )
        line = await cli.first_line()
        sid = line.split()[1]
        async with aiohttp.ClientSession(headers={"Authorization": f"Bearer {token}"}) as http:

            async def state() -> str:
                async with http.get(f"{base}/v1/subscriptions/{sid}") as r:
                    return str((await r.json())["state"])

            for _ in range(600):
                if await state() == "ACTIVE":
                    break
                await asyncio.sleep(0.1)
            assert await state() == "ACTIVE"  # the receipt key's proof, through the relay
        await asyncio.to_thread(daemon.stop)
        daemon = await asyncio.to_thread(start_daemon, env, tmp_path, port=port)
        async with aiohttp.ClientSession(headers={"Authorization": f"Bearer {token}"}) as http:
            [did] = await _publish(http, base, ["evt-after-restart"])
            for _ in range(900):
                view = await _view(http, base, did)
                if view["evidence"]["endpoint"] == "RELAY_REPORTED":
                    break
                await asyncio.sleep(0.1)
            assert view["evidence"]["endpoint"] == "RELAY_REPORTED", view
        await receiver.sdk.drain()
        assert "evt-after-restart" in receiver.effects
        assert "reconnecting" in cli.lines and cli.proc.poll() is None  # the same process
        assert await cli.stop(signal.SIGTERM) == 0
    finally:
        if cli is not None and cli.proc.poll() is None:
            cli.proc.kill()
        if cli is not None:
            await cli.wait()  # its output read, its pipe closed
        await receiver.stop()
        await asyncio.to_thread(daemon.stop)
