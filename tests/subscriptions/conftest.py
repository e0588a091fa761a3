"""A real engine on a real aiohttp server (loopback socket) over a fresh database."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import asyncpg
import pytest
from aiohttp.test_utils import TestServer
from multidict import CIMultiDict

from hookproof.config import Settings
from hookproof.engine.runtime.daemon import Engine, build_engine


class Api:
    """A tiny client: JSON in, (status, headers, JSON) out."""

    def __init__(self, session: aiohttp.ClientSession, base: str) -> None:
        self.session = session
        self.base = base

    async def call(
        self,
        method: str,
        path: str,
        *,
        token: str | None = None,
        json: Any = None,
        data: bytes | None = None,
        headers: dict[str, str] | None = None,
    ) -> tuple[int, dict[str, str], Any]:
        h = dict(headers or {})
        if token:
            h["Authorization"] = f"Bearer {token}"
        async with self.session.request(
            method, self.base + path, json=json, data=data, headers=h
        ) as resp:
            body = await resp.read()
            try:
                parsed = await resp.json(content_type=None) if body else None
            except ValueError:
                parsed = body.decode(errors="replace")
            return resp.status, CIMultiDict(resp.headers), parsed  # type: ignore[return-value]


@pytest.fixture
def settings(tmp_path) -> Settings:  # type: ignore[no-untyped-def]
    return Settings(data_dir=tmp_path, dns_servers=(("127.0.0.1", 9),))


@pytest.fixture
async def engine(pool: asyncpg.Pool, settings: Settings) -> AsyncIterator[Engine]:
    e = await build_engine(settings, pool)
    try:
        yield e
    finally:
        await e.close()


@pytest.fixture
async def api(engine: Engine) -> AsyncIterator[Api]:
    server = TestServer(engine.app(), host="127.0.0.1")
    await server.start_server()
    async with aiohttp.ClientSession() as session:
        yield Api(session, str(server.make_url("")).rstrip("/"))
    await server.close()


@pytest.fixture
async def token(engine: Engine) -> str:
    return (await engine.tenants.create("acme")).token


@pytest.fixture
async def other_token(engine: Engine) -> str:
    return (await engine.tenants.create("globex")).token


def sub_body(**over: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "endpoint": "https://hooks.example.com/in",
        "topics": ["order.created"],
        "eventVersions": [1],
        "region": "eu-west",
        "signatureAlgorithm": "ed25519",
        "owner": "team-payments",
    }
    body.update(over)
    return body
