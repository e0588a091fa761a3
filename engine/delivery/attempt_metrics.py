"""What the dispatcher counts: each attempt's outcome and its time from admission.

:class:`AttemptMetrics` is the port (the engine's prometheus registry implements it,
``observe/metrics.py``); :class:`DispatchMetrics` is the in-memory default a dispatcher built
without one keeps.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

__all__ = ["AttemptMetrics", "DispatchMetrics"]


class AttemptMetrics(Protocol):
    """What the dispatcher counts: each attempt's outcome and its time from admission."""

    def count(self, outcome: str) -> None: ...

    def observe(self, seconds: float) -> None: ...


@dataclass
class DispatchMetrics:
    attempts: dict[str, int] = field(default_factory=dict)
    latency_buckets: tuple[float, ...] = (0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10)
    latency_counts: list[int] = field(default_factory=lambda: [0] * 11)
    latency_sum: float = 0.0
    latency_n: int = 0

    def count(self, outcome: str) -> None:
        self.attempts[outcome] = self.attempts.get(outcome, 0) + 1

    def observe(self, seconds: float) -> None:
        self.latency_sum += seconds
        self.latency_n += 1
        for i, b in enumerate(self.latency_buckets):
            if seconds <= b:
                self.latency_counts[i] += 1
                return
        self.latency_counts[-1] += 1
