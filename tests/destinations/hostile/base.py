"""What every fake broker of the hostile kit shares: a loopback asyncio server whose sessions
are tracked (:meth:`FakeServer.drop_all` ends them), a hang that lasts until the client leaves
or the server closes, and the giant frame: a header announcing :data:`GIANT_SIZE` bytes followed
by up to :data:`GIANT_SENT` of them, as fast as the client takes them."""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass, field
from typing import Final

__all__ = ["GIANT_SENT", "GIANT_SIZE", "FakeServer", "stream_giant"]

#: what a giant frame announces (1.5 GB)
GIANT_SIZE: Final = 1_500_000_000
#: how much of it is sent at most (a client that buffers it all grows by this much)
GIANT_SENT: Final = 96 * 1024 * 1024
_CHUNK: Final = b"\0" * (1024 * 1024)


async def stream_giant(writer: asyncio.StreamWriter, header: bytes) -> None:
    """*header*, then zeros up to :data:`GIANT_SENT` (or until the client leaves)."""
    with contextlib.suppress(ConnectionError):
        writer.write(header)
        sent = 0
        while sent < GIANT_SENT:
            writer.write(_CHUNK)
            sent += len(_CHUNK)
            await writer.drain()
        await asyncio.Event().wait()  # the rest never comes


@dataclass
class FakeServer:
    """Subclasses implement ``session``; ``mode`` is read when a session (or publish) starts."""

    mode: str = "good"
    port: int = 0
    connections: int = 0
    publishes: int = 0
    _server: asyncio.Server | None = None
    _sessions: set[asyncio.Task[None]] = field(default_factory=set)
    _writers: set[asyncio.StreamWriter] = field(default_factory=set)
    #: set while no session is open
    none_open: asyncio.Event = field(default_factory=asyncio.Event)

    async def start(self) -> int:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]
        return self.port

    @property
    def open_sessions(self) -> int:
        return len(self._sessions)

    def mode_at_publish(self) -> str:
        return self.mode

    async def session(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        raise NotImplementedError

    async def hang(self) -> None:
        await asyncio.Event().wait()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        task = asyncio.current_task()
        assert task is not None
        self._sessions.add(task)
        self.none_open.clear()
        self._writers.add(writer)
        try:
            await self.session(reader, writer)
        except (ConnectionError, asyncio.IncompleteReadError, asyncio.CancelledError):
            pass
        finally:
            self._sessions.discard(task)
            if not self._sessions:
                self.none_open.set()
            self._writers.discard(writer)
            writer.transport.abort()

    def drop_all(self) -> None:
        """End every open session (their clients see the connection reset)."""
        for w in list(self._writers):
            w.transport.abort()
        for t in list(self._sessions):
            t.cancel()

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
        self.drop_all()
        await asyncio.sleep(0)
