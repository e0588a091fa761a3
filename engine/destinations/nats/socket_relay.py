"""The NATS connection opened by the engine, handed to nats-py through a one-shot loopback relay.

nats-py opens its own sockets and has no transport hook, and it buffers whatever a server
announces (a ``MSG`` of 1.5 GB is read into memory). So the engine opens the broker's socket
itself (:meth:`.net.BrokerNet.open_stream`: vetted addresses, the guarded socket, TLS verified on
the broker's host name, handshake first) with every received byte checked by
:class:`~.bounds.NatsLines` and the connection's :class:`~.bounds.ByteBudget` before anything
buffers it, and nats-py talks plain NATS to :class:`NatsRelay`: a listener on ``127.0.0.1``
with an ephemeral port that takes ONE connection, then closes. The relay forwards both ways
unchanged but for the first ``INFO``, whose ``tls_required`` it clears (TLS is done, on the
engine's socket). A bound passed or the broker's socket ended ends nats-py's side too, and
:attr:`NatsRelay.ended` says why.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from typing import Any

import structlog

from ..brokers.bounds import PeerLimit
from ..brokers.net import Connected

__all__ = ["NatsRelay"]

log = structlog.get_logger("hookproof.destinations")

_CHUNK = 65_536


class NatsRelay:
    """One broker connection (``upstream``) offered to one local client (nats-py)."""

    def __init__(self, upstream: Connected) -> None:
        self.upstream = upstream
        self.port = 0
        #: set when either side ends; its result is the :class:`PeerLimit` that ended it, if
        #: a bound did
        self.ended: asyncio.Future[PeerLimit | None] = asyncio.get_running_loop().create_future()
        self._server: asyncio.Server | None = None
        self._tasks: set[asyncio.Task[Any]] = set()
        self._client: asyncio.StreamWriter | None = None

    async def start(self) -> str:
        """Listen; the ``nats://`` URL nats-py is to connect to."""
        self._server = await asyncio.start_server(self._accept, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]
        return f"nats://127.0.0.1:{self.port}"

    def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if self._client is not None or self._server is None:
            writer.close()  # one client only
            return
        self._client = writer
        self._server.close()  # no other connection is taken
        for coro in (self._down(writer), self._up(reader)):
            task = asyncio.get_running_loop().create_task(coro)
            self._tasks.add(task)
            task.add_done_callback(self._finished)

    def _finished(self, task: asyncio.Task[Any]) -> None:
        self._tasks.discard(task)
        refused: PeerLimit | None = None
        if not task.cancelled():
            exc = task.exception()
            if isinstance(exc, PeerLimit):
                refused = exc
        if not self.ended.done():
            self.ended.set_result(refused)
        if refused is not None:
            self._abort()  # nothing more of what the peer sent is passed on
        else:  # what was relayed reaches nats-py (a -ERR before the broker closed)
            for task in list(self._tasks):
                task.cancel()
            if self._client is not None:
                self._client.close()
            self.upstream.writer.close()

    async def _down(self, client: asyncio.StreamWriter) -> None:
        """Broker to nats-py: the first ``INFO`` without ``tls_required``, then as it comes
        (every byte already counted by the guard)."""
        reader = self.upstream.reader
        first = await reader.readline()
        client.write(_plain_info(first))
        await client.drain()
        while data := await reader.read(_CHUNK):
            client.write(data)
            await client.drain()

    async def _up(self, client: asyncio.StreamReader) -> None:
        """nats-py to the broker."""
        writer = self.upstream.writer
        while data := await client.read(_CHUNK):
            writer.write(data)
            await writer.drain()

    def _abort(self) -> None:
        for task in list(self._tasks):
            task.cancel()
        if self._client is not None:
            self._client.transport.abort()
        self.upstream.writer.transport.abort()

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
        self._abort()
        if not self.ended.done():
            self.ended.set_result(None)
        for task in list(self._tasks):
            with contextlib.suppress(BaseException):
                await task


def _plain_info(line: bytes) -> bytes:
    """The server's first line with ``tls_required`` cleared (an ``INFO``), else as it is."""
    head, _, rest = line.partition(b" ")
    if head.upper() != b"INFO":
        return line
    try:
        info = json.loads(rest)
    except (ValueError, RecursionError):  # a deeply nested one too
        return line  # nats-py reports it
    if not isinstance(info, dict):
        return line
    info["tls_required"] = False
    return b"INFO " + json.dumps(info, separators=(",", ":")).encode() + b"\r\n"
