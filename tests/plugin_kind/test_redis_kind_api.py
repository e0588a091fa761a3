"""The kind installed from outside hookproof (``tests/plugin_kind``) through the whole API of a
real ``hookproof serve`` process: ``POST /v1/subscriptions`` accepts its ``destination``
(checked against the fields it declares; its write-only member sealed and shown only as a
digest), the challenge is published through the kind into a real Redis stream and answered
at ``POST /v1/challenges/{id}/response``, an event is delivered there, and the delivery view
and ``hookproof audit delivery`` show the entry id Redis assigned. An unknown kind is a 400
``unknown_destination_type`` listing the installed kinds."""

from __future__ import annotations

import asyncio
import base64
import json
import secrets
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from hookproof_subscriber import build_challenge_response

from ..daemon import Daemon, run_cli, start_daemon
from .test_redis_kind import REDIS, redis, redis_up  # noqa: F401 (a fixture)

PASSWORD = "s3cret-" + secrets.token_hex(8)


def resp(data: bytes, at: int = 0) -> tuple[Any, int]:
    """One RESP value of *data* from *at*, and where the next starts."""
    end = data.index(b"\r\n", at)
    kind, head = data[at : at + 1], data[at + 1 : end]
    if kind == b"*":
        items = []
        at = end + 2
        for _ in range(int(head)):
            item, at = resp(data, at)
            items.append(item)
        return items, at
    if kind == b"$":
        size = int(head)
        return data[end + 2 : end + 2 + size], end + 4 + size
    return head, end + 2


async def entries(stream: str, want: int) -> list[tuple[str, dict[bytes, bytes]]]:
    """The stream's entries (id, fields) once it holds *want* of them."""
    for _ in range(200):
        reply, _ = resp(await redis(b"XRANGE", stream.encode(), b"-", b"+"))
        if len(reply) >= want:
            return [(e[0].decode(), dict(zip(e[1][::2], e[1][1::2], strict=True))) for e in reply]
        await asyncio.sleep(0.1)
    raise AssertionError(f"{stream} never held {want} entries")


@pytest.fixture
async def daemon(db_url: str, tmp_path: Path, redis_up: None) -> AsyncIterator[Daemon]:  # noqa: F811
    env = {
        "HOOKPROOF_DATABASE_URL": db_url,
        "HOOKPROOF_DATA_DIR": str(tmp_path),
        "HOOKPROOF_MASTER_KEY": base64.urlsafe_b64encode(b"k" * 32).decode().rstrip("="),
        "HOOKPROOF_EGRESS_ALLOW": f"{REDIS[0]}:{REDIS[1]}",
        "HOOKPROOF_DNS_SERVERS": "127.0.0.1:9",
        "HOOKPROOF_CONNECT_TIMEOUT": "1",
        "HOOKPROOF_REQUEST_TIMEOUT": "2",
    }
    d = await asyncio.to_thread(start_daemon, env, tmp_path)
    d.env = env  # type: ignore[attr-defined]
    try:
        yield d
    finally:
        await asyncio.to_thread(d.stop)


async def test_a_kind_from_outside_through_the_whole_api(daemon: Daemon) -> None:
    env: dict[str, str] = daemon.env  # type: ignore[attr-defined]
    created = await asyncio.to_thread(run_cli, ["tenant", "create", "acme", "--json"], env)
    token = json.loads(created.stdout.strip().splitlines()[-1])["token"]
    base = daemon.base_url
    stream = f"hookproof-test-{secrets.token_hex(4)}"
    url = f"redis://{REDIS[0]}:{REDIS[1]}"
    sub: dict[str, Any] = {
        "topics": ["orders"],
        "eventVersions": [1],
        "region": "eu",
        "signatureAlgorithm": "ed25519",
        "owner": "ops",
    }
    http = aiohttp.ClientSession(headers={"Authorization": f"Bearer {token}"})
    try:
        # an unknown kind: 400 listing what is installed; a member the kind lacks or misses
        for dest, code, where in (
            ({"type": "pigeon", "url": url}, "unknown_destination_type", "destination.type"),
            ({"type": "redis", "url": url}, "destination_invalid", "destination.stream"),
            (
                {"type": "redis", "url": url, "stream": "s", "db": 1},
                "destination_invalid",
                "destination.db",
            ),
            (
                {"type": "redis", "url": "https://x.example", "stream": "s"},
                "destination_url_invalid",
                "destination.url",
            ),
            (
                {"type": "redis", "url": url, "stream": 7},
                "destination_invalid",
                "destination.stream",
            ),
        ):
            async with http.post(
                f"{base}/v1/subscriptions", json={**sub, "destination": dest}
            ) as r:
                problem = await r.json()
                assert r.status == 400, problem
                assert (problem["code"], problem.get("field")) == (code, where), problem
        assert "redis" in problem_kinds(await _unknown(http, base, sub))
        # the served document describes the kind's object, from the registry
        async with http.get(f"{base}/openapi.json") as r:
            schemas = (await r.json())["components"]["schemas"]
        declared = schemas["KindDestinationIn_redis"]
        assert declared["required"] == ["type", "url", "stream"]
        assert declared["properties"]["password"]["writeOnly"] is True
        assert "redis" in schemas["DestinationView"]["properties"]["type"]["enum"]

        # the write-only member: sealed, shown as a digest, opened for the kind's adapter only
        # (this Redis has no password, so the AUTH it sends first is refused)
        dest = {"type": "redis", "url": url, "stream": stream, "password": PASSWORD}
        async with http.post(f"{base}/v1/subscriptions", json={**sub, "destination": dest}) as r:
            text = await r.text()
            assert r.status == 201, text
            view = json.loads(text)
        assert PASSWORD not in text
        shown = view["destination"]
        assert shown["type"] == "redis" and shown["stream"] == stream and shown["url"] == url
        assert shown["uri"] == view["endpoint"] == f"{url}/{stream}"
        assert "password" not in shown and shown["credentialsDigest"].startswith("hmac-sha256:")
        refused = await until(http, f"{base}/v1/subscriptions/{view['id']}", "lastReason")
        assert refused["lastReason"] == "redis_auth_failed", refused
        assert refused["state"] == "PENDING_CHALLENGE" and await entries(stream, 0) == []

        dest = {"type": "redis", "url": url, "stream": stream}
        async with http.post(f"{base}/v1/subscriptions", json={**sub, "destination": dest}) as r:
            assert r.status == 201, await r.text()
            view = await r.json()
        sid = view["id"]
        assert view["destination"]["credentialsDigest"] is None

        # the challenge arrives in the stream, signed; the consumer answers it at the API
        [(_, challenge)] = await entries(stream, 1)
        headers = json.loads(challenge[b"headers"])
        assert {k.lower() for k in headers} >= {"signature-input", "signature"}
        doc = json.loads(challenge[b"body"])
        assert doc["type"] == "hookproof.challenge.v1" and doc["subscriptionId"] == sid
        answer = build_challenge_response(challenge[b"body"])
        async with aiohttp.ClientSession() as anyone:
            async with anyone.post(
                f"{base}/v1/challenges/{doc['challengeId']}/response", data=answer
            ) as r:
                out = await r.json()
                assert r.status == 200 and out["passed"], out
        async with http.get(f"{base}/v1/subscriptions/{sid}") as r:
            assert (await r.json())["state"] == "ACTIVE"

        event = {
            "eventId": "evt-1",
            "topic": "orders",
            "version": "1.0",
            "aggregateId": "a",
            "aggregateVersion": 1,
            "occurredAt": "2026-12-01T10:00:00Z",
            "payload": {"n": 1},
        }
        async with http.post(f"{base}/v1/events", json=event) as r:
            assert r.status == 202, await r.text()
            [planned] = (await r.json())["deliveries"]
        did = planned["deliveryId"]
        seen = await entries(stream, 2)
        entry_id, delivered = seen[1]
        assert json.loads(delivered[b"body"])["eventId"] == "evt-1"
        view = await settled(http, f"{base}/v1/deliveries/{did}")
        assert view["state"] == "ENDPOINT_ACCEPTED", view
        [attempt] = view["attempts"]
        assert attempt["broker"]["redis"]["entryId"] == entry_id, attempt
        assert attempt["peerAddress"] == f"{REDIS[0]}:{REDIS[1]}"

        audit = await asyncio.to_thread(run_cli, ["audit", "delivery", did, "--json"], env)
        assert audit.returncode == 0, audit.stderr
        assert entry_id in audit.stdout and "ENDPOINT_ACCEPTED" in audit.stdout
        assert PASSWORD not in daemon.log_path.read_text()
    finally:
        await http.close()
        await redis(b"DEL", stream.encode())


async def _unknown(http: aiohttp.ClientSession, base: str, sub: dict[str, Any]) -> Any:
    body = {**sub, "destination": {"type": "pigeon"}}
    async with http.post(f"{base}/v1/subscriptions", json=body) as r:
        return await r.json()


def problem_kinds(problem: Any) -> list[str]:
    return list(problem["installedKinds"])


async def until(http: aiohttp.ClientSession, url: str, member: str) -> Any:
    for _ in range(200):
        async with http.get(url) as r:
            view = await r.json()
        if view.get(member) is not None:
            return view
        await asyncio.sleep(0.1)
    raise AssertionError(f"{url} never showed {member}")


async def settled(http: aiohttp.ClientSession, url: str) -> Any:
    for _ in range(200):
        async with http.get(url) as r:
            view = await r.json()
        if view["state"] in ("DEAD_LETTER", "ENDPOINT_ACCEPTED"):
            return view
        await asyncio.sleep(0.1)
    raise AssertionError(f"{url} never settled")
