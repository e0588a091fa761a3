"""What a request body may cost: raw bytes, inflated bytes, and the ratio between them.

Pure: the reader (``engine/api/body.py``) reports what arrived and what it inflated to, and
the budget refuses as soon as either count, or their ratio, is out of bounds. A body without
a ``Content-Encoding`` is its own inflation (raw = inflated). An encoded body is bounded
twice: by the bytes the handler gets (``limit``) and by the bytes the peer sends
(``raw_limit``), and its raw bytes may not run far ahead of what they inflate to (empty
deflate blocks inflate to nothing: 8 GB of them were read before this) nor inflate to far
more than a compressor ever produces from data (a bomb).
"""

from __future__ import annotations

from dataclasses import dataclass

from hookproof.errors import HookproofError, ValidationError

__all__ = [
    "MAX_INFLATE_RATIO",
    "RATIO_FLOOR",
    "RAW_GRACE",
    "RAW_PER_INFLATED",
    "BodyBudget",
    "BodyIncomplete",
    "BodyTimeout",
    "BodyTooLarge",
    "CompressionRatio",
]

#: raw bytes an encoded body may send beyond ``RAW_PER_INFLATED`` x its inflated bytes
#: (a gzip header and trailer are 18 bytes, a flush marker 5; deflate never grows data by
#: more than 5 bytes per 64 KiB stored block)
RAW_GRACE = 8 * 1024
RAW_PER_INFLATED = 2
#: inflated bytes per raw byte past which an encoded body is refused (zlib's own ceiling is
#: about 1,032; JSON rarely compresses past 50), counted once ``RATIO_FLOOR`` bytes inflated
MAX_INFLATE_RATIO = 200
RATIO_FLOOR = 1024 * 1024


class BodyTooLarge(ValidationError):
    code = "body_too_large"
    status = 413
    title = "Body too large"


class CompressionRatio(BodyTooLarge):
    """An encoded body whose raw bytes and inflated bytes are out of any real proportion."""

    code = "compression_ratio"
    title = "Compression ratio out of bounds"


class BodyTimeout(HookproofError):
    """The body did not arrive whole within the read deadline."""

    code = "body_read_timeout"
    status = 408
    title = "Request body too slow"


class BodyIncomplete(ValidationError):
    """The connection ended before the body did (the answer reaches nobody; it is logged)."""

    code = "body_incomplete"
    title = "Body incomplete"


@dataclass
class BodyBudget:
    """Counts one body's bytes; each ``take_*`` raises once the body is out of bounds."""

    limit: int
    encoded: bool = False
    raw: int = 0
    inflated: int = 0

    @property
    def raw_limit(self) -> int:
        """Raw bytes the body may take: its limit, plus framing room when it is encoded."""
        if not self.encoded:
            return self.limit
        return self.limit + self.limit // 64 + RAW_GRACE

    def take_raw(self, n: int) -> None:
        self.raw += n
        if self.raw > self.raw_limit:
            raise BodyTooLarge(
                f"body larger than {self.raw_limit} bytes as sent"
                if self.encoded
                else f"body larger than {self.limit} bytes"
            )

    def take_inflated(self, n: int) -> None:
        self.inflated += n
        if self.inflated > self.limit:
            raise BodyTooLarge(f"body larger than {self.limit} bytes")
        if (
            self.encoded
            and self.inflated > RATIO_FLOOR
            and self.inflated > self.raw * MAX_INFLATE_RATIO
        ):
            raise CompressionRatio(
                f"the body inflates to more than {MAX_INFLATE_RATIO} times its size"
            )

    def settle(self) -> None:
        """Every raw byte taken so far has been inflated: the raw bytes may not run ahead."""
        if self.encoded and self.raw > RAW_PER_INFLATED * self.inflated + RAW_GRACE:
            raise CompressionRatio(
                f"{self.raw} bytes sent inflate to {self.inflated}: "
                "an encoded body is not larger than its content"
            )
