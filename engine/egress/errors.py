"""Why a send failed: the resolver's, guard's or pool's :class:`Refusal` and the one
classification of an exception into a stable :class:`.failures.FailureCode` (pure)."""

from __future__ import annotations

import errno
import ssl
from typing import TYPE_CHECKING

from .budget import ResponseError
from .failures import FailureCode

if TYPE_CHECKING:
    from .context import Attempt

__all__ = ["Refusal", "classify_exception"]


class Refusal(OSError):
    """Raised by our resolver, socket guard or connector; carries a code."""

    def __init__(self, code: FailureCode, detail: str) -> None:
        super().__init__(errno.EACCES, detail)
        self.code = code
        self.detail = detail


def classify_exception(attempt: Attempt, exc: Exception, got_head: bool) -> tuple[FailureCode, str]:
    """A stable code for an exception raised while sending (pure over the attempt's facts)."""
    connected = attempt.connected_at is not None
    if not connected:
        refusal = attempt.refusal or _find_refusal(exc)
        if refusal is not None:
            return refusal.code, refusal.detail
    text = f"{type(exc).__name__}: {exc}"
    if isinstance(exc, ssl.SSLError | ssl.CertificateError):
        return FailureCode.TLS_ERROR, text
    if isinstance(exc, TimeoutError):
        if not connected:
            return FailureCode.CONNECT_TIMEOUT, text
        return FailureCode.RESPONSE_TIMEOUT, text
    if not connected:
        return FailureCode.CONNECT_FAILED, text
    if isinstance(exc, ResponseError):
        return FailureCode.PROTOCOL_ERROR, text
    return FailureCode.CONNECTION_RESET, text


def _find_refusal(exc: BaseException) -> Refusal | None:
    seen: set[int] = set()
    cur: BaseException | None = exc
    while cur is not None and id(cur) not in seen:
        seen.add(id(cur))
        if isinstance(cur, Refusal):
            return cur
        if isinstance(cur, BaseExceptionGroup):
            for inner in cur.exceptions:
                found = _find_refusal(inner)
                if found is not None:
                    return found
        cur = cur.__cause__ or cur.__context__
    return None
