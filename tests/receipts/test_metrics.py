"""Issue 11, defect 8: ``/metrics`` is built on prometheus-client, needs the metrics (or the
operator) token, and exports nothing per endpoint or per tenant."""

from __future__ import annotations

import hashlib

import pytest
from prometheus_client.parser import text_string_to_metric_families

from hookproof.engine.runtime.daemon import Engine

from .harness import Api, HookServer, active_subscription, dispatch_all, ok_endpoint, publish


async def test_metrics_need_a_token(api: Api, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("HOOKPROOF_METRICS_TOKEN", raising=False)
    monkeypatch.delenv("HOOKPROOF_ADMIN_TOKEN", raising=False)
    status, doc = await api.call("GET", "/metrics")
    assert status == 403 and doc["code"] == "metrics_disabled"
    monkeypatch.setenv("HOOKPROOF_METRICS_TOKEN", "scrape-token")
    monkeypatch.setenv("HOOKPROOF_ADMIN_TOKEN", "operator-token")
    for token in (None, "wrong", "hp_x_y"):
        status, doc = await api.call("GET", "/metrics", token=token)
        assert status == 401 and doc["code"] in ("invalid_token", "missing_token"), doc
    status, doc = await api.call(
        "GET", "/metrics", headers={"Authorization": "Bearer scrape-token\u00ff"}
    )
    assert status == 401
    for token in ("scrape-token", "operator-token"):
        status, text = await api.call("GET", "/metrics", token=token)
        assert status == 200 and "hookproof_queue_depth" in text


async def test_metrics_are_engine_wide_with_no_endpoint_detail(
    engine: Engine,
    api: Api,
    hooks: HookServer,
    tenant_token: tuple[str, str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    tenant, token = tenant_token
    hooks.mount("ok", ok_endpoint())
    hooks.mount("down", ok_endpoint(status=503))
    await active_subscription(engine, tenant, hooks.url("ok"), topics=["a.created"])
    await active_subscription(
        engine,
        tenant,
        hooks.url("down"),
        topics=["b.created"],
        retryPolicy={"initialDelayS": 30, "maxDelayS": 30, "maxAttempts": 3},
    )
    await publish(engine, tenant, "evt-a", topic="a.created")
    await publish(engine, tenant, "evt-b", topic="b.created")
    await dispatch_all(engine)
    monkeypatch.setenv("HOOKPROOF_METRICS_TOKEN", "scrape-token")
    status, text = await api.call("GET", "/metrics", token=token)
    assert status == 403, "a tenant token does not read the engine's metrics"
    assert text["code"] == "operator_only"
    status, text = await api.call("GET", "/metrics", token="hp_nope_nope")
    assert status == 401
    status, text = await api.call("GET", "/metrics", token="scrape-token")
    assert status == 200
    families = {f.name: f for f in text_string_to_metric_families(text)}  # parseable
    assert {
        "hookproof_attempts",
        "hookproof_dispatch_latency_seconds",
        "hookproof_receipts",
        "hookproof_receipts_rejected",
        "hookproof_queue_depth",
        "hookproof_oldest_due_seconds",
        "hookproof_dead_letters",
        "hookproof_endpoint_breakers",
    } <= set(families)
    samples = {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for f in families.values()
        for s in f.samples
    }
    assert samples[("hookproof_attempts_total", (("outcome", "endpoint_accepted"),))] == 1
    assert samples[("hookproof_attempts_total", (("outcome", "retryable"),))] == 1
    assert samples[("hookproof_queue_depth", ())] == 1  # the failed one waits for its retry
    assert samples[("hookproof_dispatch_latency_seconds_count", ())] == 2
    # nothing names or fingerprints an endpoint, a subscription or a tenant
    for url in (hooks.url("ok"), hooks.url("down")):
        digest = hashlib.sha256(url.encode()).hexdigest()
        assert digest[:16] not in text and url not in text
    assert "endpoint=" not in text and "sub_" not in text and tenant not in text
    labels = {k for f in families.values() for s in f.samples for k in s.labels}
    assert labels <= {"outcome", "reason", "state", "le"}, labels
