"""Helpers for tests that drive ``hookproof serve`` processes over their HTTP API."""

from __future__ import annotations

import asyncio
import base64
import json
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import aiohttp
import trustme

from .daemon import Daemon, run_cli, start_daemon

ADMIN_TOKEN = "operator-" + "o" * 40


def engine_env(db_url: str, tmp: Path, port: int, ca: trustme.CA, **extra: str) -> dict[str, str]:
    """Environment for a daemon allowed to reach exactly 127.0.0.1:port over HTTPS (test CA)."""
    ca_file = tmp / "ca.pem"
    ca.cert_pem.write_to_path(str(ca_file))
    return {
        "HOOKPROOF_DATABASE_URL": db_url,
        "HOOKPROOF_DATA_DIR": str(tmp),
        "HOOKPROOF_MASTER_KEY": base64.urlsafe_b64encode(b"k" * 32).decode().rstrip("="),
        "HOOKPROOF_EGRESS_ALLOW": f"127.0.0.1:{port}",
        "HOOKPROOF_EGRESS_CA_FILE": str(ca_file),
        "HOOKPROOF_DNS_SERVERS": "127.0.0.1:9",
        "HOOKPROOF_CONNECT_TIMEOUT": "1",
        "HOOKPROOF_REQUEST_TIMEOUT": "2",
        "HOOKPROOF_LEASE_MARGIN": "1",
        "HOOKPROOF_ADMIN_TOKEN": ADMIN_TOKEN,
        **extra,
    }


async def start(env: dict[str, str], tmp: Path) -> Daemon:
    return await asyncio.to_thread(start_daemon, env, tmp)


async def stop(d: Daemon) -> None:
    await asyncio.to_thread(d.stop)


async def new_tenant(env: dict[str, str], name: str) -> tuple[str, str]:
    """``hookproof tenant create NAME --json`` in its own process: (tenantId, token)."""
    out = await asyncio.to_thread(run_cli, ["tenant", "create", name, "--json"], env)
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout.strip().splitlines()[-1])
    return doc["tenantId"], doc["token"]


class Client:
    """A bearer-token client of one daemon's API."""

    def __init__(self, http: aiohttp.ClientSession, base: str, token: str) -> None:
        self.http, self.base, self.token = http, base, token

    async def call(self, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        async with self.http.request(
            method,
            self.base + path,
            json=body,
            headers={"Authorization": f"Bearer {self.token}"},
        ) as r:
            raw = await r.read()
            return r.status, (json.loads(raw) if raw and "json" in r.content_type else raw)

    async def subscribe(self, endpoint: str, topics: list[str], **over: Any) -> str:
        body: dict[str, Any] = {
            "endpoint": endpoint,
            "topics": topics,
            "eventVersions": [1],
            "region": "eu",
            "signatureAlgorithm": "ed25519",
            "owner": "team-ops",
            "retryPolicy": {"initialDelayS": 0.2, "maxDelayS": 0.5, "maxAttempts": 3},
        }
        body.update(over)
        status, sub = await self.call("POST", "/v1/subscriptions", body)
        assert status == 201, sub
        sid: str = sub["id"]
        await wait_for(lambda: self._state_is(sid, "ACTIVE"), what=f"{sid} ACTIVE")
        return sid

    async def _state_is(self, sid: str, state: str) -> bool:
        status, sub = await self.call("GET", f"/v1/subscriptions/{sid}")
        return status == 200 and sub["state"] == state

    async def publish(self, event_id: str, topic: str = "t", **over: Any) -> dict[str, Any]:
        doc: dict[str, Any] = {
            "eventId": event_id,
            "topic": topic,
            "version": "1.0",
            "aggregateId": "a-1",
            "aggregateVersion": 1,
            "occurredAt": "2026-11-30T10:00:00Z",
            "payload": {"n": event_id},
        }
        doc.update(over)
        status, out = await self.call("POST", "/v1/events", doc)
        assert status == 202, out
        return dict(out)

    async def delivery_state(self, delivery_id: str) -> str:
        status, view = await self.call("GET", f"/v1/deliveries/{delivery_id}")
        assert status == 200, view
        return str(view["state"])


async def wait_for(
    pred: Callable[[], Awaitable[bool]], *, what: str, timeout: float = 60.0
) -> None:
    """Poll ``pred`` until it holds (a bound for a hung test, not a speed assertion)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while loop.time() < deadline:
        if await pred():
            return
        await asyncio.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")
