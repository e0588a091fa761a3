"""A real engine on a fresh database, its API on a loopback socket, tenants with tokens."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import aiohttp
import pytest
from aiohttp.test_utils import TestServer

from hookproof.engine.runtime.daemon import Engine
from tests.delivery.conftest import ca, engine, settings, subscriber

__all__ = [
    "ORDER_EXAMPLE",
    "ORDER_SCHEMA",
    "Api",
    "Tenant",
    "api",
    "ca",
    "engine",
    "new_tenant",
    "order",
    "order_type",
    "settings",
    "subscriber",
]


@dataclass
class Tenant:
    tenant_id: str
    token: str


class Api:
    def __init__(self, session: aiohttp.ClientSession, base: str) -> None:
        self.session = session
        self.base = base

    async def call(
        self,
        method: str,
        path: str,
        token: str,
        body: Any = None,
        headers: dict[str, str] | None = None,
    ) -> tuple[int, Any, dict[str, str]]:
        h = {"Authorization": f"Bearer {token}", **(headers or {})}
        async with self.session.request(method, self.base + path, json=body, headers=h) as r:
            return (
                r.status,
                await r.json(content_type=None),
                {k.lower(): v for k, v in r.headers.items()},
            )

    async def define(self, t: Tenant, topic: str, body: Any, **kw: Any) -> tuple[int, Any]:
        status, doc, _ = await self.call("PUT", f"/v1/event-types/{topic}", t.token, body, **kw)
        return status, doc

    async def publish(self, t: Tenant, event: dict[str, Any]) -> tuple[int, Any]:
        status, doc, _ = await self.call("POST", "/v1/events", t.token, event)
        return status, doc


@pytest.fixture
async def api(engine: Engine) -> AsyncIterator[Api]:
    server = TestServer(engine.app(), host="127.0.0.1")
    await server.start_server()
    async with aiohttp.ClientSession() as session:
        yield Api(session, str(server.make_url("")).rstrip("/"))
    await server.close()


async def new_tenant(engine: Engine, name: str) -> Tenant:
    issued = await engine.tenants.create(name)
    return Tenant(issued.tenant_id, issued.token)


#: a realistic order: 15 constrained fields (the benchmark uses the same shape)
ORDER_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "required": ["orderId", "customerId", "currency", "total", "status", "lines"],
    "additionalProperties": False,
    "properties": {
        "orderId": {"type": "string", "pattern": "^ord_[0-9a-f]{16}$"},
        "customerId": {"type": "string", "minLength": 3, "maxLength": 64},
        "currency": {"enum": ["EUR", "USD", "GBP"]},
        "total": {"type": "number", "minimum": 0},
        "status": {"enum": ["created", "paid", "shipped"]},
        "email": {"type": "string", "format": "email", "maxLength": 254},
        "lines": {
            "type": "array",
            "minItems": 1,
            "maxItems": 100,
            "items": {
                "type": "object",
                "required": ["sku", "quantity", "price"],
                "properties": {
                    "sku": {"type": "string", "pattern": "^[A-Z0-9-]{4,32}$"},
                    "quantity": {"type": "integer", "minimum": 1},
                    "price": {"type": "number", "minimum": 0},
                },
            },
        },
    },
}

ORDER_EXAMPLE: dict[str, Any] = {
    "orderId": "ord_0123456789abcdef",
    "customerId": "cus_42",
    "currency": "EUR",
    "total": 12.5,
    "status": "created",
    "lines": [{"sku": "SKU-0001", "quantity": 1, "price": 12.5}],
}


def order(
    event_id: str, payload: Any = None, *, version: str = "1.0", topic: str = "order.created"
) -> dict[str, Any]:
    return {
        "eventId": event_id,
        "topic": topic,
        "version": version,
        "aggregateId": "order-1",
        "aggregateVersion": 1,
        "occurredAt": "2026-11-30T10:00:00Z",
        "payload": ORDER_EXAMPLE if payload is None else payload,
    }


def order_type(**over: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "description": "An order was placed",
        "versions": {"1": {"schema": ORDER_SCHEMA, "example": ORDER_EXAMPLE}},
    }
    body.update(over)
    return body
