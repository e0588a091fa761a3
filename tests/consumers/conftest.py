"""An in-process engine on a loopback API server, a real HTTPS subscriber, a fresh database."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import aiohttp
import pytest
from aiohttp.test_utils import TestServer

from hookproof.engine.runtime.daemon import Engine
from tests.delivery.conftest import ca, engine, settings, subscriber

from ..live import ADMIN_TOKEN, Client

__all__ = ["Tenant", "base", "ca", "engine", "http", "settings", "subscriber"]


@pytest.fixture
async def base(engine: Engine, monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[str]:
    monkeypatch.setenv("HOOKPROOF_ADMIN_TOKEN", ADMIN_TOKEN)
    server = TestServer(engine.app(), host="127.0.0.1")
    await server.start_server()
    yield str(server.make_url("")).rstrip("/")
    await server.close()


@pytest.fixture
async def http() -> AsyncIterator[aiohttp.ClientSession]:
    async with aiohttp.ClientSession() as session:
        yield session


@dataclass
class Tenant:
    tenant_id: str
    client: Client
    engine: Engine

    async def call(self, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        return await self.client.call(method, path, body)

    async def consumer(self, cid: str, name: str | None = None) -> dict[str, Any]:
        status, out = await self.call("POST", "/v1/consumers", {"id": cid, "name": name or cid})
        assert status == 201, out
        return dict(out)

    async def subscribe(self, url: str, consumer: str | None = None, **over: Any) -> str:
        """Register over the API and wait for its challenge to pass (ACTIVE)."""
        body: dict[str, Any] = {
            "endpoint": url,
            "topics": ["order.created"],
            "eventVersions": [1],
            "region": "eu",
            "signatureAlgorithm": "ed25519",
            "owner": "team-orders",
            "retryPolicy": {"initialDelayS": 0.1, "maxDelayS": 0.1, "maxAttempts": 1},
        }
        if consumer is not None:
            body["consumerId"] = consumer
        body.update(over)
        status, sub = await self.call("POST", "/v1/subscriptions", body)
        assert status == 201, sub
        await self.engine.drain()
        status, sub = await self.call("GET", f"/v1/subscriptions/{sub['id']}")
        assert sub["state"] == "ACTIVE", sub
        return str(sub["id"])


def event(event_id: str, consumer: str | None = None, **over: Any) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "eventId": event_id,
        "topic": "order.created",
        "version": "1.0",
        "aggregateId": "order-1",
        "aggregateVersion": 1,
        "occurredAt": "2026-11-30T10:00:00Z",
        "payload": {"order": event_id},
    }
    if consumer is not None:
        doc["consumerId"] = consumer
    doc.update(over)
    return doc


async def new_tenant(engine: Engine, http: aiohttp.ClientSession, base: str, name: str) -> Tenant:
    issued = await engine.tenants.create(name)
    return Tenant(issued.tenant_id, Client(http, base, issued.token), engine)
