"""W3C ``traceparent`` passthrough; continues the trace with OpenTelemetry when installed.

OpenTelemetry is optional and never required: without it the parsed trace context is still
handed to the application. A missing or invalid ``traceparent`` never fails a delivery.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["TraceContext", "consumer_span", "parse_traceparent"]

_TRACEPARENT = re.compile(r"([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?")


@dataclass(frozen=True, slots=True)
class TraceContext:
    """A parsed W3C trace context."""

    traceparent: str
    trace_id: str
    parent_id: str
    sampled: bool
    tracestate: str | None = None


def parse_traceparent(value: str | None, tracestate: str | None = None) -> TraceContext | None:
    """Parse a ``traceparent`` header (version 00 rules); None when absent or invalid."""
    if not isinstance(value, str):
        return None
    m = _TRACEPARENT.fullmatch(value.strip())
    if m is None:
        return None
    version, trace_id, parent_id, flags, rest = m.groups()
    if (
        version == "ff"
        or (version == "00" and rest)
        or set(trace_id) == {"0"}
        or set(parent_id) == {"0"}
    ):
        return None
    return TraceContext(value.strip(), trace_id, parent_id, bool(int(flags, 16) & 1), tracestate)


def _otel() -> tuple[Any, Any] | None:
    try:
        from opentelemetry import propagate, trace
    except ImportError:
        return None
    return propagate, trace


@contextlib.contextmanager
def consumer_span(
    headers: Mapping[str, str],
    name: str = "hookproof.deliver",
    attributes: Mapping[str, Any] | None = None,
) -> Iterator[TraceContext | None]:
    """Continue the sender's trace around the application's processing of one delivery."""
    lowered = {k.lower(): v for k, v in headers.items()}
    ctx = parse_traceparent(lowered.get("traceparent"), lowered.get("tracestate"))
    otel = _otel()
    if otel is None or ctx is None:
        yield ctx
        return
    propagate, trace = otel
    carrier = {"traceparent": ctx.traceparent}
    if ctx.tracestate:
        carrier["tracestate"] = ctx.tracestate
    parent = propagate.extract(carrier)
    tracer = trace.get_tracer("hookproof_subscriber")
    with tracer.start_as_current_span(
        name, context=parent, kind=trace.SpanKind.CONSUMER, attributes=dict(attributes or {})
    ):
        yield ctx
