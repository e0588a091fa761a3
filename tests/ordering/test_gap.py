"""The gap decision and the claim's events for it, without a database."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from hookproof.engine.delivery.admission import ClaimRow
from hookproof.engine.delivery.claim import ClaimPlan, Send, claim_appends
from hookproof.engine.delivery.ordering import gap_to_skip
from hookproof.events.subscription_events import RetryPolicy
from hookproof_subscriber import SigningKey

NOW = datetime(2026, 11, 30, 10, tzinfo=UTC)


def row(**over: Any) -> ClaimRow:
    base: dict[str, Any] = dict(
        delivery_id="dlv_1",
        event_id="e-1",
        tenant_id="ten_1",
        subscription_id="sub_1",
        generation=1,
        endpoint="https://h.example/in",
        endpoint_digest="d",
        payload_digest="sha-256=:x:",
        owner="ops",
        state="PLANNED",
        attempt=0,
        max_attempts=8,
        last_code=None,
        stream_version=1,
        sub_state="ACTIVE",
        sub_generation=1,
        sub_version=3,
        signature_algorithm="ed25519",
        signature_profile="hookproof.sig.v1",
        old_generation_policy="drain",
        retry_policy=RetryPolicy(),
        aggregate_id="order-1",
        aggregate_version=5,
        ordering_gap_timeout_s=60.0,
        ordered_below=2,
        created_at=NOW - timedelta(seconds=61),
    )
    base.update(over)
    return ClaimRow(**base)


def test_the_gap_is_the_missing_range() -> None:
    gap = gap_to_skip(row(), NOW)
    assert gap is not None and (gap.missing_from, gap.missing_to) == (3, 4)
    assert gap.waited_s == 61
    gap = gap_to_skip(row(ordered_below=None), NOW)
    assert gap is not None and (gap.missing_from, gap.missing_to) == (1, 4)


def test_no_gap_to_record() -> None:
    assert gap_to_skip(row(ordered_below=4), NOW) is None  # the version before is known
    assert gap_to_skip(row(aggregate_version=1, ordered_below=None), NOW) is None
    assert gap_to_skip(row(gap_skipped=True), NOW) is None  # recorded before
    assert gap_to_skip(row(attempt=1), NOW) is None  # a retry: its turn came already
    unordered = row(aggregate_id=None, aggregate_version=None, ordering_gap_timeout_s=None)
    assert gap_to_skip(unordered, NOW) is None


@given(st.integers(2, 10_000), st.one_of(st.none(), st.integers(0, 10_000)))
def test_the_range_is_never_empty_and_ends_before_the_version(version: int, below: Any) -> None:
    if below is not None and below >= version:
        return
    gap = gap_to_skip(row(aggregate_version=version, ordered_below=below), NOW)
    if below is not None and below == version - 1:
        assert gap is None
    else:
        assert gap is not None and gap.missing_from <= gap.missing_to == version - 1


def test_the_claim_records_the_gap_before_the_admission() -> None:
    key = SigningKey.generate_ed25519("k1")
    plan = ClaimPlan(send=[Send(row(), drain=False)])
    appends, admitted = claim_appends(
        plan, {("engine", "ed25519"): (key, 1)}, now=NOW, dispatcher="d1", lease_s=30
    )
    [append] = appends
    assert [e.type for e in append.events] == [
        "delivery.ordering_gap_skipped",
        "delivery.attempt_admitted",
    ]
    assert append.expected == 1
    assert admitted[0].version == 3  # the outcome goes after both
