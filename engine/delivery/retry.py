"""Retry policy as pure values: ``decide(policy, attempt, error, rand=...) -> RetryDecision``.

Back-off is exponential with full jitter: the delay is uniform in ``[0, base)``, where
``base = min(max_delay, initial * multiplier ** (attempt - 1))``. A usable ``Retry-After``
raises the delay to at least its value, within the policy's cap. A 410 dead-letters and, under
``on_gone: suspend``, suspends the subscription; a transformation's failure or cancel
dead-letters at once (deterministic). Reaching ``max_attempts`` dead-letters.
``Retry-After`` is parsed defensively: any value is either used or ignored with a reason.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from datetime import datetime
from email.utils import parsedate_to_datetime
from typing import Final

from hookproof.events.subscription_events import RetryPolicy

__all__ = [
    "DETERMINISTIC",
    "AttemptError",
    "RetryAfter",
    "RetryDecision",
    "decide",
    "exhausted",
    "parse_retry_after",
]

_DELTA_SECONDS = re.compile(r"[0-9]{1,32}")  # ASCII digits only ("²".isdigit() is True)
_MAX_TEXT = 64  # longer than any HTTP-date or sane delta-seconds


@dataclass(frozen=True, slots=True)
class RetryAfter:
    """A ``Retry-After`` value: ``seconds`` when used, else ``ignored`` says why (or absent)."""

    seconds: float | None = None
    ignored: str | None = None  # empty | too_long | unparsable | no_timezone | out_of_range


@dataclass(frozen=True, slots=True)
class AttemptError:
    """What went wrong with one attempt, as far as retrying is concerned."""

    code: str
    status: int | None = None
    retry_after_s: float | None = None
    unknown: bool = False  # the request may have been written (UNKNOWN_TRANSPORT)
    retry_after_ignored: str | None = None


@dataclass(frozen=True, slots=True)
class RetryDecision:
    retry: bool
    delay_s: float
    reason: str  # retry | gone | exhausted
    dead_letter_reason: str | None = None
    suspend_subscription: bool = False  # a 410 under ``on_gone: suspend``


def parse_retry_after(value: str | None, now: datetime) -> RetryAfter:
    """Seconds from a ``Retry-After`` value (delta-seconds or HTTP-date). Never raises."""
    if value is None:
        return RetryAfter()
    text = value.strip()
    if not text:
        return RetryAfter(ignored="empty")
    if len(text) > _MAX_TEXT:
        return RetryAfter(ignored="too_long")
    if _DELTA_SECONDS.fullmatch(text):
        return RetryAfter(float(int(text)))
    try:
        when = parsedate_to_datetime(text)
    except Exception:  # ValueError, OverflowError, IndexError...: whatever the value holds
        return RetryAfter(ignored="unparsable")
    if when.tzinfo is None:
        return RetryAfter(ignored="no_timezone")
    try:
        seconds = (when - now).total_seconds()
    except (OverflowError, TypeError):
        return RetryAfter(ignored="out_of_range")
    return RetryAfter(max(0.0, seconds))


#: failures no retry can change: the transformation's verdict (DESIGN.md section 17)
DETERMINISTIC: Final = frozenset({"transformation_failed", "transformation_cancelled"})


def exhausted(attempt: int, max_attempts: int) -> bool:
    """No attempt after ``attempt`` may be made (the one rule for decide and for claims)."""
    return attempt >= max_attempts


def decide(policy: RetryPolicy, attempt: int, error: AttemptError, *, rand: float) -> RetryDecision:
    """What follows failed attempt number ``attempt`` (``rand`` uniform in [0, 1))."""
    if error.status == 410:
        return RetryDecision(
            False,
            0.0,
            "gone",
            dead_letter_reason="endpoint_gone",
            suspend_subscription=policy.on_gone == "suspend",
        )
    if error.code in DETERMINISTIC:  # the same code on the same input: the same verdict
        return RetryDecision(False, 0.0, "deterministic", dead_letter_reason=error.code)
    if exhausted(attempt, policy.max_attempts):
        return RetryDecision(False, 0.0, "exhausted", dead_letter_reason=f"exhausted:{error.code}")
    try:
        grown = policy.initial_delay_s * policy.multiplier ** (attempt - 1)
    except OverflowError:  # replays add attempts past any policy: 10.0 ** 400 is no float
        grown = math.inf
    base = min(policy.max_delay_s, grown)
    delay = base * rand  # full jitter
    wait = error.retry_after_s
    if wait is not None and math.isfinite(wait):
        delay = min(max(delay, wait), policy.retry_after_cap_s)
    return RetryDecision(True, delay, "retry")
