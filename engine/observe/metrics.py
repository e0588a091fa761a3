"""``GET /metrics``: one prometheus-client registry per engine, behind the operator's token.

What is exported is engine-wide and carries no tenant or endpoint detail: attempt outcomes,
dispatch latency, receipt outcomes and refusals by reason, the queue (depth and oldest due,
from the due index, bounded), dead letters (bounded), and how many endpoints the breaker
remembers in each state (never which). The route (``engine/api/metrics.py``) needs
``Bearer <HOOKPROOF_METRICS_TOKEN>`` or the operator token ``HOOKPROOF_ADMIN_TOKEN``; with
neither configured it is refused.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram
from prometheus_client.exposition import generate_latest

if TYPE_CHECKING:  # an annotation only: observe/ sits below delivery/
    from ..delivery.repository import Backlog

__all__ = ["ATTEMPT_OUTCOMES", "COUNT_CAP", "EngineMetrics"]

#: an upper bound on what a scrape counts (the count stops there: "at least")
COUNT_CAP = 100_000
ATTEMPT_OUTCOMES = ("endpoint_accepted", "retryable", "unknown_transport", "dead_letter")
_LATENCY_BUCKETS = (0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10)


class EngineMetrics:
    """The registry and its instruments. ``count``/``observe`` are the dispatcher's interface;
    ``breaker_states``: the endpoint gates' states (``EndpointGates.states``), read per scrape."""

    def __init__(self, breaker_states: Callable[[], dict[str, str]] = dict) -> None:
        r = self.registry = CollectorRegistry(auto_describe=True)
        self.attempts = Counter(
            "hookproof_attempts", "Delivery attempts, by outcome.", ["outcome"], registry=r
        )
        self.dispatch_latency = Histogram(
            "hookproof_dispatch_latency_seconds",
            "From admission to the recorded outcome.",
            buckets=_LATENCY_BUCKETS,
            registry=r,
        )
        self.receipts = Counter(
            "hookproof_receipts",
            "Application receipts received, by outcome.",
            ["outcome"],
            registry=r,
        )
        self.receipts_rejected = Counter(
            "hookproof_receipts_rejected",
            "Receipts refused (no event is ever appended for them), by reason code.",
            ["reason"],
            registry=r,
        )
        self.queue_depth = Gauge(
            "hookproof_queue_depth",
            f"Deliveries waiting to be attempted (counted up to {COUNT_CAP}).",
            registry=r,
        )
        self.oldest_due = Gauge(
            "hookproof_oldest_due_seconds",
            "How long the oldest due delivery has waited.",
            registry=r,
        )
        self.dead_letters = Gauge(
            "hookproof_dead_letters", f"Dead letters (counted up to {COUNT_CAP}).", registry=r
        )
        self.breakers = Gauge(
            "hookproof_endpoint_breakers",
            "Endpoints the breaker remembers, by state (which endpoints is never exported).",
            ["state"],
            registry=r,
        )
        for outcome in ATTEMPT_OUTCOMES:
            self.attempts.labels(outcome)
        for outcome in ("accepted", "duplicate", "conflict", "rejected"):
            self.receipts.labels(outcome)
        self.breaker_states = breaker_states

    # -- the dispatcher's interface --------------------------------------------------------

    def count(self, outcome: str) -> None:
        self.attempts.labels(str(outcome)).inc()

    def observe(self, seconds: float) -> None:
        self.dispatch_latency.observe(seconds)

    def known_reasons(self, reasons: Iterable[str]) -> None:
        for reason in reasons:
            self.receipts_rejected.labels(reason)

    # -- a scrape --------------------------------------------------------------------------

    def render(self, backlog: Backlog) -> bytes:
        """The exposition, with the gauges set from ``backlog`` (read for this scrape)."""
        self.queue_depth.set(backlog.depth)
        self.oldest_due.set(backlog.oldest_due_s)
        self.dead_letters.set(backlog.dead_letters)
        by_state: dict[str, int] = {"closed": 0, "open": 0, "half_open": 0}
        for state in self.breaker_states().values():
            by_state[str(state)] = by_state.get(str(state), 0) + 1
        for state, n in by_state.items():
            self.breakers.labels(state).set(n)
        return generate_latest(self.registry)
