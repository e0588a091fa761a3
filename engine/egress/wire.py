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

Every byte of an answer counts (DESIGN.md section 5, the last point; issue 32): the head
(informational answers included), the body, the chunk framing (size lines, extensions, the CRLF
after each chunk) and the trailers with the final CRLF each have a bound (:class:`ByteBudget`),
checked *before* the bytes are handed to the parser, so the parser never holds more than a
bound's worth of an unfinished line: httptools keeps an unfinished field with ``bytes +=`` and
checks nothing until the field ends. Over a bound is a protocol error (``ResponseError``) and the
connection stops being read; the exchange's end closes it. So an answer costs CPU in proportion
to the bytes it is allowed, never to how long its peer keeps writing.

The head is handed to the parser up to its end (the first CRLF CRLF: llhttp refuses bare LF
and obsolete line folding, so no field spans lines) with every unfinished line held to
:data:`MAX_LINE_BYTES`; a body framed by ``Content-Length`` or by the connection's end goes to the
parser as it comes; a chunked body goes line by line, its phase read from the parser's own
callbacks (a chunk header opens data or, for the last chunk, the trailers: one byte tells
which). Bytes that fit every bound whatever they are go in one piece (a whole final head and at
most 8 KiB after it, the common answer; the rest of a chunked body within both the framing and
the trailer room), their non-data bytes charged to both bounds unless the answer ended with
them, so a bound is never looser than stated, only sometimes reached sooner. Decrypted records
go to the parser together (a peer writing one-byte records costs a TLS read per record, not a
parser pass), and an answer may come in at most :data:`MAX_RECORDS` records. An answer framed
by the connection's end that ends without a TLS ``close_notify`` (a bare TCP FIN or a reset) is
``truncated``: its status stands, its body may be incomplete.
"""

from __future__ import annotations

import asyncio
import socket
import ssl
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Final

import httptools

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

#: aiohttp's ClientSession defaults for the response parser.
MAX_LINE: Final = 8190
MAX_FIELD: Final = 8190
MAX_HEADERS: Final = 128
#: One line of the head or of the trailers: a name and a value at their bounds, ": " and CRLF.
MAX_LINE_BYTES: Final = 2 * MAX_FIELD + 4
#: Every byte of the head(s), informational answers included.
MAX_HEAD_BYTES: Final = 64 * 1024
#: Chunk size lines (with their extensions) and the CRLF after each chunk's data: at least
#: this, or an eighth of the body bound (a body at its bound in chunks of 64 bytes or more).
MAX_FRAMING_BYTES: Final = 8 * 1024
#: The trailer section of a chunked answer, its final CRLF included, and its fields.
MAX_TRAILER_BYTES: Final = 8 * 1024
MAX_TRAILERS: Final = 64
#: TLS records carrying one answer: a peer writing one-byte records pays a TLS read per byte,
#: so their number is bounded too (at least 4,096, or one per 64 bytes of every bound).
MAX_RECORDS: Final = 4096
#: Plain bytes taken from the TLS object per read.
_READ_CHUNK: Final = 16 * 1024
#: Plain bytes (or TLS records) decrypted before they go to the parser together.
_FEED_BYTES: Final = 16 * 1024
_FEED_RECORDS: Final = 256


# Where the parser is in an answer: the head; a body framed by length or by the connection's
# end; a chunk size line; just past a chunk header (data or, for the last chunk, trailers);
# a chunk's data; the trailers.
_HEAD: Final = "head"
_BODY: Final = "body"
_SIZE: Final = "size"
_START: Final = "start"
_DATA: Final = "data"
_TRAILER: Final = "trailer"
#: A piece of a chunked body whose non-data bytes may be framing or trailers.
_UNSURE: Final = -1
#: The first digit of a final (not informational) status.
_FINAL_STATUS: Final = (b"2", b"3", b"4", b"5")
#: Bytes after a head that fit the framing and the trailer bounds whatever they are.
_SMALL_REST: Final = min(MAX_FRAMING_BYTES, MAX_TRAILER_BYTES)


class ConnectionState:
    """The states of a connection (plain strings, compared by identity-safe equality)."""

    HANDSHAKE: Final = "handshake"
    BUSY: Final = "busy"
    DONE: Final = "done"
    IDLE: Final = "idle"
    DEAD: Final = "dead"


class Part:
    """The parts of an answer that each have a byte bound (indexes into
    :attr:`ByteBudget.counts`; :data:`PART_NAMES` names them)."""

    HEAD: Final = 0
    BODY: Final = 1
    FRAMING: Final = 2
    TRAILER: Final = 3


PART_NAMES: Final = ("head", "body", "framing", "trailer")


_LIMITS: dict[int, tuple[tuple[int, int, int, int], int]] = {}


class ByteBudget:
    """What one exchange's answer may cost, in bytes, and what it took so far (pure).

    ``counts[Part.HEAD]`` counts the status lines and fields of every head read (informational
    answers included), ``counts[Part.BODY]`` the body's bytes, ``counts[Part.FRAMING]`` the
    chunk size lines, chunk extensions and the CRLF after each chunk's data,
    ``counts[Part.TRAILER]`` the trailer section and the final CRLF; ``trailer_fields`` the
    trailer fields. ``bounds`` are the parts' bounds: the head :data:`MAX_HEAD_BYTES`, the body
    ``max_body``, the framing :data:`MAX_FRAMING_BYTES` or an eighth of ``max_body`` (a body at
    its bound in chunks of 64 bytes or more), the trailers :data:`MAX_TRAILER_BYTES`. Their sum
    (:attr:`limit`) is the most any answer can take.
    """

    __slots__ = (
        "bounds",
        "counts",
        "max_body",
        "max_records",
        "received",
        "records",
        "trailer_fields",
    )

    def __init__(self, max_body: int) -> None:
        self.max_body = max_body
        self.received = 0  # every byte read, each counted once
        self.counts = [0, 0, 0, 0]
        self.trailer_fields = 0
        self.records = 0
        limits = _LIMITS.get(max_body)  # one per configured body bound: computed once
        if limits is None:
            bounds = (
                MAX_HEAD_BYTES,
                max_body,
                max(MAX_FRAMING_BYTES, max_body // 8),
                MAX_TRAILER_BYTES,
            )
            limits = (bounds, max(MAX_RECORDS, sum(bounds) // 64))
            if len(_LIMITS) < 64:
                _LIMITS[max_body] = limits
        self.bounds, self.max_records = limits

    def add_records(self, n: int) -> bool:
        """Count ``n`` TLS records of the answer; False past :attr:`max_records`."""
        self.records += n
        return self.records <= self.max_records

    def room(self, part: int) -> int:
        """Bytes of ``part`` that may still be read (0: none)."""
        return max(self.bounds[part] - self.counts[part], 0)

    def add(self, part: int, n: int) -> bool:
        """Count ``n`` bytes of ``part``; False when that takes the part over its bound."""
        self.received += n
        self.counts[part] += n
        return self.counts[part] <= self.bounds[part]

    def add_framing_or_trailer(self, n: int, *, ended: bool) -> bool:
        """Count ``n`` bytes of a chunked body that are not data and were read in one piece
        whose split between chunk framing and trailers is not known: against both bounds,
        unless the answer ``ended`` with that piece (nothing more is read then). False when
        that takes either over its bound."""
        self.received += n
        counts = self.counts
        counts[Part.FRAMING] += n
        if not ended:
            counts[Part.TRAILER] += n
        bounds = self.bounds
        return counts[Part.FRAMING] <= bounds[Part.FRAMING] and (
            counts[Part.TRAILER] <= bounds[Part.TRAILER]
        )

    def add_trailer_field(self) -> bool:
        """Count one trailer field; False past :data:`MAX_TRAILERS`."""
        self.trailer_fields += 1
        return self.trailer_fields <= MAX_TRAILERS

    @property
    def total(self) -> int:
        """Every byte of the answer read so far."""
        return self.received

    @property
    def limit(self) -> int:
        """The most bytes any answer may take (every part at its bound)."""
        return sum(self.bounds)

    def refusal(self, part: int) -> str:
        """The detail of a refusal for ``part`` over its bound."""
        return f"response {PART_NAMES[part]} over {self.bounds[part]} bytes"

    def __repr__(self) -> str:
        parts = ", ".join(f"{n}={c}" for n, c in zip(PART_NAMES, self.counts, strict=True))
        return f"ByteBudget({parts}, trailer_fields={self.trailer_fields}, records={self.records})"


class ResponseError(Exception):
    """The answer was not valid HTTP/1.1 or broke a parser limit (a protocol error)."""


@dataclass(slots=True)
class Response:
    """What one exchange read: the final answer's status, fields and (bounded) body."""

    max_body: int
    budget: ByteBudget
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
    #: the body ended with the connection, without a TLS close_notify: it may be incomplete
    truncated: bool = False

    @property
    def received(self) -> int:
        """Every byte of the answer handed to the parser (head, body, framing, trailers)."""
        return self.budget.total


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
        self._status_len = 0
        self._informational = False
        self._phase = _HEAD  # where the parser is in the answer (see _feed)
        self._line = 0  # bytes of the unfinished head line handed to the parser
        self._tail = b""  # the last (up to 3) head bytes handed to the parser
        self._fed_body = 0  # body bytes the parser gave back during the current feed
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
                    self.stale = True  # anything while DONE or IDLE: never someone's answer
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
        assert self.state in (ConnectionState.DONE, ConnectionState.IDLE)
        self.state = ConnectionState.BUSY
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
        self._fields = self._status_len = 0

    def on_status(self, status: bytes) -> None:
        self._status_len += len(status)  # llhttp hands the reason over in pieces
        if self._status_len > MAX_LINE:
            raise ResponseError("status line too long")

    def on_header(self, name: bytes, value: bytes) -> None:
        if len(name) > MAX_FIELD or len(value) > MAX_FIELD:
            raise ResponseError("header field too long")
        r = self._response
        assert r is not None
        if self._phase != _HEAD:  # a trailer field: counted, never read as a header
            if not r.budget.add_trailer_field():
                raise ResponseError(f"more than {MAX_TRAILERS} trailer fields")
            return
        self._fields += 1
        if self._fields > MAX_HEADERS:
            raise ResponseError(f"more than {MAX_HEADERS} header fields")
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
                # llhttp's rule: chunked when the last coding of the last field is "chunked"
                chunked = value.rsplit(b",", 1)[-1].strip().lower() == b"chunked"
        bodiless = status in (204, 304) or status == 101
        r.until_eof = length is None and not chunked and not bodiless
        self._phase = _SIZE if chunked else _BODY
        if length is not None and length.isdigit() and int(length) > r.max_body:
            r.too_large = f"Content-Length {length.decode('ascii')} over bound"

    def on_body(self, body: bytes) -> None:
        r = self._response
        assert r is not None
        self._fed_body += len(body)
        if self._phase == _START:
            self._phase = _DATA
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

    def on_chunk_header(self) -> None:
        self._phase = _START  # data follows, or (the last chunk) the trailers

    def on_chunk_complete(self) -> None:
        self._phase = _SIZE

    # -- internals ------------------------------------------------------------------------

    def _feed(self, data: bytes) -> None:
        """Hand ``data`` to the parser, each part within its bound (see the module docstring)."""
        r = self._response
        if r is None or self._parser is None:
            return
        budget = r.budget
        n = len(data)
        if (
            budget.received == 0
            and self._phase == _HEAD
            and data.startswith(b"HTTP/1.")
            and data[9:10] in _FINAL_STATUS
        ):
            # the common case: the first read holds a whole final head within the line bound
            # and at most _SMALL_REST bytes after it, which fit every bound whatever they are
            head = data.find(b"\r\n\r\n", 0, MAX_LINE_BYTES) + 4
            if head >= 4 and n - head <= _SMALL_REST:
                self._parse(r, Part.HEAD, data)
                rest = budget.counts[Part.HEAD] - head
                if rest > 0 and self._phase not in (_HEAD, _BODY):  # chunked: framing, trailers
                    budget.counts[Part.HEAD] = head
                    budget.received -= rest
                    budget.add_framing_or_trailer(rest, ended=r.complete)
                return
        pos = 0
        while pos < n and r.error is None and r.too_large is None:
            if r.complete:
                r.extra = True  # bytes past the framed end: the answer stands, the conn does not
                return
            phase = self._phase
            if phase == _HEAD:
                pos = self._feed_head(r, data, pos)
            elif phase == _BODY:  # framed by length or by the connection's end: body only
                self._parse(r, Part.BODY, data[pos:] if pos else data)
                pos = n
            elif phase != _TRAILER and n - pos <= min(
                budget.room(Part.FRAMING), budget.room(Part.TRAILER)
            ):
                # chunked, and the rest fits both bounds whatever it holds: in one piece
                self._parse(r, _UNSURE, data[pos:] if pos else data)
                pos = n
                for part in (Part.FRAMING, Part.TRAILER):
                    if r.error is None and budget.counts[part] > budget.bounds[part]:
                        self._refuse(r, part)
            elif phase == _TRAILER:
                # the rest of the answer is trailers (a byte past their end is refused anyway)
                take = min(n - pos, budget.room(Part.TRAILER))
                if take == 0:
                    self._refuse(r, Part.TRAILER)
                    return
                self._parse(r, Part.TRAILER, data[pos : pos + take])
                pos += take
            elif phase == _START:
                # one byte tells data (the parser hands it back as body) from trailers
                self._parse(r, Part.TRAILER, data[pos : pos + 1])
                if self._phase == _START:
                    self._phase = _TRAILER
                pos += 1
            else:  # _SIZE or _DATA: one line at a time (a chunk's data may hold LFs)
                lf = data.find(b"\n", pos)
                stop = n if lf < 0 else lf + 1
                if phase == _SIZE:
                    stop = min(stop, pos + budget.room(Part.FRAMING))
                    if stop == pos:
                        self._refuse(r, Part.FRAMING)
                        return
                self._parse(r, Part.FRAMING, data[pos:stop])
                pos = stop
                if budget.counts[Part.FRAMING] > budget.bounds[Part.FRAMING] and r.error is None:
                    self._refuse(r, Part.FRAMING)

    def _feed_head(self, r: Response, data: bytes, pos: int) -> int:
        """Hand the head (up to its end, CRLF CRLF) to the parser; where to go on from."""
        n = len(data)
        budget = r.budget
        end = -1
        tail = self._tail
        if tail:  # the head's end may straddle two reads
            probe = (tail + data[pos : pos + 3]).find(b"\r\n\r\n")
            if probe >= 0:
                end = pos + probe + 4 - len(tail)
        if end < 0:
            end = data.find(b"\r\n\r\n", pos)
            if end >= 0:
                end += 4
        stop = n if end < 0 else end
        line = 0  # the unfinished line the parser holds after this piece
        if end < 0 or self._line + stop - pos > MAX_LINE_BYTES:
            first = data.find(b"\n", pos, stop)
            if self._line + ((stop if first < 0 else first) - pos) > MAX_LINE_BYTES:
                r.error = ResponseError(f"a response head line over {MAX_LINE_BYTES} bytes")
                return stop
            if end < 0:  # the head goes on past this read: its last line is unfinished
                last = data.rfind(b"\n", pos, stop)
                line = self._line + (stop - pos) if last < 0 else stop - last - 1
                if line > MAX_LINE_BYTES:
                    r.error = ResponseError(f"a response head line over {MAX_LINE_BYTES} bytes")
                    return stop
        if budget.counts[Part.HEAD] + stop - pos > MAX_HEAD_BYTES:
            self._refuse(r, Part.HEAD)
            return stop
        self._parse(r, Part.HEAD, data[pos:stop] if pos or stop < n else data)
        self._line = line
        self._tail = (tail + data[max(pos, stop - 3) : stop])[-3:] if end < 0 else b""
        return stop

    def _parse(self, r: Response, part: int, piece: bytes) -> None:
        """Feed the parser one piece; its bytes count as body (what the parser hands back as
        body) and as ``part`` (the rest)."""
        parser = self._parser
        assert parser is not None
        self._fed_body = 0
        try:
            parser.feed_data(piece)
        except httptools.HttpParserUpgrade:
            r.complete = r.upgraded = True  # a 101: never pooled
        except (httptools.HttpParserError, ResponseError) as exc:
            if r.complete:
                r.extra = True  # the answer stands; the connection does not
            else:
                cause = exc.__context__ if isinstance(exc.__context__, ResponseError) else exc
                r.error = ResponseError(f"{type(cause).__name__}: {cause}")
        budget = r.budget
        body = self._fed_body
        if part == _UNSURE:
            budget.counts[Part.BODY] += body
            budget.received += body
            budget.add_framing_or_trailer(len(piece) - body, ended=r.complete)
            return
        budget.received += len(piece)
        counts = budget.counts
        counts[Part.BODY] += body
        counts[part] += len(piece) - body

    def _refuse(self, r: Response, part: int) -> None:
        r.error = ResponseError(r.budget.refusal(part))

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
