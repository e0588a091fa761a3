"""Issue 23 from outside: one endpoint's stale bytes never become another tenant's evidence.

A real engine (real Postgres, the real pinned transport and recording path) delivers to one
HTTPS origin on loopback served by a raw asyncio/ssl server that misbehaves on purpose:
tenant A's endpoint ``/a`` answers 200 and, 0.3 s later, writes an unsolicited
``HTTP/1.1 200`` on the idle keep-alive connection; tenant B's endpoint ``/b`` always answers
500. B's deliveries are never accepted, every recorded attempt's status is the one the server
sent for that attempt's request, and a new challenge on that origin still passes.
"""

from __future__ import annotations

import asyncio
import ssl
from collections.abc import AsyncIterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import pytest
import trustme

from hookproof.config import Settings
from hookproof.engine.runtime.daemon import Engine
from hookproof_subscriber import build_challenge_response

from ..support import loopback_settings
from .conftest import active_subscription, delivery, dispatch_all, publish

FAST = {"retryPolicy": {"initialDelayS": 0.05, "maxDelayS": 0.05, "maxAttempts": 3}}
#: B's failures trip the origin's breaker; a short open time keeps its probe within the test
BREAKER_OPEN_S = 0.3
STALE = b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"


@dataclass
class StaleOrigin:
    """``/a``: 200 then a stale 200 on the idle connection; ``/b``: 500; challenges: answered."""

    port: int = 0
    sent: dict[str, list[int]] = field(default_factory=dict)  # delivery id -> statuses sent
    connections: int = 0
    stale_written: int = 0
    tasks: set[asyncio.Task[None]] = field(default_factory=set)

    def url(self, path: str) -> str:
        return f"https://127.0.0.1:{self.port}/{path}"

    async def serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                lines = head.decode("latin-1").split("\r\n")
                target = lines[0].split(" ")[1]
                fields = {
                    k.strip().lower(): v.strip()
                    for k, _, v in (line.partition(":") for line in lines[1:] if line)
                }
                body = await reader.readexactly(int(fields.get("content-length", "0")))
                if b'"type":"hookproof.challenge.v1"' in body:
                    answer = build_challenge_response(body)
                    status = 200
                else:
                    answer = b""
                    status = 200 if target == "/a" else 500
                    self.sent.setdefault(fields["webhook-delivery-id"], []).append(status)
                writer.write(
                    f"HTTP/1.1 {status} X\r\nContent-Length: {len(answer)}\r\n"
                    "Content-Type: application/json\r\nConnection: keep-alive\r\n\r\n".encode()
                    + answer
                )
                await writer.drain()
                if target == "/a" and status == 200 and answer == b"":
                    self._later(writer)
        except (asyncio.IncompleteReadError, ConnectionError, ssl.SSLError):
            pass
        finally:
            writer.close()

    def _later(self, writer: asyncio.StreamWriter) -> None:
        async def stale() -> None:
            await asyncio.sleep(0.3)
            if not writer.is_closing():
                writer.write(STALE)
                self.stale_written += 1

        task = asyncio.get_running_loop().create_task(stale())
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)


@pytest.fixture
async def origin(ca: trustme.CA) -> AsyncIterator[StaleOrigin]:
    state = StaleOrigin()
    ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ca.issue_cert("127.0.0.1").configure_cert(ctx)
    server = await asyncio.start_server(state.serve, "127.0.0.1", 0, ssl=ctx)
    state.port = server.sockets[0].getsockname()[1]
    yield state
    server.close()
    for task in list(state.tasks):
        task.cancel()
    await asyncio.gather(*state.tasks, return_exceptions=True)


@pytest.fixture
def settings(origin: StaleOrigin, ca: trustme.CA, tmp_path: Path) -> Settings:
    base = loopback_settings(origin.port, ca, tmp_path, request_timeout_s=1.5)
    return replace(base, breaker_open_s=BREAKER_OPEN_S)


async def test_stale_bytes_of_one_tenant_never_become_anothers_evidence(
    engine: Engine, origin: StaleOrigin
) -> None:
    tenant_a = (await engine.tenants.create("tenant-a")).tenant_id
    tenant_b = (await engine.tenants.create("tenant-b")).tenant_id
    await active_subscription(engine, tenant_a, origin.url("a"))
    await active_subscription(engine, tenant_b, origin.url("b"), **FAST)
    a_ids: list[str] = []
    b_ids: list[str] = []
    for i in range(3):
        [d] = (await publish(engine, tenant_a, f"evt-a-{i}")).deliveries
        a_ids.append(d["deliveryId"])
        await dispatch_all(engine)
        await asyncio.sleep(0.45)  # A's stale 200 lands on the idle pooled connection
        [d] = (await publish(engine, tenant_b, f"evt-b-{i}")).deliveries
        b_ids.append(d["deliveryId"])
        await dispatch_all(engine)
    for _ in range(4):  # B's retries
        await asyncio.sleep(0.1)
        await dispatch_all(engine)
    assert origin.stale_written >= 3

    b_attempts = 0
    for did in b_ids:  # (B's deliveries go in order: a later one waits for the retries)
        view = await delivery(engine, tenant_b, did)
        assert view["state"] != "ENDPOINT_ACCEPTED"
        statuses = [a["status"] for a in view["attempts"]]
        assert statuses == origin.sent.get(did, []) and set(statuses) <= {500}
        b_attempts += len(statuses)
    assert b_attempts >= 4
    for did in a_ids:
        view = await delivery(engine, tenant_a, did)
        assert view["state"] == "ENDPOINT_ACCEPTED"
        assert [a["status"] for a in view["attempts"]] == origin.sent[did] == [200]

    # a stale 200 is in flight again; a new challenge on the origin reads its own answer
    [d] = (await publish(engine, tenant_a, "evt-a-last")).deliveries
    await dispatch_all(engine)
    await asyncio.sleep(0.45)
    await active_subscription(engine, tenant_b, origin.url("c"))


async def _tenant(env: dict[str, str], base: str, name: str, path: str, origin: StaleOrigin):
    import json

    import aiohttp

    from ..daemon import run_cli

    created = await asyncio.to_thread(run_cli, ["tenant", "create", name, "--json"], env)
    token = json.loads(created.stdout.strip().splitlines()[-1])["token"]
    http = aiohttp.ClientSession(headers={"Authorization": f"Bearer {token}"})
    body = {
        "endpoint": origin.url(path),
        "topics": ["t"],
        "eventVersions": [1],
        "region": "eu",
        "signatureAlgorithm": "ed25519",
        "owner": "ops",
        "retryPolicy": {"initialDelayS": 0.05, "maxDelayS": 0.05, "maxAttempts": 2},
    }
    async with http.post(f"{base}/v1/subscriptions", json=body) as r:
        assert r.status == 201, await r.text()
        sid = (await r.json())["id"]
    for _ in range(100):  # the registration challenge runs in the daemon's background
        async with http.get(f"{base}/v1/subscriptions/{sid}") as r:
            if (await r.json())["state"] == "ACTIVE":
                break
        await asyncio.sleep(0.1)
    else:
        raise AssertionError(f"{sid} never became ACTIVE")
    return http


async def _publish_one(http: Any, base: str, event_id: str) -> str:
    doc = {
        "eventId": event_id,
        "topic": "t",
        "version": "1.0",
        "aggregateId": "a",
        "aggregateVersion": 1,
        "occurredAt": "2026-11-30T10:00:00Z",
        "payload": {"e": event_id},
    }
    async with http.post(f"{base}/v1/events", json=doc) as r:
        assert r.status == 202, await r.text()
        [planned] = (await r.json())["deliveries"]
    return str(planned["deliveryId"])


async def _until_sent(origin: StaleOrigin, did: str, n: int = 1) -> None:
    for _ in range(3000):
        if len(origin.sent.get(did, [])) >= n:
            return
        await asyncio.sleep(0.02)
    raise AssertionError(f"{did} never reached the origin")


async def _settled(http: Any, url: str) -> Any:
    for _ in range(600):
        async with http.get(url) as r:
            view = await r.json()
        if view["state"] in ("DEAD_LETTER", "ENDPOINT_ACCEPTED"):
            return view
        await asyncio.sleep(0.1)
    raise AssertionError(f"{url} never settled")


async def test_stale_bytes_through_the_daemon_process(
    db_url: str, tmp_path: Path, origin: StaleOrigin, ca: trustme.CA
) -> None:
    """The same, with ``hookproof serve`` as a real process and both tenants over its API."""
    from .test_processes import _env, _start, _stop

    short = str(BREAKER_OPEN_S)
    env = _env(db_url, tmp_path, origin, ca, HOOKPROOF_BREAKER_OPEN=short)  # type: ignore[arg-type]
    d = await _start(env, tmp_path)
    a = b = None
    try:
        a = await _tenant(env, d.base_url, "tenant-a", "a", origin)
        b = await _tenant(env, d.base_url, "tenant-b", "b", origin)
        b_ids = []
        for i in range(3):
            did = await _publish_one(a, d.base_url, f"a-{i}")
            await _until_sent(origin, did)
            await asyncio.sleep(0.45)  # A's stale 200 lands on the idle pooled connection
            b_ids.append(await _publish_one(b, d.base_url, f"b-{i}"))
        assert origin.stale_written >= 3
        for did in b_ids:  # in order: each one's two attempts, then the next one's
            view = await _settled(b, f"{d.base_url}/v1/deliveries/{did}")
            assert view["state"] == "DEAD_LETTER"
            statuses = [x["status"] for x in view["attempts"]]
            assert statuses == origin.sent[did] and set(statuses) == {500}
        assert "bytes_while_idle" in d.log()
    finally:
        for http in (a, b):
            if http is not None:
                await http.close()
        await _stop(d)
