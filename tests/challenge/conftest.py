"""Challenge tests: a real engine (API, Postgres) challenging a real HTTPS subscriber.

The subscriber is an aiohttp application built on the SDK (``Subscriber`` through
``aiohttp_handler``-equivalent plumbing) behind TLS with a trustme certificate for
``hooks.test``; the engine resolves ``hooks.test`` through a real dnslib server on loopback
and reaches the subscriber through the real pinned transport with an exact
``(127.0.0.1, port)`` allowance. The egress socket guard (imported from ``tests/egress``) is
autouse here too: a connect or a UDP send to anything but loopback fails the test.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp
import asyncpg
import pytest
import trustme
from aiohttp import web
from aiohttp.test_utils import TestServer

from hookproof.config import Settings
from hookproof.engine.runtime.daemon import Engine, build_engine
from hookproof_subscriber import (
    JwksKeyResolver,
    SigningKey,
    Subscriber,
    VerificationKey,
)
from tests.egress import conftest as _egress
from tests.egress.conftest import DnsServer, Pki, SocketGuard, TlsHttpServer, respond
from tests.subscriptions.conftest import Api, sub_body

# the egress fixtures, re-exported for this folder (socket_guard is autouse here too)
dns = _egress.dns
pki = _egress.pki
make_server = _egress.make_server
socket_guard = _egress.socket_guard

__all__ = ["DnsServer", "Pki", "SocketGuard", "TlsHttpServer", "respond"]

HOST = "hooks.test"


@dataclass
class Seen:
    headers: list[tuple[str, str]]
    body: bytes
    request: Any = None
    #: the client certificate the TLS connection presented (``getpeercert()``), if any
    peer_cert: Any = None
    #: the client's (address, port): which connection carried the request
    peer: Any = None

    def header(self, name: str) -> str | None:
        return next((v for k, v in self.headers if k.lower() == name.lower()), None)


Tamper = Callable[[dict[str, Any], Seen], dict[str, Any]]
Raw = Callable[[Seen], Awaitable[web.StreamResponse]]


class AnySecret:
    """A subscriber that knows only its secret (the registration response does not name the
    key id): every key id resolves to it."""

    def __init__(self, secret: str) -> None:
        self.secret = secret

    def resolve(self, key_id: str) -> VerificationKey | None:
        return VerificationKey.hmac(key_id, self.secret)


class SubscriberEndpoint:
    """An HTTPS subscriber endpoint on 127.0.0.1 answering through the SDK's ``Subscriber``.

    Until ``configure`` hands it a ``Subscriber`` (it needs the registration response, e.g.
    the shared secret), a request waits. ``tamper`` rewrites the SDK's JSON answer; ``raw``
    replaces the whole answer; ``before`` runs before answering (e.g. advance a clock).
    """

    def __init__(self, ctx: Any) -> None:
        self.ctx = ctx
        self.subscriber: Subscriber | None = None
        self.ready = asyncio.Event()
        self.requests: list[Seen] = []
        self.answers: list[tuple[int, bytes]] = []
        self.tamper: Tamper | None = None
        self.raw: Raw | None = None
        self.before: Callable[[Seen], Awaitable[None]] | None = None
        self.port = 0
        self.release = asyncio.Event()  # set on close: frees handlers a test holds back
        self._runner: web.AppRunner | None = None

    @property
    def url(self) -> str:
        return f"https://{HOST}:{self.port}/hook"

    def configure(self, subscriber: Subscriber) -> None:
        self.subscriber = subscriber
        self.ready.set()

    async def start(self) -> SubscriberEndpoint:
        app = web.Application()
        app.router.add_post("/hook", self._handle)
        self._runner = web.AppRunner(app, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0, ssl_context=self.ctx)
        await site.start()
        self.port = self._runner.addresses[0][1]
        return self

    async def close(self) -> None:
        self.release.set()
        if self._runner is not None:
            await self._runner.cleanup()

    async def hold(self, seconds: float) -> None:
        """Wait ``seconds`` (or until the endpoint closes): a slow responder."""
        try:
            await asyncio.wait_for(self.release.wait(), seconds)
        except TimeoutError:
            pass

    async def _handle(self, request: web.Request) -> web.StreamResponse:
        body = await request.read()
        transport = request.transport
        seen = Seen(
            list(request.headers.items()),
            body,
            request,
            peer_cert=transport.get_extra_info("peercert") if transport else None,
            peer=transport.get_extra_info("peername") if transport else None,
        )
        self.requests.append(seen)
        if self.before is not None:
            await self.before(seen)
        if self.raw is not None:
            return await self.raw(seen)
        await asyncio.wait_for(self.ready.wait(), 10)
        assert self.subscriber is not None
        status, headers, payload = await self.subscriber.handle(
            "POST", self.url, seen.headers, body
        )
        if status == 200 and self.tamper is not None:
            doc = self.tamper(json.loads(payload), seen)
            payload = json.dumps(doc, separators=(",", ":")).encode()
        self.answers.append((status, payload))
        return web.Response(status=status, headers=headers, body=payload)


@dataclass
class Harness:
    engine: Engine
    api: Api
    base: str
    token: str
    dns: DnsServer
    endpoint: SubscriberEndpoint
    settings: Settings
    extra: list[Any] = field(default_factory=list)

    async def register(self, **over: Any) -> dict[str, Any]:
        status, _, body = await self.api.call(
            "POST",
            "/v1/subscriptions",
            token=self.token,
            json=sub_body(endpoint=self.endpoint.url, **over),
        )
        assert status == 201, body
        return body  # type: ignore[no-any-return]

    async def get(self, sid: str) -> dict[str, Any]:
        status, _, body = await self.api.call("GET", f"/v1/subscriptions/{sid}", token=self.token)
        assert status == 200, body
        return body  # type: ignore[no-any-return]

    async def challenge(self, sid: str) -> dict[str, Any]:
        status, _, body = await self.api.call(
            "POST", f"/v1/subscriptions/{sid}/challenge", token=self.token
        )
        assert status == 200, body
        return body  # type: ignore[no-any-return]

    async def history(self, sid: str) -> list[dict[str, Any]]:
        status, _, body = await self.api.call(
            "GET", f"/v1/subscriptions/{sid}/history", token=self.token
        )
        assert status == 200, body
        return body["items"]  # type: ignore[no-any-return]

    async def events(self, sid: str, type_: str) -> list[dict[str, Any]]:
        return [e["data"] for e in await self.history(sid) if e["type"] == type_]

    def jwks(self) -> JwksKeyResolver:
        return JwksKeyResolver.for_engine(self.base, min_refresh_interval=0.0)

    def subscriber(
        self,
        view: dict[str, Any],
        *,
        receipt_key: SigningKey | None = None,
        secret: str | None = None,
    ) -> Subscriber:
        """An SDK subscriber for the registered subscription ``view``."""
        keys: Any = AnySecret(secret) if secret is not None else self.jwks()

        async def on_event(_event: Any) -> None:
            return None

        return Subscriber(
            keys=keys,
            on_event=on_event,
            endpoint=view["endpoint"],
            subscription_id=view["id"],
            receipt_key=receipt_key,
        )

    @property
    def challenger(self) -> Any:
        return self.engine.services.challenger


MakeHarness = Callable[..., Awaitable[Harness]]


@pytest.fixture
def ca_files(pki: Pki, tmp_path: Path) -> tuple[trustme.CA, Path]:
    """A second CA, and a bundle trusting both (for the issuer-change test)."""
    other = trustme.CA()
    bundle = tmp_path / "bundle.pem"
    bundle.write_bytes(pki.ca_file.read_bytes() + other.cert_pem.bytes())
    return other, bundle


@pytest.fixture
async def make_harness(
    pool: asyncpg.Pool, pki: Pki, dns: DnsServer, tmp_path: Path
) -> AsyncIterator[MakeHarness]:
    cleanups: list[Callable[[], Awaitable[Any]]] = []

    async def factory(
        *,
        ca_file: Path | None = None,
        extra_allow: tuple[tuple[str, int], ...] = (),
        answers: tuple[str, ...] = ("127.0.0.1",),
        endpoint_ctx: Any = None,
        **overrides: Any,
    ) -> Harness:
        endpoint = await SubscriberEndpoint(endpoint_ctx or pki.server_context()).start()
        cleanups.append(endpoint.close)
        dns.records[HOST] = list(answers)  # each answer is allowed on the endpoint's port
        values: dict[str, Any] = {
            "data_dir": tmp_path,
            "egress_allow": (*((a, endpoint.port) for a in answers), *extra_allow),
            "egress_ca_file": str(ca_file or pki.ca_file),
            "dns_servers": (("127.0.0.1", dns.port),),
            "connect_timeout_s": 2.0,
            "request_timeout_s": 3.0,
        }
        values.update(overrides)
        settings = Settings(**values)
        engine = await build_engine(settings, pool)
        cleanups.append(engine.close)
        server = TestServer(engine.app(), host="127.0.0.1")
        await server.start_server()
        cleanups.append(server.close)
        session = aiohttp.ClientSession()
        cleanups.append(session.close)
        base = str(server.make_url("")).rstrip("/")
        token = (await engine.tenants.create("acme")).token
        return Harness(engine, Api(session, base), base, token, dns, endpoint, settings)

    try:
        yield factory
    finally:
        for cleanup in reversed(cleanups):
            await cleanup()
