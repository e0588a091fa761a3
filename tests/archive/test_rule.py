"""The closed-stream rule, row by row, without a database."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hookproof.engine.archive.rule import (
    OPEN_DELIVERY_STATES,
    TERMINAL_DELIVERY_STATES,
    DeliveryFacts,
    RetentionPolicy,
    Verdict,
    delivery_verdict,
    event_verdict,
    stream_verdict,
)

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
POLICY = RetentionPolicy(
    cutoff=NOW - timedelta(days=30),
    now=NOW,
    receipt_window=timedelta(days=1),
    replay_window=timedelta(days=7),
)
OLD = NOW - timedelta(days=40)
RECENT = NOW - timedelta(days=10)


@pytest.mark.parametrize(
    ("state", "receipts", "last", "closed", "reason"),
    [
        ("ENDPOINT_ACCEPTED", False, OLD, True, "closed"),
        ("ENDPOINT_ACCEPTED", True, OLD, True, "closed"),
        ("APPLICATION_CONFIRMED", True, OLD, True, "closed"),
        ("DEAD_LETTER", False, OLD, True, "closed"),
        ("QUARANTINED", False, OLD, True, "closed"),
        ("ENDPOINT_ACCEPTED", False, RECENT, False, "newer_than_cutoff"),
        ("PLANNED", False, OLD, False, "in_flight"),
        ("DISPATCHING", False, OLD, False, "in_flight"),
        ("RETRYABLE", False, OLD, False, "in_flight"),
        ("UNKNOWN_TRANSPORT", False, OLD, False, "in_flight"),
    ],
)
def test_delivery_rows(
    state: str, receipts: bool, last: datetime, closed: bool, reason: str
) -> None:
    v = delivery_verdict(DeliveryFacts(state, receipts, last), POLICY)
    assert (v.closed, v.reason) == (closed, reason)


def test_windows_hold_a_delivery_that_could_still_move() -> None:
    late_cutoff = RetentionPolicy(NOW, NOW, timedelta(days=1), timedelta(days=7))
    hours_ago = NOW - timedelta(hours=2)
    days_ago = NOW - timedelta(days=3)
    assert delivery_verdict(DeliveryFacts("ENDPOINT_ACCEPTED", True, hours_ago), late_cutoff) == (
        Verdict(False, "receipt_window")
    )
    assert delivery_verdict(DeliveryFacts("ENDPOINT_ACCEPTED", False, hours_ago), late_cutoff)
    assert delivery_verdict(DeliveryFacts("ENDPOINT_ACCEPTED", True, days_ago), late_cutoff)
    for state in ("DEAD_LETTER", "QUARANTINED"):
        assert delivery_verdict(DeliveryFacts(state, False, days_ago), late_cutoff) == Verdict(
            False, "replay_window"
        )


def test_event_is_closed_only_when_every_delivery_is() -> None:
    closed, open_ = Verdict(True, "closed"), Verdict(False, "in_flight")
    assert event_verdict(OLD, [], POLICY)
    assert event_verdict(OLD, [closed, None, closed], POLICY)
    assert event_verdict(OLD, [closed, open_], POLICY) == Verdict(False, "deliveries_open")
    assert event_verdict(RECENT, [closed], POLICY) == Verdict(False, "newer_than_cutoff")


@pytest.mark.parametrize("category", ["subscription", "key", "tenant", "receipts", "archive"])
def test_subscription_and_key_streams_stay_hot(category: str) -> None:
    assert stream_verdict(category) == Verdict(False, "kept_hot")
    assert stream_verdict("delivery") is None and stream_verdict("event") is None


@given(
    st.sampled_from(sorted(TERMINAL_DELIVERY_STATES | OPEN_DELIVERY_STATES)),
    st.booleans(),
    st.integers(min_value=0, max_value=90 * 24 * 3600),
)
def test_never_closed_while_open_or_newer_than_the_cutoff(
    state: str, receipts: bool, age_s: int
) -> None:
    last = NOW - timedelta(seconds=age_s)
    v = delivery_verdict(DeliveryFacts(state, receipts, last), POLICY)
    if v.closed:
        assert state in TERMINAL_DELIVERY_STATES and last < POLICY.cutoff
    if state in OPEN_DELIVERY_STATES:
        assert not v.closed
