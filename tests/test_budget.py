"""Token buckets (engine/common/budget.py): a burst, then one token per 1/rate seconds, a
Retry-After in whole seconds, one budget per key."""

from __future__ import annotations

from hookproof.engine.common.budget import Bucket, Budgets


def test_a_bucket_gives_its_burst_then_refills_at_its_rate() -> None:
    b = Bucket(rate=2.0, burst=3.0)
    assert [b.take(0.0) for _ in range(4)] == [True, True, True, False]
    assert b.wait_s(0.0) == 0.5
    assert not b.take(0.4) and b.take(0.5)
    assert b.take(100.0) and b.take(100.0) and b.take(100.0) and not b.take(100.0)  # capped


def test_budgets_are_per_key_and_say_when_to_come_back() -> None:
    now = [0.0]
    budgets = Budgets(0.5, 2.0, clock=lambda: now[0])
    assert [budgets.take("a"), budgets.take("a"), budgets.take("a")] == [0, 0, 2]
    assert budgets.take("b") == 0  # another key: its own budget
    now[0] = 1.0
    assert budgets.take("a") == 1
    now[0] = 2.0
    assert budgets.take("a") == 0
