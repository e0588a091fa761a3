"""A real engine, a real HTTPS subscriber (trustme) on loopback, a fresh database per test."""

from __future__ import annotations

import asyncio
import json
import socket
import ssl
import time
from collections.abc import AsyncIterator, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import asyncpg
import pytest
import trustme
from aiohttp import web

from hookproof.config import Settings
from hookproof.engine.runtime.daemon import Engine
from hookproof.schemas.api import EventIn, SubscriptionCreate
from hookproof_subscriber import build_challenge_response

from ..support import loopback_settings, running_engine


@dataclass
class Received:
    path: str
    headers: dict[str, str]
    body: bytes
    #: when it arrived (``time.monotonic``): the subscriber's own clock
    at: float = field(default_factory=time.monotonic)


@dataclass
class Subscriber:
    """Behaviour by path: ok | fail500 | gone | redirect | hang | drop | slow | busy |
    superscript | cut | cut500 | echo."""

    port: int = 0
    received: list[Received] = field(default_factory=list)
    modes: dict[str, str] = field(default_factory=dict)
    redirect_hits: int = 0
    secrets: dict[str, bytes] = field(default_factory=dict)
    release: asyncio.Event = field(default_factory=asyncio.Event)

    def url(self, path: str) -> str:
        return f"https://127.0.0.1:{self.port}/{path}"

    def deliveries(self, path: str | None = None) -> list[Received]:
        return [
            r
            for r in self.received
            if b"hookproof.challenge.v1" not in r.body and (path is None or r.path == path)
        ]

    async def handle(self, request: web.Request) -> web.StreamResponse:
        body = await request.read()
        path = request.path.strip("/")
        if path == "elsewhere":
            self.redirect_hits += 1
            return web.Response(status=200)
        self.received.append(Received(path, dict(request.headers), body))
        mode = self.modes.get(path, path.split("-")[0])
        if b'"type":"hookproof.challenge.v1"' in body:
            if mode == "refuse-challenges":
                return web.Response(status=503)
            return web.Response(
                body=build_challenge_response(body, secret=self.secrets.get(path)),
                content_type="application/json",
            )
        if mode == "ok":
            return web.Response(status=204)
        if mode == "fail500":
            return web.Response(status=500)
        if mode == "echo":  # a refusal that tells all: a cookie, and the request echoed back
            echoed = json.dumps(dict(request.headers), sort_keys=True)
            return web.Response(
                status=503,
                text="refused; you sent " + echoed,
                headers={"Set-Cookie": "sid=s3cr3t-cookie", "X-Trace": "trace-7"},
            )
        if mode == "gone":
            return web.Response(status=410)
        if mode == "busy":
            return web.Response(status=429, headers={"Retry-After": "7"})
        if mode == "superscript":  # "²".isdigit() is True, float("²") fails
            return web.Response(status=503, headers={"Retry-After": "²"})
        if mode == "redirect":
            raise web.HTTPTemporaryRedirect(location=self.url("elsewhere"))
        if mode == "hang":
            await self.release.wait()
            return web.Response(status=200)
        if mode == "slow":
            await asyncio.sleep(3)
            return web.Response(status=200)
        if mode == "drop":
            # the 2xx starts, then the connection dies: the response is lost
            resp = web.StreamResponse(status=200, headers={"Content-Length": "100"})
            await resp.prepare(request)
            await resp.write(b"partial")
            assert request.transport is not None
            request.transport.abort()
            return resp
        if mode in ("cut", "cut500"):
            # an answer framed by the connection's end, cut by a bare TCP FIN: no close_notify
            status = 500 if mode == "cut500" else 200
            transport = request.transport
            assert transport is not None
            transport.write(b"HTTP/1.1 %d X\r\nContent-Type: text/plain\r\n\r\npart" % status)
            transport.get_extra_info("socket").shutdown(socket.SHUT_WR)
            transport.abort()
            return web.Response(status=status)  # never written: the connection is gone
        return web.Response(status=404)


@pytest.fixture(scope="session")
def ca() -> trustme.CA:
    return trustme.CA()


@pytest.fixture
async def subscriber(ca: trustme.CA, tmp_path: Path) -> AsyncIterator[Subscriber]:
    sub = Subscriber()
    cert = ca.issue_cert("127.0.0.1")
    ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    cert.configure_cert(ctx)
    app = web.Application()
    app.router.add_route("*", "/{tail:.*}", sub.handle)
    runner = web.AppRunner(app, access_log=None, shutdown_timeout=0.5)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0, ssl_context=ctx)
    await site.start()
    sub.port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    yield sub
    sub.release.set()
    await runner.cleanup()


@pytest.fixture
def settings(subscriber: Subscriber, ca: trustme.CA, tmp_path: Path) -> Settings:
    return loopback_settings(subscriber.port, ca, tmp_path, request_timeout_s=1.5)


@pytest.fixture
async def engine(pool: asyncpg.Pool, settings: Settings) -> AsyncIterator[Engine]:
    async with running_engine(pool, settings) as e:
        yield e


@pytest.fixture
async def tenant(engine: Engine) -> str:
    return (await engine.tenants.create("acme")).tenant_id


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
    import msgspec

    state, _ = await engine.subscriptions.register(
        tenant, msgspec.convert(body, SubscriptionCreate), actor="test"
    )
    outcome = await engine.services.challenger.run(state.subscription_id, actor="test")
    assert outcome["passed"], outcome
    return state.subscription_id


async def publish(
    engine: Engine, tenant: str, event_id: str, payload: Any = None, **over: Any
) -> Any:
    import msgspec

    doc: dict[str, Any] = {
        "eventId": event_id,
        "topic": "order.created",
        "version": "1.0",
        "aggregateId": "order-1",
        "aggregateVersion": 1,
        "occurredAt": "2026-11-30T10:00:00Z",
        "payload": payload if payload is not None else {"amount": 42},
    }
    doc.update(over)
    return await engine.services.ingest.ingest(
        tenant, msgspec.convert(doc, EventIn), actor=f"tenant:{tenant}"
    )


async def publish_many(engine: Engine, tenant: str, topic: str, numbers: Iterable[int]) -> None:
    """One batch of events ``evt-<topic>-<i>`` on ``topic``, each its own aggregate."""
    import msgspec

    events = [
        msgspec.convert(
            {
                "eventId": f"evt-{topic}-{i}",
                "topic": topic,
                "version": "1.0",
                "aggregateId": f"order-{i}",
                "aggregateVersion": 1,
                "occurredAt": "2026-11-30T10:00:00Z",
                "payload": {"i": i},
            },
            EventIn,
        )
        for i in numbers
    ]
    await engine.services.ingest.ingest_batch(tenant, events, actor=f"tenant:{tenant}")


def stalled_dispatcher(engine: Engine, settings: Settings, name: str) -> Any:
    """A second dispatcher whose leases expire at once (as if it stalled past the lease)."""
    from hookproof.engine.delivery.dispatcher import Dispatcher

    real = engine.services.dispatcher
    return Dispatcher(
        engine.store,
        settings,
        key_provider=real.key_provider,
        destination=real.destination,
        name=name,
        lease_margin_s=-(settings.request_timeout_s + settings.connect_timeout_s),
    )


async def dispatch_all(engine: Engine) -> int:
    """Claim everything due and wait for the sends and their records."""
    d = engine.services.dispatcher
    n = await d.run_once()
    await d.drain()
    return n


async def delivery(engine: Engine, tenant: str, delivery_id: str) -> dict[str, Any]:
    return await engine.services.reader.delivery(tenant, delivery_id)
