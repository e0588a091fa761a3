"""Two real HTTPS servers on loopback: ``watched`` (whose certificate a test can swap, for
drift) and ``receiver`` (where notification subscriptions listen); an engine allowed to reach
exactly those two ports, trusting two test CAs."""

from __future__ import annotations

import ssl
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import asyncpg
import msgspec
import pytest
import trustme
from aiohttp import web

from hookproof.config import Settings
from hookproof.engine.runtime.daemon import Engine
from hookproof.schemas.api import SubscriptionCreate
from tests.delivery.conftest import Subscriber, ca, subscriber

from ..support import running_engine

__all__ = ["Server", "ca", "subscriber"]


@dataclass
class Server:
    sub: Subscriber
    ctx: ssl.SSLContext
    runner: web.AppRunner


async def _serve(cert: trustme.LeafCert) -> Server:
    sub = Subscriber()
    ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    cert.configure_cert(ctx)
    app = web.Application()
    app.router.add_route("*", "/{tail:.*}", sub.handle)
    runner = web.AppRunner(app, access_log=None, shutdown_timeout=0.5)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0, ssl_context=ctx)
    await site.start()
    sub.port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    return Server(sub, ctx, runner)


@pytest.fixture(scope="session")
def other_ca() -> trustme.CA:
    return trustme.CA()


@pytest.fixture
async def watched(ca: trustme.CA) -> AsyncIterator[Server]:
    s = await _serve(ca.issue_cert("127.0.0.1"))
    yield s
    s.sub.release.set()
    await s.runner.cleanup()


@pytest.fixture
async def receiver(ca: trustme.CA) -> AsyncIterator[Server]:
    s = await _serve(ca.issue_cert("127.0.0.1"))
    yield s
    s.sub.release.set()
    await s.runner.cleanup()


@pytest.fixture
def settings(
    watched: Server, receiver: Server, ca: trustme.CA, other_ca: trustme.CA, tmp_path: Path
) -> Settings:
    bundle = tmp_path / "cas.pem"
    bundle.write_bytes(ca.cert_pem.bytes() + other_ca.cert_pem.bytes())
    return Settings(
        data_dir=tmp_path,
        egress_allow=(("127.0.0.1", watched.sub.port), ("127.0.0.1", receiver.sub.port)),
        egress_ca_file=str(bundle),
        dns_servers=(("127.0.0.1", 9),),
        connect_timeout_s=1.0,
        request_timeout_s=1.5,
        # a certificate is seen on a new connection (a pooled one keeps the one it was
        # opened with): the drift test changes the certificate between two requests
        pool_max_requests=1,
    )


@pytest.fixture
async def engine(pool: asyncpg.Pool, settings: Settings) -> AsyncIterator[Engine]:
    async with running_engine(pool, settings) as e:
        yield e


async def subscribe(
    engine: Engine, tenant: str, server: Server, path: str, topics: list[str], **over: Any
) -> tuple[str, bytes | None]:
    """An ACTIVE subscription (challenge passed over HTTPS): (id, hmac secret or None)."""
    body: dict[str, Any] = {
        "endpoint": server.sub.url(path),
        "topics": topics,
        "eventVersions": [1],
        "region": "eu",
        "signatureAlgorithm": "ed25519",
        "owner": "team-ops",
        "retryPolicy": {"initialDelayS": 0.05, "maxDelayS": 0.05, "maxAttempts": 1},
    }
    body.update(over)
    state, secret = await engine.subscriptions.register(
        tenant, msgspec.convert(body, SubscriptionCreate), actor="test"
    )
    if secret is not None:
        server.sub.secrets[path] = secret
    outcome = await engine.services.challenger.run(state.subscription_id, actor="test")
    assert outcome["passed"], outcome
    return state.subscription_id, secret
