"""A stream whose every received chunk is counted before the library's buffer takes it.

:class:`GuardedProtocol` is asyncio's own ``StreamReaderProtocol`` (the protocol
``asyncio.open_connection`` builds) with one step in front of ``data_received``: the chunk goes
to a :class:`Guard` (the frame reader of the kind and the connection's
:class:`~.bounds.ByteBudget`) first, which passes it on (AMQP's ``Connection.Tune`` with the
``frame_max`` lowered to ours, the rest as it came). A chunk past a bound never reaches the
``StreamReader``: the reader is failed with the :class:`~.bounds.PeerLimit` (what the library
awaiting it then raises) and the transport aborted, so nothing the peer announced is buffered
and the socket's memory is returned at once.
"""

from __future__ import annotations

import asyncio
import socket
import ssl
from collections.abc import Callable
from dataclasses import dataclass, field

from .bounds import ByteBudget, LimitCode, PeerLimit

__all__ = ["Guard", "GuardedProtocol", "open_guarded"]


@dataclass
class Guard:
    """What a connection's received bytes are checked by: ``frames`` (a kind's
    ``feed(bytes)``) and ``budget``. ``refused`` holds the bound it went past, if any."""

    frames: Callable[[bytes], bytes]
    budget: ByteBudget
    refused: PeerLimit | None = field(default=None)

    def check(self, data: bytes) -> bytes:
        """*data* as the library is to read it; :class:`PeerLimit` past a bound."""
        self.budget.spend(len(data))
        return self.frames(data)


class GuardedProtocol(asyncio.StreamReaderProtocol):
    """``StreamReaderProtocol`` whose received chunks pass :class:`Guard` first."""

    def __init__(self, reader: asyncio.StreamReader, guard: Guard) -> None:
        super().__init__(reader)
        self.guard = guard
        self.reader = reader
        self.transport: asyncio.BaseTransport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport
        super().connection_made(transport)

    def data_received(self, data: bytes) -> None:
        if self.guard.refused is not None:
            return  # aborted: nothing more is kept
        try:
            data = self.guard.check(data)
        except PeerLimit as exc:
            self.guard.refused = exc
            self.reader.set_exception(exc)
            if isinstance(self.transport, asyncio.Transport):
                self.transport.abort()
            return
        if data:
            super().data_received(data)


async def open_guarded(
    sock: socket.socket,
    guard: Guard,
    *,
    limit: int,
    ssl_context: ssl.SSLContext | None,
    server_hostname: str | None,
    tls_handshake_s: float,
) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """``asyncio.open_connection(sock=...)`` with :class:`GuardedProtocol`; a TLS handshake
    longer than ``tls_handshake_s`` is :data:`LimitCode.TLS_HANDSHAKE_TIMEOUT`."""
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=limit, loop=loop)
    protocol = GuardedProtocol(reader, guard)
    try:
        async with asyncio.timeout(tls_handshake_s if ssl_context is not None else None):
            transport, _ = await loop.create_connection(
                lambda: protocol,
                sock=sock,
                ssl=ssl_context,
                server_hostname=server_hostname,
                # asyncio's own bound is a backstop: ours ends the handshake first
                ssl_handshake_timeout=tls_handshake_s + 1 if ssl_context is not None else None,
            )
    except TimeoutError as exc:
        raise PeerLimit(
            LimitCode.TLS_HANDSHAKE_TIMEOUT,
            f"no TLS handshake within {tls_handshake_s:g} s",
        ) from exc
    return reader, asyncio.StreamWriter(transport, protocol, reader, loop)
