"""One HTTPS/1.1 client connection on public interfaces only, and the no-stale-bytes rule.

:class:`HttpConnection` is an :class:`asyncio.Protocol` on a TCP transport from the public
``loop.create_connection(sock=...)``. TLS runs over two :class:`ssl.MemoryBIO` objects
(``SSLContext.wrap_bio``: verification and SNI on the original host name), so the peer
certificate comes from the very TLS object that carries the exchange, and an idle connection
holds no 256 KiB read buffer (asyncio's TLS transport allocates one per connection). The answer
is parsed by llhttp (``httptools.HttpResponseParser``, the parser aiohttp's C extension uses)
with aiohttp's ``ClientSession`` limits: 8,190-byte status line and fields, 128 fields.

The connection is in one of four states. ``BUSY``: one exchange in flight, the bytes read are
that exchange's answer. ``DONE``: the answer was read to its framed end, waiting to be pooled.
``IDLE``: pooled. ``DEAD``: closed. A byte (or an EOF) that arrives in ``DONE`` or ``IDLE``
kills the connection (DESIGN.md section 5, "Connection reuse"): an unsolicited response, a
``408`` or garbage written on an idle connection is never read as the next request's answer,
and bytes past a response's framed end (more than its ``Content-Length``) make the connection
unusable. :meth:`HttpConnection.reusable` is the rest of the rule: keep-alive allowed, no
upgrade, the whole request handed to the OS before the answer ended (a server that answers
before reading the body may read what is left of it as the next request).
"""

from __future__ import annotations

import asyncio
import socket
import ssl
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Final

import httptools

__all__ = ["ConnectionState", "HttpConnection", "Response", "ResponseError"]

#: aiohttp's ClientSession defaults for the response parser.
MAX_LINE: Final = 8190
MAX_FIELD: Final = 8190
MAX_HEADERS: Final = 128
#: The most head bytes read before the head is complete (every field at its bound).
MAX_HEAD_BYTES: Final = (MAX_HEADERS + 2) * (MAX_FIELD + 4)
#: Plain bytes taken from the TLS object per read.
_READ_CHUNK: Final = 16 * 1024


class ConnectionState:
    """The states of a connection (plain strings, compared by identity-safe equality)."""

    HANDSHAKE: Final = "handshake"
    BUSY: Final = "busy"
    DONE: Final = "done"
    IDLE: Final = "idle"
    DEAD: Final = "dead"


class ResponseError(Exception):
    """The answer was not valid HTTP/1.1 or broke a parser limit (a protocol error)."""


@dataclass(slots=True)
class Response:
    """What one exchange read: the final answer's status, fields and (bounded) body."""

    max_body: int
    status: int | None = None
    headers: list[tuple[bytes, bytes]] = field(default_factory=list)
    chunks: list[bytes] = field(default_factory=list)
    size: int = 0
    head_at: float | None = None
    complete: bool = False
    too_large: str | None = None  # why the body was not read to its end
    error: BaseException | None = None
    keep_alive: bool = False
    upgraded: bool = False
    extra: bool = False  # bytes past the framed end
    until_eof: bool = False  # no length and not chunked: the body ends with the connection


class HttpConnection(asyncio.Protocol):
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
        self.state: str = ConnectionState.HANDSHAKE
        self.stale = False  # bytes arrived while DONE or IDLE
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
        self._head_bytes = 0
        self._informational = False
        self._clock = asyncio.get_running_loop().time

    # -- asyncio.Protocol -----------------------------------------------------------

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport

    def connection_lost(self, exc: Exception | None) -> None:
        self.lost = True
        self._end_of_stream()
        self._die()
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
        self.state = ConnectionState.DONE  # nothing may arrive before our first request
        self._pump()
        if self.state == ConnectionState.DEAD:
            raise ConnectionResetError("the server wrote before the request")

    def _flush(self) -> None:
        data = self._outgoing.read()
        if data and self.transport is not None and not self.transport.is_closing():
            self.transport.write(data)

    def _pump(self) -> None:
        """Decrypt what arrived and hand it to the state it is in."""
        while True:
            try:
                chunk = self.tls.read(_READ_CHUNK)
            except ssl.SSLWantReadError:
                return
            except ssl.SSLZeroReturnError:
                chunk = b""
            except ssl.SSLError as exc:
                self._fail(exc)
                return
            if not chunk:
                self._end_of_stream()
                return
            if self.state == ConnectionState.BUSY:
                self._feed(chunk)
            else:
                self.stale = True  # anything while DONE or IDLE: never someone's answer
                self.close()
                return

    # -- one exchange ---------------------------------------------------------------------

    def start(self, max_body: int) -> Response:
        """Begin an exchange: what is read from now on is this exchange's answer."""
        assert self.state in (ConnectionState.DONE, ConnectionState.IDLE)
        self.state = ConnectionState.BUSY
        self._clean = False
        self._response = response = Response(max_body)
        self._parser = httptools.HttpResponseParser(self)
        self._fields = self._head_bytes = 0
        self._informational = False
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
        """The exchange is over: a complete answer leaves the connection ``DONE``."""
        r = self._response
        self._clean = (
            r is not None
            and r.complete
            and r.keep_alive
            and not (r.extra or r.upgraded or r.until_eof)
        )
        if self.state == ConnectionState.BUSY:
            if r is not None and r.complete and not r.extra and not r.upgraded:
                self.state = ConnectionState.DONE
            else:
                self.close()
        self._parser = None
        self._response = None  # an idle connection keeps no answer

    def reusable(self) -> bool:
        """Whether the ended exchange leaves the connection fit for another request."""
        transport = self.transport
        return (
            self.state == ConnectionState.DONE
            and self._clean
            and not self.ended
            and not self.paused
            and transport is not None
            and not transport.is_closing()
            and transport.get_write_buffer_size() == 0
        )

    def park(self) -> bool:
        """Mark a ``DONE`` connection idle (pooled); False if it died meanwhile."""
        if self.state != ConnectionState.DONE:
            return False
        self.state = ConnectionState.IDLE
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
        self.state = ConnectionState.DONE
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
        self._die()

    # -- llhttp callbacks (httptools calls them from feed_data) -------------------------

    def on_message_begin(self) -> None:
        r = self._response
        assert r is not None
        if r.complete:
            r.extra = True
            raise ResponseError("bytes past the end of the response")
        r.headers = []
        self._fields = 0

    def on_status(self, status: bytes) -> None:
        if len(status) > MAX_LINE:
            raise ResponseError("status line too long")

    def on_header(self, name: bytes, value: bytes) -> None:
        self._fields += 1
        if self._fields > MAX_HEADERS:
            raise ResponseError(f"more than {MAX_HEADERS} header fields")
        if len(name) > MAX_FIELD or len(value) > MAX_FIELD:
            raise ResponseError("header field too long")
        r = self._response
        assert r is not None
        r.headers.append((name, value))

    def on_headers_complete(self) -> None:
        r = self._response
        parser = self._parser
        assert r is not None and parser is not None
        status = parser.get_status_code()
        self._informational = 100 <= status < 200 and status != 101
        if self._informational:
            return
        r.status = status
        r.head_at = self._clock()
        length: bytes | None = None
        chunked = False
        for name, value in r.headers:
            low = name.lower()
            if low == b"content-length" and length is None:
                length = value.strip()
            elif low == b"transfer-encoding":
                chunked = True
        bodiless = status in (204, 304) or status == 101
        r.until_eof = length is None and not chunked and not bodiless
        if length is not None and length.isdigit() and int(length) > r.max_body:
            r.too_large = f"Content-Length {length.decode('ascii')} over bound"

    def on_body(self, body: bytes) -> None:
        r = self._response
        assert r is not None
        if r.too_large is not None:
            return
        r.size += len(body)
        if r.size > r.max_body:
            keep = r.max_body - (r.size - len(body))
            r.chunks.append(body[: max(keep, 0)])
            r.too_large = f"body over {r.max_body} bytes"
            return
        r.chunks.append(body)

    def on_message_complete(self) -> None:
        r = self._response
        parser = self._parser
        assert r is not None and parser is not None
        if self._informational:
            self._informational = False
            return
        r.complete = True
        r.keep_alive = parser.should_keep_alive()

    # -- internals ------------------------------------------------------------------------

    def _feed(self, chunk: bytes) -> None:
        r = self._response
        parser = self._parser
        if r is None or parser is None or r.error is not None or r.too_large is not None:
            return
        if r.status is None:
            self._head_bytes += len(chunk)
        try:
            parser.feed_data(chunk)
        except httptools.HttpParserUpgrade:
            r.complete = r.upgraded = True  # a 101: never pooled
        except (httptools.HttpParserError, ResponseError) as exc:
            if r.complete:
                r.extra = True  # the answer stands; the connection does not
            else:
                cause = exc.__context__ if isinstance(exc.__context__, ResponseError) else exc
                r.error = ResponseError(f"{type(cause).__name__}: {cause}")
        if r.status is None and self._head_bytes > MAX_HEAD_BYTES and r.error is None:
            r.error = ResponseError("response head too long")

    def _end_of_stream(self) -> None:
        self.ended = True
        r = self._response
        if self.state == ConnectionState.BUSY and r is not None and not self.finished:
            if r.status is not None and r.until_eof:
                r.complete = True  # the body ended with the connection
                r.keep_alive = False
            else:
                r.error = ConnectionResetError("connection closed before the response ended")
        elif self.state in (ConnectionState.DONE, ConnectionState.IDLE):
            self.close()  # the server closed it: not pooled any longer

    def _fail(self, exc: BaseException) -> None:
        r = self._response
        if self.state == ConnectionState.BUSY and r is not None and not self.finished:
            r.error = exc
        self.close()

    def _die(self) -> None:
        was_idle = self.state == ConnectionState.IDLE
        self.state = ConnectionState.DEAD
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
