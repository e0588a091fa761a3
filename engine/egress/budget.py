"""What one exchange's answer may cost and what it read (pure; the connection is
:mod:`.connection`).

:class:`ByteBudget` bounds every byte of an answer (DESIGN.md section 5, the last point; issue
32): the head (informational answers included), the body, the chunk framing (size lines,
extensions, the CRLF after each chunk) and the trailers with the final CRLF each have a bound,
and the TLS records one answer may come in are bounded too. :class:`Response` is what the
connection read of one exchange's answer; :class:`ResponseError` a protocol error.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final

__all__ = [
    "MAX_FIELD",
    "MAX_FRAMING_BYTES",
    "MAX_HEADERS",
    "MAX_HEAD_BYTES",
    "MAX_LINE",
    "MAX_LINE_BYTES",
    "MAX_RECORDS",
    "MAX_TRAILERS",
    "MAX_TRAILER_BYTES",
    "PART_NAMES",
    "ByteBudget",
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
