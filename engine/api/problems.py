"""RFC 9457 problem responses, and the middleware that guarantees no request yields a 500 page."""

from __future__ import annotations

import json
import re
from collections.abc import Awaitable, Callable
from typing import Any

import asyncpg
import msgspec
import structlog
from aiohttp import web

from hookproof.errors import HookproofError, ValidationError

from ..common.jsonscan import MAX_DEPTH, JsonScan, TooDeep, check_depth
from ..db.db_errors import database_unavailable
from ..portal.auth import PUBLIC_ROUTES
from .body import MAX_BODY, BodyTooLarge, read_body, settle_unread
from .edges import check_edges
from .params import check_params, route_of

__all__ = [
    "MAX_BODY",
    "MAX_DEPTH",
    "BodyTooLarge",
    "TooDeep",
    "check_depth",
    "decode_body",
    "decode_code",
    "decode_json",
    "error_middleware",
    "json_response",
    "problem",
    "read_body",
    "read_json",
]

log = structlog.get_logger("hookproof.api")
_ENC = msgspec.json.Encoder()
#: headers of an aiohttp HTTP error that its problem+json answer keeps
_KEPT_HEADERS = ("Allow",)


def json_response(
    data: Any, *, status: int = 200, headers: dict[str, str] | None = None
) -> web.Response:
    return web.Response(
        body=_ENC.encode(data), status=status, content_type="application/json", headers=headers
    )


def problem(err: HookproofError, headers: dict[str, str] | None = None) -> web.Response:
    """The problem+json answer; ``headers`` kept (a 405's ``Allow``, RFC 9110 15.5.6)."""
    out = dict(headers or {})
    retry_after = getattr(err, "retry_after_s", None)  # a 503 says when to come back
    if retry_after is not None:
        out["Retry-After"] = str(retry_after)
    return web.Response(
        body=json.dumps(err.to_problem()).encode(),
        status=err.status,
        content_type="application/problem+json",
        headers=out or None,
    )


def _unavailable(request: web.Request, exc: BaseException) -> web.Response | None:
    """The 503 problem when ``exc`` is the database being unavailable (a restart...)."""
    err = database_unavailable(exc)
    if err is None:
        return None
    log.warning(
        "api_database_unavailable",
        path=request.path,
        code=err.code,
        error=type(err.__cause__ or exc).__name__,
    )
    return problem(err)


#: a number outside the range its field declares (``schemas/numbers.py``), or outside float8
_OUT_OF_RANGE = re.compile(r"Expected `(int|float)` (>=|<=|>|<) |Number out of range")


def decode_code(message: str) -> str | None:
    """The reason code of a msgspec refusal: ``number_out_of_range`` for a number outside
    its field's declared range, else ``None`` (the default ``invalid_request``)."""
    return "number_out_of_range" if _OUT_OF_RANGE.match(message) else None


def _field_from_msgspec(message: str) -> str | None:
    # msgspec: "Expected `int`, got `str` - at `$.eventVersions[0]`"
    if "in `$." in message:  # a dict key: "... - at `key` in `$.versions`"
        return message.rsplit("in `$.", 1)[1].rstrip("`")
    if "at `$." in message:
        return message.rsplit("at `$.", 1)[1].rstrip("`")
    if "unknown field `" in message:
        return message.split("unknown field `", 1)[1].split("`", 1)[0]
    if "missing required field `" in message:
        return message.split("missing required field `", 1)[1].split("`", 1)[0]
    return None


async def decode_body(request: web.Request, typ: type[Any]) -> Any:
    """Read a bounded JSON body and decode it strictly into ``typ``."""
    return decode_json(await read_json(request), typ)


async def read_json(request: web.Request) -> bytes:
    """A bounded JSON body (depth-scanned as it arrives), not yet decoded."""
    body = await read_body(request, scan=JsonScan(MAX_DEPTH))
    if not body:
        raise ValidationError("empty body: a JSON object is required", code="invalid_json")
    return body


def decode_json(body: bytes, typ: type[Any]) -> Any:
    """*body* decoded strictly into ``typ`` (a problem naming the field otherwise)."""
    try:
        return msgspec.json.decode(body, type=typ)
    except msgspec.ValidationError as exc:
        message = str(exc)
        raise ValidationError(
            message, field=_field_from_msgspec(message), code=decode_code(message)
        ) from exc
    except msgspec.DecodeError as exc:
        raise ValidationError(f"malformed JSON: {exc}", code="invalid_json") from exc


def _check_params(request: web.Request) -> None:
    """A public route's path and query parameters, before its handler; the others are checked
    right after authentication (``context.authorize``: 401 before 400)."""
    route = route_of(request)
    if route is not None and route in PUBLIC_ROUTES:
        check_params(request.method, route, request)


Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


@web.middleware
async def error_middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Every answer, a handler's or a problem: then a body left unread or refused closes the
    connection (``body.settle_unread``)."""
    response = await _answer(request, handler)
    await settle_unread(request, response)
    return response


async def _answer(request: web.Request, handler: Handler) -> web.StreamResponse:
    try:
        check_edges(request)  # 414/431 before anything reads the request
        _check_params(request)
        return await handler(request)
    except HookproofError as err:
        if err.status >= 500:
            if (unavailable := _unavailable(request, err)) is not None:
                return unavailable
            log.error(
                "api_error", code=err.code, path=request.path, cause=type(err.__cause__).__name__
            )
        return problem(err)
    except web.HTTPException as exc:
        if exc.status < 400:
            raise
        code = {404: "not_found", 405: "method_not_allowed", 413: "body_too_large"}.get(
            exc.status, "http_error"
        )
        http_err = HookproofError(exc.reason, code=code)
        http_err.status = exc.status
        http_err.title = exc.reason
        kept = {k: v for k in _KEPT_HEADERS if (v := exc.headers.get(k)) is not None}
        return problem(http_err, kept)
    except asyncpg.DataError as exc:  # the database refused a value: the input's fault
        log.info("api_data_error", path=request.path, error=type(exc).__name__)
        return problem(ValidationError("a value cannot be stored as given", code="invalid_data"))
    except (UnicodeError, ValueError, OverflowError) as exc:  # slipped past validation
        log.warning("api_value_error", path=request.path, error=type(exc).__name__)
        return problem(ValidationError("a value cannot be used as given", code="invalid_data"))
    except RecursionError:
        return problem(TooDeep(f"JSON may nest at most {MAX_DEPTH} levels"))
    except Exception as exc:  # the last line: a typed problem, never a stack trace
        if (unavailable := _unavailable(request, exc)) is not None:
            return unavailable
        log.exception("api_unhandled", path=request.path, error=type(exc).__name__)
        return problem(HookproofError("internal error", code="internal_error"))
