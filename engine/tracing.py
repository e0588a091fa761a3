"""Optional OpenTelemetry spans, one per delivery attempt. Off by default; never required.

The dispatcher always sends a W3C ``traceparent`` (``dispatcher.traceparent()``). When
``HOOKPROOF_OTEL_EXPORTER`` is set (``console``, ``otlp``; ``none`` or unset: off) and the
``opentelemetry-sdk`` package is importable, :func:`instrument_dispatcher` wraps the
dispatcher's poster: each attempt gets a CLIENT span ``hookproof.attempt`` whose parent is
the trace the dispatcher started, and the ``traceparent`` sent is replaced by the span's own
context so the subscriber's consumer span becomes its child. (``traceparent`` is not a
covered signature component, so replacing it never touches the signature.)

Evidence never depends on tracing: the wrapper calls the real poster exactly once whatever
the tracer does (a tracer that raises is logged and ignored), the outcome is recorded by the
dispatcher from the poster's result alone, and receipts never look at trace context.
"""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any, Protocol

import structlog

__all__ = [
    "AttemptSpan",
    "AttemptTracer",
    "OtelAttemptTracer",
    "instrument_dispatcher",
    "otel_tracer_from_env",
    "traced_poster",
]

if TYPE_CHECKING:
    from .delivery.ledger import ClaimRow

log = structlog.get_logger("hookproof.tracing")
Poster = Callable[["ClaimRow", bytes, dict[str, str]], Awaitable[Any]]


class AttemptSpan(Protocol):
    def traceparent(self) -> str | None: ...
    def finish(self, *, status: int | None, outcome: str, error: str | None) -> None: ...


class AttemptTracer(Protocol):
    def start(
        self, parent_traceparent: str | None, attributes: Mapping[str, Any]
    ) -> AttemptSpan: ...


def _attributes(row: ClaimRow, headers: Mapping[str, str]) -> dict[str, Any]:
    return {
        "hookproof.delivery_id": row.delivery_id,
        "hookproof.event_id": row.event_id,
        "hookproof.subscription_id": row.subscription_id,
        "hookproof.generation": row.generation,
        "hookproof.attempt": int(headers.get("Webhook-Attempt", "0") or 0),
        "hookproof.endpoint_digest": row.endpoint_digest,
        "http.request.method": "POST",
    }


def traced_poster(poster: Poster, tracer: AttemptTracer) -> Poster:
    """``poster`` with a span around each attempt; tracing failures are swallowed."""

    async def post(row: ClaimRow, body: bytes, headers: dict[str, str]) -> Any:
        span: AttemptSpan | None = None
        try:
            span = tracer.start(headers.get("traceparent"), _attributes(row, headers))
            tp = span.traceparent()
            if tp:
                headers["traceparent"] = tp
        except Exception as exc:
            log.warning("trace_start_failed", error=type(exc).__name__)
            span = None
        try:
            result = await poster(row, body, headers)
        except BaseException as exc:
            _finish(span, status=None, outcome="error", error=type(exc).__name__)
            raise
        outcome = getattr(getattr(result, "outcome", None), "value", None) or str(
            getattr(result, "outcome", "")
        )
        _finish(
            span,
            status=getattr(result, "status", None),
            outcome=outcome,
            error=None if getattr(result, "ok", False) else getattr(result, "code", None),
        )
        return result

    return post


def _finish(span: AttemptSpan | None, **kw: Any) -> None:
    if span is None:
        return
    try:
        span.finish(**kw)
    except Exception as exc:
        log.warning("trace_finish_failed", error=type(exc).__name__)


class OtelAttemptTracer:
    """:class:`AttemptTracer` on the OpenTelemetry API (imported lazily)."""

    def __init__(self, tracer: Any) -> None:
        from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator

        self._tracer = tracer
        self._propagator = TraceContextTextMapPropagator()

    def start(self, parent_traceparent: str | None, attributes: Mapping[str, Any]) -> AttemptSpan:
        from opentelemetry import trace

        ctx = (
            self._propagator.extract({"traceparent": parent_traceparent})
            if parent_traceparent
            else None
        )
        span = self._tracer.start_span(
            "hookproof.attempt",
            context=ctx,
            kind=trace.SpanKind.CLIENT,
            attributes=dict(attributes),
        )
        return _OtelSpan(span, self._propagator)


class _OtelSpan:
    def __init__(self, span: Any, propagator: Any) -> None:
        self._span = span
        self._propagator = propagator

    def traceparent(self) -> str | None:
        from opentelemetry import trace

        carrier: dict[str, str] = {}
        self._propagator.inject(carrier, context=trace.set_span_in_context(self._span))
        return carrier.get("traceparent")

    def finish(self, *, status: int | None, outcome: str, error: str | None) -> None:
        from opentelemetry.trace import Status, StatusCode

        if status is not None:
            self._span.set_attribute("http.response.status_code", status)
        self._span.set_attribute("hookproof.outcome", outcome)
        if error:
            self._span.set_status(Status(StatusCode.ERROR, error))
        self._span.end()


def otel_tracer_from_env(env: Mapping[str, str] | None = None) -> AttemptTracer | None:
    """An OpenTelemetry attempt tracer as ``HOOKPROOF_OTEL_EXPORTER`` says, or None."""
    env = os.environ if env is None else env
    kind = (env.get("HOOKPROOF_OTEL_EXPORTER") or "").strip().lower()
    if kind in ("", "none", "off"):
        return None
    try:
        from opentelemetry.sdk.resources import Resource
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import BatchSpanProcessor, ConsoleSpanExporter
    except ImportError:
        log.warning("otel_unavailable", exporter=kind, hint="install opentelemetry-sdk")
        return None
    exporter: Any
    if kind == "console":
        exporter = ConsoleSpanExporter()
    elif kind == "otlp":
        try:
            from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
        except ImportError:
            log.warning(
                "otel_unavailable",
                exporter=kind,
                hint="install opentelemetry-exporter-otlp-proto-http",
            )
            return None
        exporter = OTLPSpanExporter()  # OTEL_EXPORTER_OTLP_* variables configure it
    else:
        log.warning("otel_unknown_exporter", exporter=kind)
        return None
    provider = TracerProvider(resource=Resource.create({"service.name": "hookproof"}))
    provider.add_span_processor(BatchSpanProcessor(exporter))
    return OtelAttemptTracer(provider.get_tracer("hookproof.dispatcher"))


def instrument_dispatcher(dispatcher: Any, tracer: AttemptTracer | None = None) -> bool:
    """Wrap ``dispatcher.poster`` with per-attempt spans; False when tracing is off."""
    tracer = tracer if tracer is not None else otel_tracer_from_env()
    if tracer is None or dispatcher is None:
        return False
    dispatcher.poster = traced_poster(dispatcher.poster, tracer)
    log.info("attempt_tracing_enabled")
    return True
