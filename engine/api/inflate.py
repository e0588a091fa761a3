"""Request bodies with a ``Content-Encoding``: inflated here, a bounded piece at a time.

The server does not inflate bodies itself (``auto_decompress`` is off for the application):
its inflater runs as fast as data is buffered, and the lingering read of a refused body
would inflate all of a compressed bomb in one go without yielding to the event loop. Here
each step inflates at most one piece of ``piece`` bytes and then yields, and the reader stops
as soon as its budget (``body_budget.BodyBudget``: raw bytes, inflated bytes and their
ratio) is passed; the rest of the body is never inflated (what the server reads after a
refusal is discarded raw, within a bound: ``body.settle_unread``).
"""

from __future__ import annotations

import asyncio
import zlib
from collections.abc import AsyncGenerator
from typing import Any

from aiohttp import web

from hookproof.errors import HookproofError, ValidationError

from .body_budget import BodyBudget

__all__ = ["UnsupportedEncoding", "encoding_of", "pieces"]

#: gzip members one body may hold (concatenated gzip files are one valid gzip stream)
_MAX_MEMBERS = 64
_GZIP = 16 + zlib.MAX_WBITS


class UnsupportedEncoding(HookproofError):
    code = "unsupported_encoding"
    status = 415
    title = "Unsupported content encoding"


def _inflater(encoding: str, first: bytes) -> Any:
    if encoding in ("gzip", "x-gzip"):
        return zlib.decompressobj(_GZIP)
    # deflate is the zlib format (RFC 9110); some clients send raw deflate: tell by the header
    return zlib.decompressobj(zlib.MAX_WBITS if first[:1] and first[0] & 0x0F == 8 else -15)


def encoding_of(request: web.Request) -> str | None:
    """The body's one content coding (None: identity); 415 for anything we do not inflate."""
    value = request.headers.get("Content-Encoding", "").strip().lower()
    if value in ("", "identity"):
        return None
    if value in ("gzip", "x-gzip", "deflate"):
        return value
    raise UnsupportedEncoding("Content-Encoding must be gzip, deflate or identity")


async def pieces(
    request: web.Request, piece: int, budget: BodyBudget
) -> AsyncGenerator[bytes, None]:
    """The body as it arrives, inflated when it is encoded; each piece at most ``piece``
    bytes of work. Every raw byte read and every byte inflated is taken from ``budget``
    (which raises when the body is out of bounds). The caller stops iterating once it has
    seen enough."""
    encoding = encoding_of(request)
    budget.encoded = encoding is not None
    if encoding is None:
        while chunk := await request.content.read(piece):
            budget.take_raw(len(chunk))
            budget.take_inflated(len(chunk))
            yield chunk
        return
    inflater: Any = None
    members = 0
    while data := await request.content.read(piece):
        budget.take_raw(len(data))
        while True:
            if inflater is None:
                if not data:
                    break
                members += 1
                if members > _MAX_MEMBERS:
                    raise _bad(f"at most {_MAX_MEMBERS} gzip members")
                inflater = _inflater(encoding, data)
            try:
                out = inflater.decompress(data, piece)
            except zlib.error as exc:
                raise _bad(f"the body is not valid {encoding}") from exc
            data = inflater.unconsumed_tail
            if inflater.eof:  # a member ended: anything after it starts the next one
                rest = inflater.unused_data + data
                if encoding == "deflate":
                    if rest:
                        raise _bad("data after the end of the deflate stream")
                    data = b""
                else:
                    inflater, data = None, rest
            if out:
                budget.take_inflated(len(out))
                yield out
                await asyncio.sleep(0)  # one piece of inflation per turn of the loop
            drained = inflater is None or inflater.eof or len(out) < piece
            if not data and drained:
                break
        budget.settle()  # this read is inflated whole: its raw bytes must have made some
    if inflater is not None and not inflater.eof:
        raise _bad(f"the {encoding} body ends before its end")


def _bad(detail: str) -> ValidationError:
    return ValidationError(detail, code="invalid_encoding")
