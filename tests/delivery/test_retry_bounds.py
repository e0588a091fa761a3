"""Issue 46, item 5: the retry delay's arithmetic holds for every attempt number a delivery can
reach. Each replay grants one attempt more than the policy had, so the attempt number is not
bounded by ``maxAttempts``: ``multiplier ** (attempt - 1)`` left float range (OverflowError
while recording the outcome, the delivery stuck) past ~300 attempts at ``multiplier`` 10."""

from __future__ import annotations

import math

from hypothesis import given
from hypothesis import strategies as st

from hookproof.engine.delivery.retry import AttemptError, decide
from hookproof.events.subscription_events import RetryPolicy
from hookproof.schemas.numbers import ATTEMPT_NUMBER_MAX


@given(
    st.integers(min_value=1, max_value=ATTEMPT_NUMBER_MAX - 1),
    st.floats(min_value=1.0, max_value=10.0),
    st.floats(min_value=0.0, max_value=1.0, exclude_max=True),
)
def test_every_attempt_number_gets_a_finite_delay(
    attempt: int, multiplier: float, rand: float
) -> None:
    policy = RetryPolicy(max_attempts=ATTEMPT_NUMBER_MAX, multiplier=multiplier)
    out = decide(policy, attempt, AttemptError("http_500", status=500), rand=rand)
    assert out.retry and math.isfinite(out.delay_s)
    assert 0 <= out.delay_s <= policy.max_delay_s
