"""OpenTelemetry spans for ingest, every delivery attempt and every challenge (DESIGN 11).

The SDK and its OTLP/HTTP exporter are regular dependencies. With
``HOOKPROOF_OTEL_EXPORTER=otlp`` (the standard ``OTEL_EXPORTER_OTLP_*`` variables configure
the exporter) or ``console``, :func:`configure_from_env` installs a tracer provider; unset or
``none``: tracing is off and every helper here is a no-op.

- ``hookproof.ingest`` (SERVER): tenant, event id, topic, and the planned delivery count.
- ``hookproof.attempt`` (CLIENT): delivery id, attempt, subscription, generation, key id,
  then outcome, status and peer address. The ``traceparent`` sent is this span's context,
  so the subscriber's consumer span becomes its child (``traceparent`` is not a covered
  signature component, so replacing it never touches the signature).
- ``hookproof.challenge`` (CLIENT): challenge id, subscription, generation, key id, status,
  peer, passed and reason; the challenge request carries its context too.

Attributes are identifiers and outcomes only: never a secret, a signature or a body.
Evidence never depends on tracing: the composition root wraps the dispatcher's destination in
:class:`TracedDestination`, whose real destination runs exactly once whatever the tracer does
(a tracer that raises is logged and ignored); outcomes are recorded from the destination's
evidence alone, and a missing span (sampling, exporter down) changes nothing in the log.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any, Protocol

import msgspec
import structlog

from hookproof.config import Settings

__all__ = [
    "AttemptSpan",
    "AttemptTracer",
    "OtelAttemptTracer",
    "TracedDestination",
    "attempt_tracer",
    "configure",
    "configure_from_env",
    "otel_tracer_from_env",
    "shutdown",
    "shutdown_in_thread",
    "span",
]

if TYPE_CHECKING:
    from ..destinations.context import Target
    from ..destinations.port import Destination, Evidence, SignedMessage

log = structlog.get_logger("hookproof.tracing")


class AttemptSpan(Protocol):
    def traceparent(self) -> str | None: ...
    def finish(
        self, *, status: int | None, outcome: str, error: str | None, peer: str | None = None
    ) -> None: ...


class AttemptTracer(Protocol):
    def start(
        self, parent_traceparent: str | None, attributes: Mapping[str, Any]
    ) -> AttemptSpan: ...


_KEYID = re.compile(r';keyid="([^"]{1,200})"')


def key_id_of(headers: Mapping[str, str]) -> str | None:
    """The signing key id, from the (public) ``Signature-Input`` parameters."""
    m = _KEYID.search(headers.get("Signature-Input", ""))
    return m.group(1) if m else None


def _attributes(row: Target, message: SignedMessage) -> dict[str, Any]:
    headers = message.headers
    out: dict[str, Any] = {
        "hookproof.delivery_id": row.delivery_id,
        "hookproof.event_id": row.event_id,
        "hookproof.subscription_id": row.subscription_id,
        "hookproof.generation": row.generation,
        "hookproof.attempt": int(headers.get("Webhook-Attempt", "0") or 0),
        "hookproof.endpoint_digest": row.endpoint_digest,
        "http.request.method": "POST",
    }
    key_id = key_id_of(headers)
    if key_id:
        out["hookproof.key_id"] = key_id
    return out


class TracedDestination:
    """A destination with a span around each attempt (chosen by the composition root).

    ``tracer``: the attempt tracer to use; None: the engine's, as :func:`configure` last set it,
    looked up at each attempt like every other span here (no provider: no span, nothing else).
    Tracing failures are logged and swallowed; the real destination runs exactly once.
    """

    __slots__ = ("inner", "tracer")

    def __init__(self, inner: Destination, tracer: AttemptTracer | None = None) -> None:
        self.inner = inner
        self.tracer = tracer

    async def deliver(self, message: SignedMessage, target: Target) -> Evidence:
        tracer = self.tracer if self.tracer is not None else attempt_tracer()
        if tracer is None:
            return await self.inner.deliver(message, target)
        span: AttemptSpan | None = None
        try:
            span = tracer.start(message.headers.get("traceparent"), _attributes(target, message))
            tp = span.traceparent()
            if tp:  # not a covered signature component: replacing it never touches the signature
                message = msgspec.structs.replace(
                    message, headers={**message.headers, "traceparent": tp}
                )
        except Exception as exc:
            log.warning("trace_start_failed", error=type(exc).__name__)
            span = None
        try:
            evidence = await self.inner.deliver(message, target)
        except BaseException as exc:
            _finish(span, status=None, outcome="error", error=type(exc).__name__)
            raise
        _finish(
            span,
            status=evidence.status,
            outcome=evidence.outcome.value,
            error=None if evidence.ok else _code(evidence),
            peer=evidence.peer_address,
        )
        sent = message.headers.get("traceparent")
        if sent and evidence.traceparent is None:  # recorded with the attempt (its request)
            evidence = msgspec.structs.replace(evidence, traceparent=sent)
        return evidence


def _code(evidence: Evidence) -> str | None:
    return None if evidence.code is None else str(evidence.code)


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

    def finish(
        self, *, status: int | None, outcome: str, error: str | None, peer: str | None = None
    ) -> None:
        from opentelemetry.trace import Status, StatusCode

        if status is not None:
            self._span.set_attribute("http.response.status_code", status)
        if peer:
            self._span.set_attribute("network.peer.address", peer)
        self._span.set_attribute("hookproof.outcome", outcome)
        if error:
            self._span.set_attribute("hookproof.code", error)
            self._span.set_status(Status(StatusCode.ERROR, error))
        self._span.end()


def _provider_from_env(env: Mapping[str, str]) -> Any | None:
    kind = (env.get("HOOKPROOF_OTEL_EXPORTER") or "").strip().lower()
    if kind in ("", "none", "off"):
        return None
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor, ConsoleSpanExporter

    exporter: Any
    if kind == "console":
        exporter = ConsoleSpanExporter()
    elif kind == "otlp":
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

        exporter = OTLPSpanExporter()  # the OTEL_EXPORTER_OTLP_* variables configure it
    else:
        log.warning("otel_unknown_exporter", exporter=kind)
        return None
    provider = TracerProvider(resource=Resource.create({"service.name": "hookproof"}))
    provider.add_span_processor(BatchSpanProcessor(exporter))
    return provider


def otel_tracer_from_env(env: Mapping[str, str] | None = None) -> AttemptTracer | None:
    """An OpenTelemetry attempt tracer as ``HOOKPROOF_OTEL_EXPORTER`` says, or None."""
    provider = _provider_from_env(Settings().env if env is None else env)
    if provider is None:
        return None
    return OtelAttemptTracer(provider.get_tracer("hookproof.dispatcher"))


# -- the engine's tracer: ingest, challenges, attempts ------------------------------------------

_STATE: dict[str, Any] = {"provider": None, "tracer": None, "attempts": None}


def configure(provider: Any | None) -> None:
    """Use ``provider`` (an SDK TracerProvider; None: tracing off) for every span here."""
    _STATE["provider"] = provider
    tracer = provider.get_tracer("hookproof") if provider is not None else None
    _STATE["tracer"] = tracer
    _STATE["attempts"] = OtelAttemptTracer(tracer) if tracer is not None else None


def configure_from_env(env: Mapping[str, str] | None = None) -> bool:
    """Install the provider ``HOOKPROOF_OTEL_EXPORTER`` asks for; False when tracing is off."""
    env = Settings().env if env is None else env
    provider = _provider_from_env(env)
    if provider is None:
        return False  # off: leave whatever was configured (tests install their own)
    configure(provider)
    log.info("tracing_enabled", exporter=env.get("HOOKPROOF_OTEL_EXPORTER"))
    return True


async def shutdown_in_thread() -> None:
    """:func:`shutdown` off the event loop (the exporter's last flush may block on I/O)."""
    await asyncio.to_thread(shutdown)


def shutdown() -> None:
    """Flush and stop the exporter (the daemon calls it when it stops)."""
    provider = _STATE["provider"]
    configure(None)
    if provider is not None:
        try:
            provider.shutdown()
        except Exception as exc:
            log.warning("trace_shutdown_failed", error=type(exc).__name__)


def attempt_tracer() -> AttemptTracer | None:
    """The attempt tracer on the configured provider (None: tracing is off)."""
    tracer: AttemptTracer | None = _STATE["attempts"]
    return tracer


class Span:
    """A span that may be absent: every method is safe, nothing here ever raises."""

    def __init__(self, span: Any = None) -> None:
        self._span = span

    def set(self, key: str, value: Any) -> None:
        if self._span is None or value is None:
            return
        try:
            self._span.set_attribute(key, value)
        except Exception as exc:
            log.warning("trace_attribute_failed", error=type(exc).__name__)

    def fail(self, code: str) -> None:
        if self._span is None:
            return
        try:
            from opentelemetry.trace import Status, StatusCode

            self._span.set_attribute("hookproof.code", code)
            self._span.set_status(Status(StatusCode.ERROR, code))
        except Exception as exc:
            log.warning("trace_status_failed", error=type(exc).__name__)

    def traceparent(self) -> str | None:
        if self._span is None:
            return None
        try:
            from opentelemetry import trace
            from opentelemetry.trace.propagation.tracecontext import (
                TraceContextTextMapPropagator,
            )

            carrier: dict[str, str] = {}
            TraceContextTextMapPropagator().inject(
                carrier, context=trace.set_span_in_context(self._span)
            )
            return carrier.get("traceparent")
        except Exception as exc:
            log.warning("trace_context_failed", error=type(exc).__name__)
            return None


@contextlib.contextmanager
def span(name: str, attributes: Mapping[str, Any], *, client: bool = False) -> Iterator[Span]:
    """A span around a block (SERVER, or CLIENT for an outgoing request); a no-op when tracing
    is off or the tracer fails. An exception in the block marks the span and propagates."""
    tracer = _STATE["tracer"]
    raw: Any = None
    if tracer is not None:
        try:
            from opentelemetry import trace

            raw = tracer.start_span(
                name,
                kind=trace.SpanKind.CLIENT if client else trace.SpanKind.SERVER,
                attributes={k: v for k, v in attributes.items() if v is not None},
            )
        except Exception as exc:
            log.warning("trace_start_failed", error=type(exc).__name__)
            raw = None
    wrapped = Span(raw)
    try:
        yield wrapped
    except BaseException as exc:
        code = getattr(exc, "code", None)
        wrapped.fail(str(code) if isinstance(code, str) else type(exc).__name__)
        raise
    finally:
        if raw is not None:
            try:
                raw.end()
            except Exception as exc:
                log.warning("trace_finish_failed", error=type(exc).__name__)
