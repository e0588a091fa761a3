"""Per-attempt spans are optional; evidence never depends on them."""

from __future__ import annotations

import importlib.util
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass, field
from typing import Any

import asyncpg
import pytest
from aiohttp import web

from hookproof.config import Settings
from hookproof.engine.delivery.admission import ClaimRow
from hookproof.engine.destinations.port import Destination, Evidence, SignedMessage
from hookproof.engine.observe import tracing
from hookproof.engine.runtime.composition import EngineOptions
from hookproof.engine.runtime.daemon import Engine
from hookproof_subscriber import SigningKey
from tests.receipts.harness import (
    Api,
    HookServer,
    active_subscription,
    delivery,
    dispatch_all,
    publish,
    receipt_key_body,
)

from ..support import running_engine
from .sdk_app import is_challenge, sdk_app


@dataclass
class FakeSpan:
    parent: str | None
    attributes: dict[str, Any]
    tp: str = "00-" + "ab" * 16 + "-" + "cd" * 8 + "-01"
    finished: dict[str, Any] = field(default_factory=dict)

    def traceparent(self) -> str | None:
        return self.tp

    def finish(
        self, *, status: int | None, outcome: str, error: str | None, peer: str | None = None
    ) -> None:
        self.finished = {"status": status, "outcome": outcome, "error": error}
        self.peer = peer


@dataclass
class FakeTracer:
    spans: list[FakeSpan] = field(default_factory=list)

    def start(self, parent_traceparent: str | None, attributes: Mapping[str, Any]) -> FakeSpan:
        span = FakeSpan(parent_traceparent, dict(attributes))
        self.spans.append(span)
        return span


class BrokenTracer:
    def start(self, parent_traceparent: str | None, attributes: Mapping[str, Any]) -> Any:
        raise RuntimeError("exporter down")


class BrokenFinish(FakeTracer):
    def start(self, parent_traceparent: str | None, attributes: Mapping[str, Any]) -> Any:
        span = super().start(parent_traceparent, attributes)

        def boom(**_: Any) -> None:
            raise RuntimeError("exporter down")

        span.finish = boom  # type: ignore[method-assign]
        return span


class StripTraceparent:
    """Sampling or a proxy dropped the trace header on the way out."""

    def __init__(self, inner: Destination) -> None:
        self.inner = inner

    async def deliver(self, message: SignedMessage, target: ClaimRow) -> Evidence:
        headers = {k: v for k, v in message.headers.items() if k != "traceparent"}
        return await self.inner.deliver(SignedMessage(message.body, headers), target)


@pytest.fixture
def tracer() -> Any:
    return FakeTracer()


@pytest.fixture
def options(tracer: Any) -> EngineOptions:
    return EngineOptions(attempt_tracer=tracer)


@pytest.fixture
async def engine(
    pool: asyncpg.Pool, settings: Settings, options: EngineOptions
) -> AsyncIterator[Engine]:
    """The harness's engine, with the attempt tracer (or destination wrapper) chosen here."""
    async with running_engine(pool, settings, options) as e:
        yield e


def test_tracing_is_off_by_default_and_never_required() -> None:
    assert tracing.otel_tracer_from_env({}) is None
    assert tracing.otel_tracer_from_env({"HOOKPROOF_OTEL_EXPORTER": "none"}) is None
    if importlib.util.find_spec("opentelemetry") is None:
        assert tracing.otel_tracer_from_env({"HOOKPROOF_OTEL_EXPORTER": "console"}) is None
    assert tracing.otel_tracer_from_env({"HOOKPROOF_OTEL_EXPORTER": "bogus"}) is None


async def test_one_span_per_attempt_and_the_subscriber_continues_it(
    engine: Engine,
    api: Api,
    hooks: HookServer,
    tenant_token: tuple[str, str],
    tracer: FakeTracer,
) -> None:
    tenant, _ = tenant_token
    key = SigningKey.generate_ed25519("rk-1")
    app = sdk_app(api, hooks, "traced", receipt_key=key)
    inner = hooks.handlers["traced"]
    seen: list[str] = []

    async def tap(request: web.Request) -> web.StreamResponse:
        if not is_challenge(request):
            seen.append(request.headers["traceparent"])
        return await inner(request)

    hooks.mount("traced", tap)
    await active_subscription(engine, tenant, app.url, receiptKey=receipt_key_body(key))
    [d] = (await publish(engine, tenant, "evt-1")).deliveries
    await dispatch_all(engine)
    await app.sdk.drain()
    [span] = tracer.spans
    assert span.parent is not None and span.parent.startswith("00-")  # the dispatcher's trace
    assert seen == [span.tp]  # the subscriber received the attempt span's own context
    assert span.attributes["hookproof.delivery_id"] == d["deliveryId"]
    assert span.attributes["hookproof.attempt"] == 1
    assert span.finished == {"status": 200, "outcome": "response", "error": None}
    view = await delivery(engine, tenant, d["deliveryId"])
    assert view["evidence"]["application"] == "CONFIRMED"


@pytest.mark.parametrize("tracer", [BrokenTracer(), BrokenFinish()], ids=["start", "finish"])
async def test_a_failing_tracer_changes_no_evidence(
    engine: Engine, api: Api, hooks: HookServer, tenant_token: tuple[str, str], tracer: Any
) -> None:
    tenant, _ = tenant_token
    key = SigningKey.generate_ed25519("rk-1")
    app = sdk_app(api, hooks, "traced", receipt_key=key)
    await active_subscription(engine, tenant, app.url, receiptKey=receipt_key_body(key))
    [d] = (await publish(engine, tenant, "evt-1")).deliveries
    assert await dispatch_all(engine) == 1
    await app.sdk.drain()
    view = await delivery(engine, tenant, d["deliveryId"])
    assert view["state"] == "APPLICATION_CONFIRMED"
    assert [a["outcome"] for a in view["attempts"]] == ["ENDPOINT_ACCEPTED"]


@pytest.mark.parametrize(
    "options", [EngineOptions(wrap_destination=StripTraceparent)], ids=["stripped"]
)
async def test_a_missing_traceparent_changes_no_evidence(
    engine: Engine, api: Api, hooks: HookServer, tenant_token: tuple[str, str]
) -> None:
    """Sampling or a proxy dropped the trace header: the ladder is the same."""
    tenant, _ = tenant_token
    key = SigningKey.generate_ed25519("rk-1")
    app = sdk_app(api, hooks, "untraced", receipt_key=key)
    await active_subscription(engine, tenant, app.url, receiptKey=receipt_key_body(key))
    [d] = (await publish(engine, tenant, "evt-1")).deliveries
    await dispatch_all(engine)
    await app.sdk.drain()
    assert app.effects == [("evt-1", 1)]
    view = await delivery(engine, tenant, d["deliveryId"])
    assert view["evidence"] == {"endpoint": "ENDPOINT_ACCEPTED", "application": "CONFIRMED"}
