"""Retry policy as a pure value: ``decide(policy, attempt, error, rand) -> RetryDecision``."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from email.utils import parsedate_to_datetime

from hookproof.events.subscription_events import RetryPolicy

__all__ = ["AttemptError", "RetryDecision", "decide", "parse_retry_after"]


@dataclass(frozen=True)
class AttemptError:
    """What went wrong with one attempt, as far as retrying is concerned."""

    code: str
    status: int | None = None
    retry_after_s: float | None = None
    unknown: bool = False  # the request may have been written (UNKNOWN_TRANSPORT)


@dataclass(frozen=True)
class RetryDecision:
    retry: bool
    delay_s: float
    reason: str
    dead_letter_reason: str | None = None


def parse_retry_after(value: str | None, now: datetime) -> float | None:
    """Seconds from a ``Retry-After`` value (delta-seconds or HTTP-date); None if absent/bad."""
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        return None
    return max(0.0, (when - now).total_seconds())


def decide(policy: RetryPolicy, attempt: int, error: AttemptError, *, rand: float) -> RetryDecision:
    """Exponential back-off with full jitter (``rand`` in [0, 1)), capped; Retry-After wins
    within its cap; 410 follows the policy's ``on_gone``; exhaustion dead-letters."""
    if error.status == 410:
        return RetryDecision(False, 0.0, "gone", dead_letter_reason="endpoint_gone")
    if attempt >= policy.max_attempts:
        return RetryDecision(False, 0.0, "exhausted", dead_letter_reason=f"exhausted:{error.code}")
    base = min(policy.max_delay_s, policy.initial_delay_s * policy.multiplier ** (attempt - 1))
    delay = base * (0.5 + rand / 2)  # "equal jitter": never retry instantly, spread the herd
    if error.retry_after_s is not None:
        delay = min(max(delay, error.retry_after_s), policy.retry_after_cap_s)
    return RetryDecision(True, delay, "retry")
