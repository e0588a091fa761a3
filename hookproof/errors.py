"""The typed error hierarchy. Every error carries a stable reason ``code``.

Adapters translate driver exceptions (asyncpg, aiohttp) into these at the edge and keep the
original as ``__cause__``. Messages never contain secrets.
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "ConcurrencyConflict",
    "ConfigurationError",
    "ConflictError",
    "DatabaseUnavailable",
    "EgressRefused",
    "HookproofError",
    "NotFound",
    "PreconditionFailed",
    "RateLimited",
    "StoreError",
    "StreamArchived",
    "Unauthorized",
    "ValidationError",
]


class HookproofError(Exception):
    """Base class: a stable machine-readable ``code``, an HTTP ``status`` and a detail."""

    code: str = "internal_error"
    status: int = 500
    title: str = "Internal error"

    def __init__(self, detail: str = "", *, code: str | None = None, **extra: Any) -> None:
        super().__init__(detail or self.title)
        self.detail = detail or self.title
        if code is not None:
            self.code = code
        self.extra: dict[str, Any] = extra

    def to_problem(self) -> dict[str, Any]:
        """RFC 9457 problem body."""
        body: dict[str, Any] = {
            "type": f"https://hookproof.dev/problems/{self.code}",
            "title": self.title,
            "status": self.status,
            "detail": self.detail,
            "code": self.code,
        }
        # members in the API's spelling (camelCase) whatever the raiser named them: a
        # machine's ``key_id`` is the problem's ``keyId``
        body.update({_camel(k): v for k, v in self.extra.items()})
        return body


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


class ValidationError(HookproofError):
    """Bad input. ``field`` names the offending field where known."""

    code = "invalid_request"
    status = 400
    title = "Invalid request"

    def __init__(
        self, detail: str, *, field: str | None = None, code: str | None = None, **extra: Any
    ) -> None:
        if field is not None:
            extra["field"] = field
        super().__init__(detail, code=code, **extra)
        self.field = field


class Unauthorized(HookproofError):
    code = "unauthorized"
    status = 401
    title = "Unauthorized"


class NotFound(HookproofError):
    code = "not_found"
    status = 404
    title = "Not found"


class ConflictError(HookproofError):
    code = "conflict"
    status = 409
    title = "Conflict"


class PreconditionFailed(HookproofError):
    code = "precondition_failed"
    status = 412
    title = "Precondition failed"


class RateLimited(HookproofError):
    """The caller spent its budget for this kind of request (issue 46); it may come back
    after ``retry_after_s`` seconds (the answer's ``Retry-After``)."""

    code = "rate_limited"
    status = 429
    title = "Too many requests"

    def __init__(self, detail: str, *, retry_after_s: int, code: str | None = None) -> None:
        super().__init__(detail, code=code, retryAfterS=retry_after_s)
        self.retry_after_s = retry_after_s


class StoreError(HookproofError):
    """The event store refused or failed an operation."""

    code = "store_error"
    status = 500
    title = "Event store error"


class DatabaseUnavailable(StoreError):
    """The database cannot be reached or refuses work for now (a restart, a full pool, a
    transaction it rolled back): the request may be retried after ``retry_after_s``."""

    code = "database_unavailable"
    status = 503
    title = "Database unavailable"
    retry_after_s = 5


class ConcurrencyConflict(StoreError):
    """An append's expected version did not match the stream's actual version."""

    code = "concurrency_conflict"
    status = 409
    title = "Concurrency conflict"

    def __init__(self, stream_id: str, expected: object, actual: int | None) -> None:
        super().__init__(
            f"stream {stream_id!r}: expected version {expected}, actual {actual}",
            stream_id=stream_id,
            expected=expected if isinstance(expected, int | str) else str(expected),
            actual=actual,
        )
        self.stream_id = stream_id
        self.expected = expected
        self.actual = actual


class StreamArchived(ConflictError):
    """The stream was closed and archived: it takes no further event (DESIGN.md section 2)."""

    code = "stream_archived"
    title = "Stream archived"

    def __init__(self, stream_id: str) -> None:
        super().__init__(
            f"stream {stream_id!r} is archived and takes no append", stream_id=stream_id
        )
        self.stream_id = stream_id


class EgressRefused(HookproofError):
    """The egress transport refused a target before or while connecting."""

    code = "egress_refused"
    status = 422
    title = "Egress refused"


class ConfigurationError(ValidationError):
    """The configuration cannot work as given (a listen port in use, a bad ``--workers``): the
    command exits with ``exit_code`` (EX_CONFIG) and one line naming what to change."""

    code = "configuration_invalid"
    title = "Configuration invalid"
    exit_code = 78
