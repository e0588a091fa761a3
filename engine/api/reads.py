"""The read routes' side (the hot standby or the primary: ``engine.standby``), and the
middleware that notes each write's WAL position for its tenant (``Hookproof-Write-Position``).

A client whose next read may land on another worker process sends that position back in
``Hookproof-Read-After``; the read then waits for the standby to replay past it (bounded) or
reads the primary."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TypeVar

from aiohttp import web

from ..standby import ReadSide, format_lsn, parse_lsn
from .context import TENANT_KEY, ApiContext

__all__ = ["READ_AFTER", "WRITE_POSITION", "read_side", "write_position_middleware"]

T = TypeVar("T")

WRITE_POSITION = "Hookproof-Write-Position"
READ_AFTER = "Hookproof-Read-After"
_WRITES = frozenset({"POST", "PUT", "PATCH", "DELETE"})

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


async def read_side(
    request: web.Request, tenant_id: str | None, read: Callable[[ReadSide], Awaitable[T]]
) -> T:
    """``read`` on the side that has every write this caller must see."""
    reads = ApiContext.of(request).reads
    if reads is None:
        raise RuntimeError("the API context has no read router (engine/runtime/composition.py)")
    raw = request.headers.get(READ_AFTER)
    after = parse_lsn(raw) if raw else None
    return await reads.run(tenant_id, read, after=after)


@web.middleware
async def write_position_middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
    """After a write that succeeded, with a standby configured: note the primary's WAL
    position for the tenant and answer it in ``Hookproof-Write-Position``."""
    response = await handler(request)
    reads = ApiContext.of(request).reads
    if (
        reads is None
        or not reads.enabled
        or request.method not in _WRITES
        or response.status >= 400
        or response.prepared
    ):
        return response
    position = await reads.note_write(request.get(TENANT_KEY))
    if position is not None:
        response.headers[WRITE_POSITION] = format_lsn(position)
    return response
