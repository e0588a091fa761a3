"""One HTTPS/1.1 client connection on public interfaces only, and the no-stale-bytes rule.

:class:`HttpConnection` is an :class:`asyncio.Protocol` on a TCP transport from the public
``loop.create_connection(sock=...)``. TLS runs over two :class:`ssl.MemoryBIO` objects
(``SSLContext.wrap_bio``: verification and SNI on the original host name), so the peer
certificate comes from the very TLS object that carries the exchange, and an idle connection
holds no 256 KiB read buffer (asyncio's TLS transport allocates one per connection). The answer
is parsed by llhttp (``httptools.HttpResponseParser``, the parser aiohttp's C extension uses)
with aiohttp's ``ClientSession`` limits: 8,190-byte status line and fields, 128 fields.

The connection's states and the events that move it are one table (:mod:`.machine`;
every change goes through :func:`.machine.next_state`). ``BUSY``: one exchange in flight, the
bytes read are that exchange's answer. ``READY``: between exchanges (opened, taken from the
pool, or its answer read to the framed end). ``IDLE``: pooled. ``DEAD``: closed. A byte (or an
EOF) that arrives in ``READY`` or ``IDLE`` kills the connection (DESIGN.md section 5,
"Connection reuse"): an unsolicited response, a ``408`` or garbage written on an idle
connection is never read as the next request's answer, and bytes past a response's framed
end (more than its ``Content-Length``) make the connection unusable.
:meth:`HttpConnection.reusable` is the rest of the rule: keep-alive allowed, no upgrade, the
whole request handed to the OS before the answer ended (a server that answers before reading
the body may read what is left of it as the next request).

The answer is read by :class:`.reader.AnswerReader` within its byte budget (:mod:`.budget`).
An answer framed by the connection's end that ends without a TLS ``close_notify`` (a bare TCP
FIN or a reset) is ``truncated``: its status stands, its body may be incomplete.
"""

from __future__ import annotations

import asyncio
import socket
import ssl
from collections.abc import Callable
from typing import Final

import httptools

from .budget import (
    MAX_FRAMING_BYTES,
    MAX_HEAD_BYTES,
    MAX_LINE_BYTES,
    MAX_RECORDS,
    MAX_TRAILER_BYTES,
    MAX_TRAILERS,
    PART_NAMES,
    ByteBudget,
    Part,
    Response,
    ResponseError,
)
from .machine import ConnectionEvent, ConnectionState, next_state
from .reader import _HEAD, AnswerReader

__all__ = [
    "MAX_FRAMING_BYTES",
    "MAX_HEAD_BYTES",
    "MAX_LINE_BYTES",
    "MAX_RECORDS",
    "MAX_TRAILERS",
    "MAX_TRAILER_BYTES",
    "PART_NAMES",
    "ByteBudget",
    "ConnectionState",
    "HttpConnection",
    "Part",
    "Response",
    "ResponseError",
]

#: Plain bytes taken from the TLS object per read.
_READ_CHUNK: Final = 16 * 1024
#: Plain bytes (or TLS records) decrypted before they go to the parser together.
_FEED_BYTES: Final = 16 * 1024
_FEED_RECORDS: Final = 256


class HttpConnection(AnswerReader, asyncio.Protocol):
    """A TLS connection carrying one exchange at a time (see the module docstring)."""

    def __init__(self, ssl_ctx: ssl.SSLContext, server_hostname: str) -> None:
        self._incoming = ssl.MemoryBIO()
        self._outgoing = ssl.MemoryBIO()
        self.tls = ssl_ctx.wrap_bio(
            self._incoming, self._outgoing, server_side=False, server_hostname=server_hostname
        )
        self.transport: asyncio.Transport | None = None
        #: the connected socket (set by the opener): peeked before reuse, never read
        self.sock: socket.socket | None = None
        self._state: str = ConnectionState.HANDSHAKE
        self.stale = False  # bytes arrived while READY or IDLE
        self.paused = False
        self.lost = False
        self.ended = False  # the peer ended the stream (TLS close_notify, EOF or loss)
        # set by the pool: called with the connection when it dies while idle
        self.on_dead: Callable[[HttpConnection], None] | None = None
        self._waiter: asyncio.Future[None] | None = None
        self._parser: httptools.HttpResponseParser | None = None
        self._response: Response | None = None
        self._clean = False  # the last exchange ended at its framed end, keep-alive allowed
        self._fields = 0
        self._status_len = 0
        self._informational = False
        self._phase = _HEAD  # where the parser is in the answer (see _feed)
        self._line = 0  # bytes of the unfinished head line handed to the parser
        self._tail = b""  # the last (up to 3) head bytes handed to the parser
        self._fed_body = 0  # body bytes the parser gave back during the current feed
        self._clock = asyncio.get_running_loop().time

    @property
    def state(self) -> str:
        """The connection's state (:class:`.machine.ConnectionState`)."""
        return self._state

    def _move(self, event: str) -> None:
        """The one place the state changes: by the table (:func:`.machine.next_state`)."""
        self._state = next_state(self._state, event)

    # -- asyncio.Protocol -----------------------------------------------------------

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport

    def connection_lost(self, exc: Exception | None) -> None:
        self.lost = True
        self._end_of_stream()
        self._die(ConnectionEvent.LOST)
        self._wake()

    def eof_received(self) -> bool:
        self._end_of_stream()
        self._wake()
        return False  # the transport closes itself

    def pause_writing(self) -> None:
        self.paused = True

    def resume_writing(self) -> None:
        self.paused = False
        self._wake()

    def data_received(self, data: bytes) -> None:
        self._incoming.write(data)
        if self.state == ConnectionState.HANDSHAKE:
            self._wake()
            return
        self._pump()
        self._wake()

    # -- TLS --------------------------------------------------------------------------

    async def handshake(self) -> None:
        """Complete the TLS handshake (raises ssl.SSLError, ConnectionResetError)."""
        while True:
            try:
                self.tls.do_handshake()
                break
            except ssl.SSLWantReadError:
                self._flush()
                if self.lost:
                    raise ConnectionResetError("closed during the TLS handshake") from None
                await self._wait()
        self._flush()
        if self._state == ConnectionState.DEAD:  # lost as the handshake completed
            raise ConnectionResetError("closed during the TLS handshake")
        self._move(ConnectionEvent.HANDSHAKEN)  # nothing may arrive before our first request
        self._pump()
        if self.state == ConnectionState.DEAD:
            raise ConnectionResetError("the server wrote before the request")

    def _flush(self) -> None:
        data = self._outgoing.read()
        if data and self.transport is not None and not self.transport.is_closing():
            self.transport.write(data)

    def _pump(self) -> None:
        """Decrypt what arrived and hand it to the state it is in.

        TLS records are decrypted one per ``read``; their plain bytes go to the parser
        together (up to :data:`_FEED_BYTES` or :data:`_FEED_RECORDS` at a time), so a peer
        writing one-byte records costs a ``read`` per record, not a parser pass per record;
        once the exchange is refused nothing more is decrypted."""
        read = self.tls.read
        while self.state != ConnectionState.DEAD:
            if self.state != ConnectionState.BUSY:
                try:
                    chunk = read(_READ_CHUNK)
                except ssl.SSLWantReadError:
                    return
                except ssl.SSLZeroReturnError:
                    chunk = b""
                except ssl.SSLError as exc:
                    self._fail(exc)
                    return
                if not chunk:
                    self._end_of_stream(close_notify=True)
                else:
                    self.stale = True  # anything while READY or IDLE: never someone's answer
                    self.close()
                return
            r = self._response
            if r is not None and (r.error is not None or r.too_large is not None):
                # the exchange is over: nothing more is decrypted; end() closes
                if self.transport is not None and not self.transport.is_closing():
                    self.transport.pause_reading()
                return
            pieces: list[bytes] = []
            size = 0
            more = ended = False
            failure: ssl.SSLError | None = None
            try:
                while size < _FEED_BYTES and len(pieces) < _FEED_RECORDS:
                    chunk = read(_READ_CHUNK)
                    if not chunk:
                        ended = True
                        break
                    pieces.append(chunk)
                    size += len(chunk)
                else:
                    more = True  # a full batch: read on after feeding it
            except ssl.SSLWantReadError:
                pass
            except ssl.SSLZeroReturnError:
                ended = True
            except ssl.SSLError as exc:
                failure = exc
            # fed outside the handlers: a parser error keeps its own context
            if pieces:
                if r is not None:
                    budget = r.budget
                    budget.records += len(pieces)
                    if budget.records > budget.max_records:
                        r.error = ResponseError(
                            f"response in more than {budget.max_records} TLS records"
                        )
                        continue  # nothing more is decrypted
                self._feed(pieces[0] if len(pieces) == 1 else b"".join(pieces))
            if ended:
                self._end_of_stream(close_notify=True)
                return
            if failure is not None:
                self._fail(failure)
                return
            if not more:
                return

    # -- one exchange ---------------------------------------------------------------------

    def start(self, max_body: int) -> Response:
        """Begin an exchange: what is read from now on is this exchange's answer."""
        self._move(ConnectionEvent.START)
        self._clean = False
        self._response = response = Response(max_body, ByteBudget(max_body))
        self._parser = httptools.HttpResponseParser(self)
        self._fields = self._status_len = 0
        self._informational = False
        self._phase = _HEAD
        self._line = 0
        self._tail = b""
        return response

    def write(self, data: bytes) -> None:
        """Encrypt and hand ``data`` to the transport (raises ConnectionResetError if closed)."""
        transport = self.transport
        if transport is None or transport.is_closing() or self.state == ConnectionState.DEAD:
            raise ConnectionResetError("cannot write to a closed connection")
        self.tls.write(data)
        self._flush()

    @property
    def finished(self) -> bool:
        """The exchange has nothing more to wait for (answer read, refused or connection lost)."""
        r = self._response
        return r is None or r.complete or r.error is not None or r.too_large is not None

    async def wait(self) -> None:
        """Until something happens on the connection (data, drain, close)."""
        if self.lost:
            return
        await self._wait()

    def end(self) -> None:
        """The exchange is over: a complete answer leaves the connection ``READY``."""
        r = self._response
        self._clean = (
            r is not None
            and r.complete
            and r.keep_alive
            and not (r.extra or r.upgraded or r.until_eof)
        )
        if self.state == ConnectionState.BUSY:
            if r is not None and r.complete and not r.extra and not r.upgraded:
                self._move(ConnectionEvent.ANSWERED)
            else:
                self.close()
        self._parser = None
        self._response = None  # an idle connection keeps no answer

    def reusable(self) -> bool:
        """Whether the ended exchange leaves the connection fit for another request."""
        transport = self.transport
        return (
            self.state == ConnectionState.READY
            and self._clean
            and not self.ended
            and not self.paused
            and transport is not None
            and not transport.is_closing()
            and transport.get_write_buffer_size() == 0
        )

    def park(self) -> bool:
        """Mark a ``READY`` connection idle (pooled); False if it died meanwhile."""
        if self.state != ConnectionState.READY:
            return False
        self._move(ConnectionEvent.PARK)
        return True

    def take(self) -> bool:
        """Take an idle connection out of the pool; False if it died meanwhile, or if bytes
        (or an EOF) wait in the kernel that the event loop has not handed over yet: those
        would otherwise be read as the next exchange's answer."""
        if self.state != ConnectionState.IDLE or self.transport is None:
            return False
        if self.transport.is_closing():
            return False
        if self._arrived_unread():
            self.stale = True
            self.close()  # while IDLE: the pool hears of it (on_dead) and logs it
            return False
        self._move(ConnectionEvent.TAKE)
        return True

    def _arrived_unread(self) -> bool:
        """Whether the socket holds anything not yet read (peeked, never consumed)."""
        if self.sock is None:
            return False
        try:
            self.sock.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT)  # b"" is an EOF
        except BlockingIOError:
            return False
        except OSError:
            return True  # the connection is broken: not fit for another request
        return True

    def close(self) -> None:
        """Close (with a TLS close_notify when possible). Idempotent."""
        if self.state == ConnectionState.DEAD:
            return
        transport = self.transport
        if transport is not None and not transport.is_closing():
            if self.state != ConnectionState.HANDSHAKE:
                try:
                    self.tls.unwrap()
                except ssl.SSLError:
                    pass
                self._flush()
            transport.close()
        self._die(ConnectionEvent.CLOSE)

    # -- internals ------------------------------------------------------------------------

    def _end_of_stream(self, *, close_notify: bool = False) -> None:
        self.ended = True
        r = self._response
        if self.state == ConnectionState.BUSY and r is not None and not self.finished:
            if r.status is not None and r.until_eof:
                r.complete = True  # the body ended with the connection
                r.keep_alive = False
                # without close_notify a FIN (anyone's on the path) may have cut it short
                r.truncated = not close_notify
            else:
                r.error = ConnectionResetError("connection closed before the response ended")
        elif self.state in (ConnectionState.READY, ConnectionState.IDLE):
            self.close()  # the server closed it: not pooled any longer

    def _fail(self, exc: BaseException) -> None:
        r = self._response
        if self.state == ConnectionState.BUSY and r is not None and not self.finished:
            r.error = exc
        self.close()

    def _die(self, event: str) -> None:
        if self._state == ConnectionState.DEAD:
            return  # closed by us, then lost: already dead
        was_idle = self._state == ConnectionState.IDLE
        self._move(event)
        if was_idle and self.on_dead is not None:
            self.on_dead(self)

    async def _wait(self) -> None:
        waiter = asyncio.get_running_loop().create_future()
        self._waiter = waiter
        try:
            await waiter
        finally:
            self._waiter = None

    def _wake(self) -> None:
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)
