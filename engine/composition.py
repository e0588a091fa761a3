"""The composition root (interim: the destination step)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from hookproof.config import Settings

from .challenge.drift import DriftGuard
from .clock import Clock, system_clock
from .delivery.destination import HTTPS, Destination, DestinationsByKind
from .delivery.https import HttpsDestination
from .egress import EgressTransport
from .subscriptions import SubscriptionService
from .tracing import AttemptTracer, TracedDestination

__all__ = ["EngineOptions", "construct_destination"]


@dataclass(frozen=True, slots=True)
class EngineOptions:
    """What a caller may choose beyond :class:`Settings` (tests, the demo, benchmarks).

    ``clock``: the engine's one clock. ``attempt_tracer``: the per-attempt tracer (None: the
    configured OpenTelemetry provider's, if any). ``wrap_destination``: a decorator around the
    destination the dispatcher sends through (e.g. a test that alters what is sent).
    """

    clock: Clock = system_clock
    attempt_tracer: AttemptTracer | None = None
    wrap_destination: Callable[[Destination], Destination] | None = None


def construct_destination(
    settings: Settings,
    transport: EgressTransport,
    guard: DriftGuard,
    subscriptions: SubscriptionService,
    options: EngineOptions,
) -> Destination:
    """Where the dispatcher's attempts go: by destination kind (HTTPS through the pinned egress
    is the one kind today; broker kinds join the mapping here), traced per attempt."""
    https = HttpsDestination(transport, guard, subscriptions)
    destination: Destination = DestinationsByKind({HTTPS: https}, default=https)
    if options.wrap_destination is not None:
        destination = options.wrap_destination(destination)
    return TracedDestination(destination, options.attempt_tracer)
