"""What a caller may choose beyond :class:`Settings` when building the engine."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ..common.clock import Clock, system_clock
from ..destinations.port import Destination
from ..observe import tracing

__all__ = ["EngineOptions"]


@dataclass(frozen=True, slots=True)
class EngineOptions:
    """What a caller may choose beyond :class:`Settings` (tests, the demo, benchmarks).

    ``clock``: the engine's one clock. ``attempt_tracer``: the per-attempt tracer (None: the
    configured OpenTelemetry provider's, if any). ``wrap_destination``: a decorator around the
    destination the dispatcher sends through (e.g. a test that alters what is sent).
    """

    clock: Clock = system_clock
    attempt_tracer: tracing.AttemptTracer | None = None
    wrap_destination: Callable[[Destination], Destination] | None = None
