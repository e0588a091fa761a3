"""Request bodies: read once, bounded twice, within a deadline; the one reader every route uses.

Every route that reads a body reads it through :func:`read_body` (``decode_body``, the batch
decoder and the receipt route all do): the raw bytes and the inflated bytes are counted by a
:class:`~.body_budget.BodyBudget` as they arrive, the whole body must arrive within the read
deadline (``HOOKPROOF_BODY_TIMEOUT``, 408 ``body_read_timeout``), and a refusal is logged with
what it cost (``api_body_refused``). A request whose body was refused, or left unread by its
route (a 401 before the body, a GET with a body), is answered and then its connection is
closed: :func:`settle_unread` (called by the error middleware for every request) sends the
answer, reads and discards for at most ``LINGER_S`` (at most ``LINGER_BYTES``, or the rest of
a declared ``Content-Length`` up to ``LINGER_DECLARED``) so that a client still sending can
read it, and closes. aiohttp's own lingering read (10 s, unbounded in bytes) is off
(``lingering_time=0`` in ``create_app``).
"""

from __future__ import annotations

import asyncio
from contextlib import aclosing

import structlog
from aiohttp import web

from hookproof.errors import HookproofError

from ..common.jsonscan import JsonScan
from .body_budget import BodyBudget, BodyIncomplete, BodyTimeout, BodyTooLarge, CompressionRatio
from .inflate import pieces

__all__ = [
    "BODY_TIMEOUT_KEY",
    "LINGER_BYTES",
    "LINGER_DECLARED",
    "LINGER_S",
    "MAX_BODY",
    "BodyIncomplete",
    "BodyTimeout",
    "BodyTooLarge",
    "CompressionRatio",
    "read_body",
    "settle_unread",
]

log = structlog.get_logger("hookproof.api")
MAX_BODY = 256 * 1024
#: the default read deadline of a whole body (``Settings.body_timeout_s`` overrides it)
BODY_TIMEOUT_S = 30.0
#: after an answer to a request whose body is not read whole: what may still be discarded,
#: and for how long, before the connection is closed (a client that writes its whole body
#: before it reads would otherwise get a reset instead of the answer): a body of unknown
#: length at most ``LINGER_BYTES``, one with a ``Content-Length`` the rest of it up to
#: ``LINGER_DECLARED`` (the largest body a route takes: the batch's 16 MiB)
LINGER_BYTES = 64 * 1024
LINGER_DECLARED = 16 * 1024 * 1024
LINGER_S = 2.0
_READ_CHUNK = 64 * 1024  # at most this much of a body reaches a scan at a time (one callback)

#: seconds a route may spend reading one body (set by ``create_app`` from the settings)
BODY_TIMEOUT_KEY: web.AppKey[float] = web.AppKey("hookproof_body_timeout", float)
#: the request's body was refused: its connection closes after the answer
_REFUSED: web.RequestKey[bool] = web.RequestKey("hookproof_body_refused", bool)


async def read_body(
    request: web.Request, limit: int = MAX_BODY, scan: JsonScan | None = None
) -> bytes:
    """The whole body, however it was split across TCP segments, up to ``limit`` bytes.

    ``limit`` counts the bytes the handler gets: after any Content-Encoding is undone, which
    happens a bounded piece at a time (``inflate.pieces``); the raw bytes are bounded too
    (``BodyBudget``), and the body must arrive within the app's read deadline. Each piece
    goes through ``scan`` (when given) as it arrives: a body the scan refuses is refused
    before the rest of it is read.
    """
    budget = BodyBudget(limit)
    if request.content_length is not None and request.content_length > limit:
        # an encoded body may be a little larger than its content: only past its raw bound
        if request.headers.get("Content-Encoding") is None or (
            request.content_length > BodyBudget(limit, encoded=True).raw_limit
        ):
            _refused(request, budget, "body_too_large")
            raise BodyTooLarge(f"body larger than {limit} bytes")
    chunks: list[bytes] = []
    deadline = request.app.get(BODY_TIMEOUT_KEY, BODY_TIMEOUT_S)
    try:
        async with asyncio.timeout(deadline):
            async with aclosing(pieces(request, _READ_CHUNK, budget)) as body:
                async for chunk in body:
                    if scan is not None:
                        scan.feed(chunk)
                    chunks.append(chunk)
    except TimeoutError:
        _refused(request, budget, BodyTimeout.code)
        raise BodyTimeout(f"the body did not arrive within {deadline:g} s") from None
    except HookproofError as err:
        _refused(request, budget, err.code)
        raise
    except ConnectionError as exc:  # the client left mid-body: nobody hears the answer
        _refused(request, budget, BodyIncomplete.code)
        raise BodyIncomplete("the connection ended before the body did") from exc
    return b"".join(chunks)


def _refused(request: web.Request, budget: BodyBudget, code: str) -> None:
    request[_REFUSED] = True
    log.info(
        "api_body_refused",
        path=request.path,
        code=code,
        encoded=budget.encoded,
        raw_bytes=budget.raw,
        inflated_bytes=budget.inflated,
    )


async def settle_unread(request: web.Request, response: web.StreamResponse) -> None:
    """When ``request``'s body was refused or not read whole: send ``response`` now, discard
    what follows within ``LINGER_BYTES`` and ``LINGER_S``, and close the connection."""
    refused = request.get(_REFUSED, False)
    if not refused and not request.can_read_body:
        return
    response.force_close()
    if response.prepared:  # streamed by its handler: nothing can be sent ahead of it
        return
    try:
        await response.prepare(request)
        await response.write_eof()
    except (ConnectionError, RuntimeError):  # the client left: nothing to linger for
        return
    drained = 0
    bound = LINGER_BYTES
    if request.content_length is not None:  # the body it declared, read or not
        bound = max(bound, min(request.content_length, LINGER_DECLARED))
    try:
        async with asyncio.timeout(LINGER_S):
            while drained < bound and request.can_read_body:
                chunk = await request.content.read(min(_READ_CHUNK, bound - drained))
                if not chunk:
                    break
                drained += len(chunk)
    except (TimeoutError, ConnectionError, asyncio.IncompleteReadError):
        pass
    except Exception as exc:  # a malformed tail (bad chunk framing): the connection ends
        log.info("api_body_unread_error", path=request.path, error=type(exc).__name__)
    log.info(
        "api_body_unread",
        path=request.path,
        status=response.status,
        refused=refused,
        drained_bytes=drained,
        complete=not request.can_read_body,
    )
