"""Token buckets: what one owner may spend per second (issue 46). Pure (the clock is given).

:class:`Bucket` is one budget; :class:`Budgets` keeps one per key (a tenant, a caller), in a
bounded memo. Both live in one worker's memory: with ``serve --workers N`` an owner has N
budgets, which bounds it all the same.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from typing import Final

from .memo import BoundedMemo

__all__ = ["Bucket", "Budgets"]

_KEYS: Final = 100_000


@dataclass(slots=True)
class Bucket:
    """``burst`` tokens, refilled at ``rate`` per second; :meth:`take` spends one."""

    rate: float
    burst: float
    tokens: float = field(default=0.0)
    at: float | None = None

    def _refill(self, now: float) -> None:
        if self.at is None:
            self.tokens = self.burst
        else:
            self.tokens = min(self.burst, self.tokens + max(0.0, now - self.at) * self.rate)
        self.at = now

    def take(self, now: float) -> bool:
        """Spend one token if there is one."""
        self._refill(now)
        if self.tokens >= 1.0:
            self.tokens -= 1.0
            return True
        return False

    def wait_s(self, now: float) -> float:
        """Seconds until a token is there (0: now)."""
        self._refill(now)
        return 0.0 if self.tokens >= 1.0 else (1.0 - self.tokens) / self.rate


class Budgets:
    """One :class:`Bucket` per key."""

    def __init__(
        self, rate: float, burst: float, *, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.rate = rate
        self.burst = burst
        self.clock = clock
        self._buckets: BoundedMemo[Hashable, Bucket] = BoundedMemo(_KEYS)

    def take(self, key: Hashable) -> int:
        """0 when ``key`` may spend one now (spent), else whole seconds until it may (for a
        ``Retry-After``)."""
        bucket = self._buckets.get(key)
        if bucket is None:
            bucket = Bucket(self.rate, self.burst)
            self._buckets.put(key, bucket)
        now = self.clock()
        if bucket.take(now):
            return 0
        return max(1, math.ceil(bucket.wait_s(now)))
