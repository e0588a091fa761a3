"""An incremental look at JSON text as it arrives: nesting depth, and entries of one array.

Bodies are scanned chunk by chunk while they are read, so a body nested too deeply, or a
batch with too many entries, is refused as soon as the offending chunk arrives: before the
rest is read, decompressed or decoded. Each chunk costs a fixed number of C-level byte
operations (escape pairs and string contents dropped, everything but brackets and commas
deleted) and one pass per nesting level of the containers complete inside it; Python looks
only at the brackets left unmatched in the chunk. The scan is no JSON validator: the decoder
that runs afterwards is.
"""

from __future__ import annotations

import re

from hookproof.errors import ValidationError

__all__ = ["MAX_DEPTH", "JsonScan", "TooDeep", "TooManyEntries", "check_depth"]

#: deepest JSON nesting any body may have (objects and arrays); deeper is a 400
MAX_DEPTH = 64

#: ``{``/``}`` read as ``[``/``]``; everything else but brackets (and commas) deleted
_NORMALISE = bytes.maketrans(b"{}", b"[]")
_DROP_BUT_COMMAS = bytes(b for b in range(256) if b not in b"[]{},")
_DROP_ALL = bytes(b for b in range(256) if b not in b"[]{}")
#: an innermost container: brackets around nothing but commas (its entries already removed)
_INNERMOST = re.compile(rb"\[,+\]")
_RESIDUE = re.compile(rb"[\[\]]|,+")
_OPEN, _CLOSE = ord("["), ord("]")


class TooDeep(ValidationError):
    code = "json_too_deep"
    title = "JSON nested too deeply"


class TooManyEntries(ValidationError):
    """More entries in the counted array than allowed (the caller names the code)."""


class JsonScan:
    """Feed chunks of one JSON text; raises :class:`TooDeep` past ``max_depth`` levels and
    ``too_many`` once the arrays at depth ``count_depth`` hold more than ``max_entries``
    entries together (a top-level object is depth 1, an array inside it depth 2)."""

    def __init__(
        self,
        max_depth: int,
        *,
        count_depth: int | None = None,
        max_entries: int = 0,
        too_many: TooManyEntries | None = None,
    ) -> None:
        self.max_depth = max_depth
        self.count_depth = count_depth
        self.max_entries = max_entries
        self.too_many = too_many
        self.depth = 0
        self.commas = 0
        self._in_string = False
        self._carry = b""  # a backslash that ended the last chunk: its pair is in the next

    def feed(self, chunk: bytes) -> None:
        data = (self._carry + chunk) if self._carry else chunk
        data = data.replace(b"\\\\", b"")  # escape pairs bind left to right: \\ first
        self._carry = b""
        if data.endswith(b"\\"):
            self._carry, data = b"\\", data[:-1]
        parts = data.replace(b'\\"', b"").split(b'"')
        outside = parts[1::2] if self._in_string else parts[0::2]
        if len(parts) % 2 == 0:  # an odd number of quotes: in and out of a string swap
            self._in_string = not self._in_string
        drop = _DROP_ALL if self.count_depth is None else _DROP_BUT_COMMAS
        self._structure(b"".join(outside).translate(_NORMALISE, drop))

    def _structure(self, chunk: bytes) -> None:
        """``chunk``: brackets (as ``[``/``]``) and commas of one chunk, outside strings."""
        d0, limit = self.depth, self.max_depth
        if b"[" not in chunk and b"]" not in chunk:  # commas alone, all at the current depth
            self._count(len(chunk), d0)
            return
        s, passes = chunk, 0
        while True:  # each pass removes one or two levels of the complete containers
            inner = _INNERMOST.sub(b"", s.replace(b"[]", b""))
            if len(inner) == len(s):
                break
            s, passes = inner, passes + 1
            if passes > limit:  # a complete container nested deeper than the limit
                raise TooDeep(f"JSON may nest at most {limit} levels")
        depth = low = d0
        counted = 0
        for m in _RESIDUE.finditer(s):  # unmatched brackets, runs of commas between them
            tok = m.group()
            if tok == b"[":
                depth += 1
                if depth > limit:
                    raise TooDeep(f"JSON may nest at most {limit} levels")
            elif tok == b"]":
                depth -= 1
                low = min(low, depth)
            elif depth == self.count_depth:
                counted += len(tok)
        # A complete container nests ``2 * passes`` levels at most and sits at most
        # ``s.count("[")`` levels deeper than d0; its commas lie deeper than ``low``. Only a
        # chunk near the depth limit, or one holding containers at or above the counted
        # depth (the start and end of a batch), is walked bracket by bracket.
        near_limit = d0 + 2 * passes + s.count(b"[") > limit
        if near_limit or (self.count_depth is not None and low < self.count_depth):
            self._walk(chunk, d0)
            return
        self.depth = depth
        self._count(counted, self.count_depth)

    def _count(self, commas: int, depth: int | None) -> None:
        if depth != self.count_depth or not commas:
            return
        self.commas += commas
        if self.commas >= self.max_entries and self.too_many is not None:
            raise self.too_many

    def _walk(self, chunk: bytes, depth: int) -> None:
        """The exact depth and count, bracket by bracket and comma by comma."""
        limit, counted_at = self.max_depth, self.count_depth
        for byte in chunk:
            if byte == _OPEN:
                depth += 1
                if depth > limit:
                    raise TooDeep(f"JSON may nest at most {limit} levels")
            elif byte == _CLOSE:
                depth -= 1
            elif depth == counted_at:
                self.commas += 1
                if self.commas >= self.max_entries and self.too_many is not None:
                    raise self.too_many
        self.depth = depth


def check_depth(body: bytes, limit: int = MAX_DEPTH) -> None:
    """Refuse JSON nested deeper than ``limit`` before any recursive decoder sees it."""
    if body.count(b"[") + body.count(b"{") <= limit:
        return
    JsonScan(limit).feed(body)
