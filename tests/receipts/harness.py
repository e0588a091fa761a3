"""Shared harness for receipts and e2e tests: a real engine (fresh database), its API on a
real aiohttp server on loopback, and real HTTPS subscriber endpoints (trustme) on loopback.

Subscribers built for the ladder use only the SDK (``Subscriber`` + ``aiohttp_handler`` +
``EventApplier``), fetch the JWKS from the engine over HTTP and send receipts with
``send_receipt`` to the engine's receipts URL, which the engine is told explicitly.
"""

from __future__ import annotations

import asyncio
import ssl
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp
import asyncpg
import msgspec
import pytest
import trustme
from aiohttp import web
from aiohttp.test_utils import TestServer

from hookproof.config import Settings
from hookproof.engine.runtime.daemon import Engine
from hookproof.schemas.api import EventIn, SubscriptionCreate
from hookproof_subscriber import (
    JwksKeyResolver,
    SigningKey,
    build_challenge_response,
    public_jwk,
)

from ..support import loopback_settings, running_engine

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]
FAST = {"retryPolicy": {"initialDelayS": 0.05, "maxDelayS": 0.05, "maxAttempts": 5}}


@dataclass
class HookServer:
    """One HTTPS server; each path is served by a handler a test mounts."""

    port: int = 0
    handlers: dict[str, Handler] = field(default_factory=dict)
    hits: dict[str, int] = field(default_factory=dict)

    def url(self, path: str) -> str:
        return f"https://127.0.0.1:{self.port}/{path}"

    def mount(self, path: str, handler: Handler) -> str:
        self.handlers[path] = handler
        return self.url(path)

    async def dispatch(self, request: web.Request) -> web.StreamResponse:
        path = request.path.strip("/")
        self.hits[path] = self.hits.get(path, 0) + 1
        handler = self.handlers.get(path)
        if handler is None:
            return web.Response(status=404)
        return await handler(request)


def ok_endpoint(receipt_key: SigningKey | None = None, status: int = 204) -> Handler:
    """A bare (non-SDK) endpoint: answers challenges (proof under the receipt key, if any)
    and ``status`` to everything else."""

    async def handle(request: web.Request) -> web.StreamResponse:
        body = await request.read()
        if b'"type":"hookproof.challenge.v1"' in body:
            return web.Response(
                body=build_challenge_response(body, receipt_key=receipt_key),
                content_type="application/json",
            )
        return web.Response(status=status)

    return handle


@pytest.fixture(scope="session")
def ca() -> trustme.CA:
    return trustme.CA()


@pytest.fixture
async def hooks(ca: trustme.CA) -> AsyncIterator[HookServer]:
    srv = HookServer()
    ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ca.issue_cert("127.0.0.1").configure_cert(ctx)
    app = web.Application()
    app.router.add_route("*", "/{tail:.*}", srv.dispatch)
    runner = web.AppRunner(app, access_log=None, shutdown_timeout=0.5)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0, ssl_context=ctx)
    await site.start()
    srv.port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    yield srv
    await runner.cleanup()


@pytest.fixture
def settings(hooks: HookServer, ca: trustme.CA, tmp_path: Path) -> Settings:
    return loopback_settings(hooks.port, ca, tmp_path, request_timeout_s=2.0)


@pytest.fixture
async def engine(pool: asyncpg.Pool, settings: Settings) -> AsyncIterator[Engine]:
    async with running_engine(pool, settings) as e:
        yield e


class Api:
    """The engine's API on a real aiohttp server (loopback)."""

    def __init__(self, session: aiohttp.ClientSession, base: str) -> None:
        self.session = session
        self.base = base
        self.receipts_url = base + "/v1/receipts"

    async def call(
        self,
        method: str,
        path: str,
        *,
        token: str | None = None,
        json: Any = None,
        data: bytes | None = None,
        headers: dict[str, str] | None = None,
    ) -> tuple[int, Any]:
        h = dict(headers or {})
        if token:
            h["Authorization"] = f"Bearer {token}"
        async with self.session.request(
            method, self.base + path, json=json, data=data, headers=h
        ) as resp:
            raw = await resp.read()
            if resp.content_type.endswith("json") and raw:
                return resp.status, msgspec.json.decode(raw)
            return resp.status, raw.decode(errors="replace")


@pytest.fixture
async def api(engine: Engine) -> AsyncIterator[Api]:
    server = TestServer(engine.app(), host="127.0.0.1")
    await server.start_server()
    async with aiohttp.ClientSession() as session:
        a = Api(session, str(server.make_url("")).rstrip("/"))
        # the engine is told its public receipts URL: the @target-uri subscribers sign
        engine.services.receipts.receipts_url = a.receipts_url
        yield a
    await server.close()


@pytest.fixture
async def tenant_token(engine: Engine) -> tuple[str, str]:
    t = await engine.tenants.create("acme")
    return t.tenant_id, t.token


def receipt_key_body(key: SigningKey) -> dict[str, Any]:
    return {"keyId": key.key_id, "publicKeyJwk": public_jwk(key)}


async def active_subscription(engine: Engine, tenant: str, url: str, **over: Any) -> str:
    body: dict[str, Any] = {
        "endpoint": url,
        "topics": ["order.created"],
        "eventVersions": [1],
        "region": "eu",
        "signatureAlgorithm": "ed25519",
        "owner": "team-orders",
    }
    body.update(over)
    state, _ = await engine.subscriptions.register(
        tenant, msgspec.convert(body, SubscriptionCreate), actor="test"
    )
    outcome = await engine.services.challenger.run(state.subscription_id, actor="test")
    assert outcome["passed"], outcome
    return state.subscription_id


async def publish(engine: Engine, tenant: str, event_id: str, **over: Any) -> Any:
    doc: dict[str, Any] = {
        "eventId": event_id,
        "topic": "order.created",
        "version": "1.0",
        "aggregateId": "order-1",
        "aggregateVersion": 1,
        "occurredAt": "2026-11-30T10:00:00Z",
        "payload": {"amount": 42},
    }
    doc.update(over)
    return await engine.services.ingest.ingest(
        tenant, msgspec.convert(doc, EventIn), actor=f"tenant:{tenant}"
    )


async def dispatch_all(engine: Engine) -> int:
    d = engine.services.dispatcher
    n = await d.run_once()
    await d.drain()
    return n


async def dispatch_until(
    engine: Engine, pred: Callable[[], Awaitable[bool]], rounds: int = 60
) -> None:
    for _ in range(rounds):
        if await pred():
            return
        await dispatch_all(engine)
        await asyncio.sleep(0.05)
    assert await pred()


async def delivery(engine: Engine, tenant: str, delivery_id: str) -> dict[str, Any]:
    return await engine.services.reader.delivery(tenant, delivery_id)


async def stream_types(engine: Engine, stream: str) -> list[str]:
    return [r.type for r in await engine.store.read_stream(stream)]


def jwks_resolver(api: Api) -> JwksKeyResolver:
    return JwksKeyResolver.for_engine(api.base)
