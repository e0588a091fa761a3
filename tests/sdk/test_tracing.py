"""traceparent passthrough (OpenTelemetry optional)."""

from __future__ import annotations

import pytest

from hookproof_subscriber.tracing import consumer_span, parse_traceparent

GOOD = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"


def test_parse_valid_traceparent() -> None:
    ctx = parse_traceparent(GOOD, "vendor=1")
    assert ctx is not None and ctx.sampled and ctx.tracestate == "vendor=1"
    assert (ctx.trace_id, ctx.parent_id) == ("4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7")
    unsampled = parse_traceparent(GOOD[:-2] + "00")
    assert unsampled is not None and not unsampled.sampled


@pytest.mark.parametrize(
    "bad",
    [
        None,
        "",
        "garbage",
        GOOD.upper(),
        "ff" + GOOD[2:],
        GOOD + "-extra",
        "00-" + "0" * 32 + "-00f067aa0ba902b7-01",
        "00-4bf92f3577b34da6a3ce929d0e0e4736-" + "0" * 16 + "-01",
    ],
)
def test_invalid_traceparent_is_ignored(bad: str | None) -> None:
    assert parse_traceparent(bad) is None


def test_consumer_span_never_requires_a_trace() -> None:
    with consumer_span({}) as ctx:
        assert ctx is None
    with consumer_span({"TraceParent": GOOD}, attributes={"hookproof.event_id": "e1"}) as ctx:
        assert ctx is not None and ctx.traceparent == GOOD
