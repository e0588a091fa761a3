"""The API's RFC 9457 problems as exceptions: :class:`HookproofProblem` for every answer
outside 2xx, and one subclass per kind a sender handles (``except PayloadConflict:``), each
carrying the problem's stable ``code`` and the members that kind of problem adds."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

__all__ = [
    "Conflict",
    "Forbidden",
    "HookproofProblem",
    "InvalidRequest",
    "NotFound",
    "PayloadConflict",
    "PreconditionFailed",
    "RateLimited",
    "Unauthorized",
    "Unavailable",
]


class HookproofProblem(Exception):
    """An RFC 9457 problem the API answered (any status outside 2xx): ``status``, the stable
    ``code`` (``event_payload_conflict``, ``consumer_exists``, ...), ``title``, ``detail``,
    ``field`` (the offending input, when one is named) and the whole ``body``.

    :meth:`of_response` raises the subclass for the answer's status (and code), so a caller
    catches what it handles: :class:`InvalidRequest` (400, 422), :class:`NotFound` (404),
    :class:`Conflict` and :class:`PayloadConflict` (409), :class:`PreconditionFailed`
    (412, 428), :class:`RateLimited` (429), :class:`Unavailable` (503)."""

    def __init__(
        self,
        status: int,
        code: str,
        title: str,
        detail: str | None = None,
        *,
        field: str | None = None,
        type: str | None = None,
        body: Mapping[str, Any] | None = None,
    ) -> None:
        super().__init__(f"{status} {code}: {detail or title}")
        self.status = status
        self.code = code
        self.title = title
        self.detail = detail
        self.field = field
        self.type = type
        self.body: Mapping[str, Any] = body or {}

    @classmethod
    def of_response(cls, status: int, content: bytes) -> HookproofProblem:
        """The problem in a response's body, as the subclass for its status and code; a body
        that is not a problem keeps the status and says ``unexpected_response``."""
        try:
            doc = json.loads(content) if content else {}
        except ValueError:
            doc = {}
        kind = _kind(status, doc.get("code") if isinstance(doc, dict) else None)
        if not isinstance(doc, dict) or not isinstance(doc.get("code"), str):
            text = content[:200].decode(errors="replace")
            return kind(status, "unexpected_response", "Unexpected response", text or None)
        detail = doc.get("detail")
        return kind(
            status,
            doc["code"],
            str(doc.get("title") or doc["code"]),
            detail if isinstance(detail, str) else None,
            field=doc.get("field") if isinstance(doc.get("field"), str) else None,
            type=doc.get("type") if isinstance(doc.get("type"), str) else None,
            body=doc,
        )

    def _member(self, name: str) -> Any:
        return self.body.get(name)


class InvalidRequest(HookproofProblem):
    """400 (or 422): the request was refused as written; ``field`` names the input."""


class Unauthorized(HookproofProblem):
    """401: no valid token (``portal_session_expired`` for an ended portal session)."""


class Forbidden(HookproofProblem):
    """403: the token may not do this."""


class NotFound(HookproofProblem):
    """404: nothing of the caller's has this id (another tenant's things are never found)."""


class Conflict(HookproofProblem):
    """409: the request conflicts with what exists (``consumer_exists``, ...)."""


class PayloadConflict(Conflict):
    """409 ``event_payload_conflict``: this ``eventId`` was accepted with another payload;
    ``event_id`` and ``payload_digest`` (the digest of the payload the engine kept)."""

    @property
    def event_id(self) -> str | None:
        value = self._member("eventId")
        return value if isinstance(value, str) else None

    @property
    def payload_digest(self) -> str | None:
        value = self._member("payloadDigest")
        return value if isinstance(value, str) else None


class PreconditionFailed(HookproofProblem):
    """412 ``generation_mismatch`` (the ``If-Match`` sent is not the current ETag; ``etag``
    and ``current_generation`` say what is) or 428 ``if_match_required``."""

    @property
    def etag(self) -> str | None:
        value = self._member("etag")
        return value if isinstance(value, str) else None

    @property
    def current_generation(self) -> int | None:
        value = self._member("currentGeneration")
        return value if isinstance(value, int) and not isinstance(value, bool) else None


class RateLimited(HookproofProblem):
    """429: this caller spent its budget; ``retry_after_s`` says when to come back."""

    @property
    def retry_after_s(self) -> int | None:
        value = self._member("retryAfterS")
        return value if isinstance(value, int) and not isinstance(value, bool) else None


class Unavailable(HookproofProblem):
    """503: the engine cannot serve now (``database_unavailable``); publishing retries it."""


_BY_STATUS: dict[int, type[HookproofProblem]] = {
    400: InvalidRequest,
    401: Unauthorized,
    403: Forbidden,
    404: NotFound,
    409: Conflict,
    412: PreconditionFailed,
    422: InvalidRequest,
    428: PreconditionFailed,
    429: RateLimited,
    503: Unavailable,
}


def _kind(status: int, code: object) -> type[HookproofProblem]:
    if status == 409 and code == "event_payload_conflict":
        return PayloadConflict
    return _BY_STATUS.get(status, HookproofProblem)
