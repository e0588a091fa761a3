"""The token bucket of ``rateLimit`` (DESIGN.md section 14) as pure arithmetic.

Postgres computes it inside the claim (``hookproof_rate_refill``, migration 0985, called by
``hookproof_rate_grant`` under the bucket's row lock); this module is the same arithmetic for
the property tests (tests/delivery/test_rate_decide.py checks that the SQL function agrees) and
for the dispatcher's wait: after a claim the bucket held back, the next whole token is
:func:`next_token_s` away.

The two properties: a take grants whole tokens only, and the bucket holds at most ``burst``
tokens, so any window of ``t`` seconds holds at most ``burst + per_second * t`` grants; and a
bucket that is taken from at least every ``(burst - 1) / per_second`` seconds while the
backlog lasts never caps a refill, so it grants ``per_second`` on average (no token is lost).
Inputs are clamped to the API's bounds (``schemas/numbers.py``), NaN and infinity included, as
migration 1046 clamps them in SQL: no stored value can make the arithmetic fail.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from hookproof.schemas.numbers import BURST_MAX, PER_SECOND_MAX, PER_SECOND_MIN

__all__ = ["Bucket", "Take", "next_token_s", "take"]


@dataclass(frozen=True, slots=True)
class Bucket:
    """``tokens`` held at ``at`` (seconds on any monotonic clock)."""

    tokens: float
    at: float


@dataclass(frozen=True, slots=True)
class Take:
    """What one take granted, the bucket it left, and (when it granted fewer than wanted) the
    seconds until the bucket holds a whole token again (None: it granted all it was asked)."""

    granted: int
    bucket: Bucket
    wait_s: float | None


def next_token_s(tokens: float, per_second: float) -> float:
    """Seconds until a bucket holding ``tokens`` holds one whole token (0 when it does)."""
    return max(0.0, (1.0 - tokens) / per_second)


def _clamp(value: float, lo: float, hi: float) -> float:
    """``value`` within ``[lo, hi]``, NaN as ``hi`` (as Postgres orders NaN: migration 1046)."""
    return hi if value != value else float(min(hi, max(lo, value)))


def take(bucket: Bucket, now: float, per_second: float, burst: int, wanted: int) -> Take:
    """Refill by ``per_second`` since ``bucket.at`` (never above ``burst``; time never runs
    back), then grant up to ``wanted`` whole tokens."""
    per_second = _clamp(per_second, PER_SECOND_MIN, PER_SECOND_MAX)
    limit = _clamp(burst, 1, BURST_MAX)
    elapsed = _clamp(now - bucket.at, 0.0, 1e9)
    have = min(limit, _clamp(bucket.tokens, 0.0, limit) + per_second * elapsed)
    granted = max(0, min(wanted, math.floor(have)))
    left = have - granted
    wait = next_token_s(left, per_second) if granted < wanted else None
    return Take(granted, Bucket(left, max(bucket.at, now)), wait)
