"""Spans from the real OpenTelemetry SDK: ingest, each attempt and each challenge, with their
identifiers and outcomes and never a secret or a body; the ``traceparent`` the subscriber
receives is the attempt span's own context. Once in memory, once end to end through the OTLP/HTTP
exporter to a receiver started here (protobuf decoded with ``opentelemetry-proto``)."""

from __future__ import annotations

import asyncio
import base64
from collections.abc import AsyncIterator, Iterator
from typing import Any

import msgspec
import pytest
from aiohttp import web
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from hookproof.engine.observe import tracing
from hookproof.engine.runtime.daemon import Engine
from hookproof.schemas.api import SubscriptionCreate

from ..delivery.conftest import Subscriber, dispatch_all, publish


@pytest.fixture
def reset_tracing() -> Iterator[None]:
    yield
    tracing.shutdown()


async def _flow(engine: Engine, tenant: str, subscriber: Subscriber) -> dict[str, Any]:
    """An hmac subscription (a secret exists to leak), its challenge, one event, one attempt."""
    assert tracing.attempt_tracer() is not None  # the engine's destination spans each attempt
    body = msgspec.convert(
        {
            "endpoint": subscriber.url("ok-t"),
            "topics": ["order.created"],
            "eventVersions": [1],
            "region": "eu",
            "signatureAlgorithm": "hmac-sha256",
            "owner": "o",
        },
        SubscriptionCreate,
    )
    state, secret = await engine.subscriptions.register(tenant, body, actor="test")
    assert secret is not None
    subscriber.secrets["ok-t"] = secret
    challenge = await engine.services.challenger.run(state.subscription_id, actor="test")
    assert challenge["passed"]
    result = await publish(engine, tenant, "evt-traced", payload={"card": "4111-SECRET-BODY"})
    [planned] = result.deliveries
    assert await dispatch_all(engine) == 1
    [sent] = subscriber.deliveries("ok-t")
    return {
        "subscription_id": state.subscription_id,
        "challenge_id": challenge["challengeId"],
        "delivery_id": planned["deliveryId"],
        "secret": secret,
        "body": sent.body,
        "traceparent": sent.headers["traceparent"],
        "challenge_traceparent": next(
            r.headers["traceparent"] for r in subscriber.received if b"challenge" in r.body
        ),
    }


def _no_secret(attributes: dict[str, Any], flow: dict[str, Any]) -> None:
    forbidden = [
        base64.b64encode(flow["secret"]).decode(),
        flow["secret"].hex(),
        "4111-SECRET-BODY",
        flow["body"].decode(),
    ]
    for key, value in attributes.items():
        text = str(value)
        assert not any(f in text for f in forbidden), key
        assert "signature" not in key.lower()


def _check(spans: dict[str, dict[str, Any]], flow: dict[str, Any], tenant: str) -> None:
    ingest, attempt, challenge = (
        spans["hookproof.ingest"],
        spans["hookproof.attempt"],
        spans["hookproof.challenge"],
    )
    assert ingest["attributes"]["hookproof.planned_deliveries"] == 1
    assert ingest["attributes"]["hookproof.event_id"] == "evt-traced"
    assert ingest["attributes"]["hookproof.tenant_id"] == tenant
    a = attempt["attributes"]
    assert a["hookproof.delivery_id"] == flow["delivery_id"]
    assert a["hookproof.attempt"] == 1
    assert a["hookproof.outcome"] == "response"
    assert a["http.response.status_code"] == 204
    assert a["network.peer.address"] == "127.0.0.1"
    assert a["hookproof.key_id"].startswith("k_")
    c = challenge["attributes"]
    assert c["hookproof.challenge_id"] == flow["challenge_id"]
    assert c["hookproof.subscription_id"] == flow["subscription_id"]
    assert c["hookproof.passed"] is True and c["http.response.status_code"] == 200
    for s in spans.values():
        _no_secret(s["attributes"], flow)
    # the subscriber saw the attempt span's own context (same trace, that span as parent)
    _v, trace_id, span_id, _f = flow["traceparent"].split("-")
    assert (trace_id, span_id) == (attempt["trace_id"], attempt["span_id"])
    _v, trace_id, span_id, _f = flow["challenge_traceparent"].split("-")
    assert (trace_id, span_id) == (challenge["trace_id"], challenge["span_id"])


async def test_spans_in_memory_with_the_real_sdk(
    engine: Engine, tenant: str, subscriber: Subscriber, reset_tracing: None
) -> None:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    tracing.configure(provider)
    flow = await _flow(engine, tenant, subscriber)
    spans = {
        s.name: {
            "attributes": dict(s.attributes or {}),
            "trace_id": f"{s.context.trace_id:032x}",
            "span_id": f"{s.context.span_id:016x}",
        }
        for s in exporter.get_finished_spans()
    }
    assert set(spans) >= {"hookproof.ingest", "hookproof.attempt", "hookproof.challenge"}
    _check(spans, flow, tenant)


@pytest.fixture
async def otlp_receiver() -> AsyncIterator[tuple[str, list[ExportTraceServiceRequest]]]:
    received: list[ExportTraceServiceRequest] = []

    async def traces(request: web.Request) -> web.Response:
        assert request.content_type == "application/x-protobuf"
        received.append(ExportTraceServiceRequest.FromString(await request.read()))
        return web.Response(body=b"", content_type="application/x-protobuf")

    app = web.Application()
    app.router.add_post("/v1/traces", traces)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    yield f"http://127.0.0.1:{port}", received
    await runner.cleanup()


async def test_spans_reach_an_otlp_http_receiver(
    engine: Engine,
    tenant: str,
    subscriber: Subscriber,
    otlp_receiver: tuple[str, list[ExportTraceServiceRequest]],
    monkeypatch: pytest.MonkeyPatch,
    reset_tracing: None,
) -> None:
    url, received = otlp_receiver
    monkeypatch.setenv("HOOKPROOF_OTEL_EXPORTER", "otlp")
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", url)
    monkeypatch.setenv("OTEL_BSP_SCHEDULE_DELAY", "50")
    assert tracing.configure_from_env()
    flow = await _flow(engine, tenant, subscriber)
    # the exporter posts from its own thread; the receiver answers on this loop meanwhile
    await asyncio.to_thread(tracing.shutdown)
    spans: dict[str, dict[str, Any]] = {}
    for request in received:
        for rs in request.resource_spans:
            service = {a.key: a.value.string_value for a in rs.resource.attributes}
            assert service["service.name"] == "hookproof"
            for ss in rs.scope_spans:
                for s in ss.spans:
                    attrs: dict[str, Any] = {}
                    for kv in s.attributes:
                        which = kv.value.WhichOneof("value")
                        attrs[kv.key] = getattr(kv.value, which) if which else None
                    spans[s.name] = {
                        "attributes": attrs,
                        "trace_id": s.trace_id.hex(),
                        "span_id": s.span_id.hex(),
                    }
    assert set(spans) >= {"hookproof.ingest", "hookproof.attempt", "hookproof.challenge"}
    _check(spans, flow, tenant)
