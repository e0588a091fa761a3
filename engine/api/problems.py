"""RFC 9457 problem responses, and the middleware that guarantees no request yields a 500 page."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any

import msgspec
import structlog
from aiohttp import web

from hookproof.errors import HookproofError, ValidationError

__all__ = ["decode_body", "error_middleware", "json_response", "problem"]

log = structlog.get_logger("hookproof.api")
MAX_BODY = 256 * 1024
_ENC = msgspec.json.Encoder()


def json_response(
    data: Any, *, status: int = 200, headers: dict[str, str] | None = None
) -> web.Response:
    return web.Response(
        body=_ENC.encode(data), status=status, content_type="application/json", headers=headers
    )


def problem(err: HookproofError) -> web.Response:
    return web.Response(
        body=json.dumps(err.to_problem()).encode(),
        status=err.status,
        content_type="application/problem+json",
    )


def _field_from_msgspec(message: str) -> str | None:
    # msgspec: "Expected `int`, got `str` - at `$.eventVersions[0]`"
    if "at `$." in message:
        return message.rsplit("at `$.", 1)[1].rstrip("`")
    if "unknown field `" in message:
        return message.split("unknown field `", 1)[1].split("`", 1)[0]
    if "missing required field `" in message:
        return message.split("missing required field `", 1)[1].split("`", 1)[0]
    return None


async def decode_body(request: web.Request, typ: type[Any]) -> Any:
    """Read a bounded JSON body and decode it strictly into ``typ``."""
    if request.content_length is not None and request.content_length > MAX_BODY:
        raise BodyTooLarge(f"body larger than {MAX_BODY} bytes")
    body = await request.content.read(MAX_BODY + 1)
    if len(body) > MAX_BODY:
        raise BodyTooLarge(f"body larger than {MAX_BODY} bytes")
    if not body:
        raise ValidationError("empty body: a JSON object is required", code="invalid_json")
    try:
        return msgspec.json.decode(body, type=typ)
    except msgspec.ValidationError as exc:
        message = str(exc)
        raise ValidationError(message, field=_field_from_msgspec(message)) from exc
    except msgspec.DecodeError as exc:
        raise ValidationError(f"malformed JSON: {exc}", code="invalid_json") from exc


class BodyTooLarge(ValidationError):
    code = "body_too_large"
    status = 413
    title = "Body too large"


Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


@web.middleware
async def error_middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
    try:
        return await handler(request)
    except HookproofError as err:
        if err.status >= 500:
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
        err = HookproofError(exc.reason, code=code)
        err.status = exc.status
        err.title = exc.reason
        return problem(err)
    except Exception as exc:  # the last line: a typed problem, never a stack trace
        log.exception("api_unhandled", path=request.path, error=type(exc).__name__)
        return problem(HookproofError("internal error", code="internal_error"))
