"""An engine with broker destinations over a real database, its API on a loopback socket, and
a TCP proxy that loses a broker's confirmation on purpose (real brokers on both sides)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import aiohttp
import asyncpg
from aiohttp.test_utils import TestServer

from hookproof.config import Settings
from hookproof.engine.runtime.daemon import Engine, build_engine

__all__ = ["Api", "ConfirmCutter", "dispatch_until", "started"]


class Api:
    """JSON in, (status, JSON) out."""

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
    ) -> tuple[int, Any]:
        h = dict(headers or {})
        if token:
            h["Authorization"] = f"Bearer {token}"
        async with self.session.request(
            method, self.base + path, json=json, data=data, headers=h
        ) as resp:
            raw = await resp.read()
            try:
                doc = await resp.json(content_type=None) if raw else None
            except ValueError:
                doc = raw.decode(errors="replace")
            return resp.status, doc


@contextlib.asynccontextmanager
async def started(pool: asyncpg.Pool, settings: Settings) -> AsyncIterator[tuple[Engine, Api]]:
    engine = await build_engine(settings, pool)
    server = TestServer(engine.app(), host="127.0.0.1")
    await server.start_server()
    try:
        async with aiohttp.ClientSession() as session:
            yield engine, Api(session, str(server.make_url("")).rstrip("/"))
    finally:
        await server.close()
        await engine.services.dispatcher.drain()
        await engine.close()


async def dispatch_until(engine: Engine, done: Any, rounds: int = 200) -> None:
    """Run the dispatcher until ``await done()`` is true (a bounded number of rounds)."""
    d = engine.services.dispatcher
    for _ in range(rounds):
        await d.run_once()
        await d.drain()
        if await done():
            return
        await asyncio.sleep(0.05)
    raise AssertionError("the deliveries did not settle")


@dataclass
class ConfirmCutter:
    """A loopback TCP proxy to a broker. Armed with a marker, it forwards the client's bytes
    holding it, then drops the connection before relaying anything more from the broker: the
    broker took the message and its confirmation never arrives."""

    target: tuple[str, int]
    marker: bytes | None = None
    cuts: int = 0
    port: int = 0
    _server: asyncio.Server | None = None
    _tasks: set[asyncio.Task[None]] = field(default_factory=set)

    async def start(self) -> int:
        self._server = await asyncio.start_server(self._handle, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]
        return self.port

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
        for t in list(self._tasks):
            t.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        up_r, up_w = await asyncio.open_connection(*self.target)
        cut = asyncio.Event()

        async def client_to_broker() -> None:
            while not cut.is_set():
                data = await reader.read(65536)
                if not data:
                    break
                up_w.write(data)
                await up_w.drain()
                if self.marker is not None and self.marker in data:
                    self.marker = None
                    self.cuts += 1
                    cut.set()

        async def broker_to_client() -> None:
            while True:
                data = await up_r.read(65536)
                if not data or cut.is_set():
                    break
                writer.write(data)
                await writer.drain()

        tasks = [
            asyncio.ensure_future(client_to_broker()),
            asyncio.ensure_future(broker_to_client()),
        ]
        for t in tasks:
            self._tasks.add(t)
            t.add_done_callback(self._tasks.discard)
        await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
        if cut.is_set():
            await asyncio.sleep(0.3)  # the broker stores it; its answer is swallowed
        for t in tasks:
            t.cancel()
        for w in (writer, up_w):
            w.close()
