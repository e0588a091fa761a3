"""Feeding one answer to llhttp within its byte budget (the connection is :mod:`.connection`).

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

from collections.abc import Callable
from typing import Final

import httptools

from .budget import (
    MAX_FIELD,
    MAX_FRAMING_BYTES,
    MAX_HEAD_BYTES,
    MAX_HEADERS,
    MAX_LINE,
    MAX_LINE_BYTES,
    MAX_TRAILER_BYTES,
    MAX_TRAILERS,
    Part,
    Response,
    ResponseError,
)

__all__ = ["AnswerReader"]

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


class AnswerReader:
    """The llhttp callbacks and the budgeted feeding of one answer, mixed into
    :class:`.connection.HttpConnection` (which owns the attributes below and resets them per
    exchange)."""

    _parser: httptools.HttpResponseParser | None
    _response: Response | None
    _fields: int
    _status_len: int
    _informational: bool
    _phase: str
    _line: int
    _tail: bytes
    _fed_body: int
    _clock: Callable[[], float]

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

    # -- feeding the parser within the budget ------------------------------------------------

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
