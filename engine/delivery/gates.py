"""Per-endpoint concurrency limits and a circuit breaker (one dead endpoint never slows others)."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

__all__ = ["EndpointGates"]


@dataclass
class _Gate:
    inflight: int = 0
    failures: int = 0
    open_until: float = 0.0
    state: str = "closed"  # closed | open | half_open


@dataclass
class EndpointGates:
    limit: int = 8
    failure_threshold: int = 5
    open_seconds: float = 30.0
    gates: dict[str, _Gate] = field(default_factory=dict)

    def _gate(self, key: str) -> _Gate:
        g = self.gates.get(key)
        if g is None:
            g = self.gates[key] = _Gate()
        return g

    def blocked(self, now: float | None = None) -> list[str]:
        """Endpoints not to claim for now: saturated, or breaker open."""
        now = time.monotonic() if now is None else now
        out = []
        for key, g in self.gates.items():
            if g.state == "open" and now >= g.open_until:
                g.state = "half_open"
            if (
                g.inflight >= self.limit
                or g.state == "open"
                or (g.state == "half_open" and g.inflight > 0)
            ):
                out.append(key)
        return out

    def room(self, key: str) -> int:
        """How many more attempts this endpoint may have in flight now."""
        g = self.gates.get(key)
        return self.limit if g is None else max(0, self.limit - g.inflight)

    def acquire(self, key: str) -> None:
        self._gate(key).inflight += 1

    def release(self, key: str, *, success: bool, now: float | None = None) -> None:
        now = time.monotonic() if now is None else now
        g = self._gate(key)
        g.inflight = max(0, g.inflight - 1)
        if success:
            g.failures = 0
            g.state = "closed"
        else:
            g.failures += 1
            if g.state == "half_open" or g.failures >= self.failure_threshold:
                g.state = "open"
                g.open_until = now + self.open_seconds

    def states(self) -> dict[str, str]:
        return {k: g.state for k, g in self.gates.items()}
