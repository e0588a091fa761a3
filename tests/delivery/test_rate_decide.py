"""The token bucket's arithmetic (engine/delivery/rate_decide.py, DESIGN.md section 14) as
properties: at most ``burst + perSecond * t`` grants in any window of ``t`` seconds whatever
the takes; no token lost while the backlog lasts and someone takes at least every ``(burst -
1) / perSecond`` seconds (so the observed rate is ``perSecond``); a bucket held back says
exactly when its next token is there. The SQL function the claim uses
(``hookproof_rate_refill``, migration 0985) agrees with it on the same inputs (real Postgres)."""

from __future__ import annotations

import math
import random
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from hookproof.engine.delivery.rate_decide import Bucket, next_token_s, take

EPS = 1e-6

rates = st.floats(min_value=0.1, max_value=5000, allow_nan=False, allow_infinity=False)
bursts = st.integers(min_value=1, max_value=500)
steps = st.lists(
    st.tuples(st.floats(min_value=0, max_value=3, allow_nan=False), st.integers(0, 600)),
    min_size=1,
    max_size=80,
)


def _run(rate: float, burst: int, takes: list[tuple[float, int]]) -> list[tuple[float, int]]:
    """(time, granted) of each take from a full bucket at 0, ``takes`` = (gap, wanted)."""
    bucket, now, out = Bucket(float(burst), 0.0), 0.0, []
    for gap, wanted in takes:
        now += gap
        t = take(bucket, now, rate, burst, wanted)
        assert 0 <= t.granted <= wanted
        assert 0 <= t.bucket.tokens <= burst
        bucket = t.bucket
        out.append((now, t.granted))
    return out


@settings(max_examples=400, deadline=None)
@given(rates, bursts, steps)
def test_no_window_holds_more_than_burst_plus_rate_times_its_length(
    rate: float, burst: int, takes: list[tuple[float, int]]
) -> None:
    grants = _run(rate, burst, takes)
    for i in range(len(grants)):
        count = 0
        for j in range(i, len(grants)):
            count += grants[j][1]
            assert count <= burst + rate * (grants[j][0] - grants[i][0]) + EPS


@settings(max_examples=400, deadline=None)
@given(
    rates,
    st.integers(min_value=2, max_value=500),
    st.lists(st.floats(min_value=0, max_value=1), min_size=1, max_size=80),
)
def test_a_large_backlog_taken_often_enough_gets_the_full_rate(
    rate: float, burst: int, fractions: list[float]
) -> None:
    """Every gap at most (burst - 1) / rate, every take wanting more than the bucket holds:
    the grants total burst + rate * T less the fraction of a token still in the bucket. (A
    bucket of one token has no such slack: only takes at the instants of its tokens lose
    nothing, which is what the wait of the next test names.)"""
    longest = (burst - 1) / rate
    gaps = [f * longest for f in fractions]
    grants = _run(rate, burst, [(g, burst + 1) for g in gaps])
    total, elapsed = sum(n for _, n in grants), grants[-1][0] - grants[0][0]
    assert total >= burst + rate * elapsed - 1 - EPS
    assert total <= burst + rate * elapsed + EPS


@settings(max_examples=400, deadline=None)
@given(rates, bursts, st.floats(min_value=0, max_value=3), st.integers(1, 600))
def test_a_short_take_names_the_instant_of_the_next_token(
    rate: float, burst: int, gap: float, wanted: int
) -> None:
    first = take(Bucket(0.0, 0.0), gap, rate, burst, wanted)
    if first.granted == wanted:
        assert first.wait_s is None
        return
    assert first.wait_s is not None
    assert first.wait_s == next_token_s(first.bucket.tokens, rate)
    at = first.bucket.at
    early = first.wait_s * (1 - 1e-6) - 1e-9
    if early > 0:
        assert take(first.bucket, at + early, rate, burst, 1).granted == 0
    assert take(first.bucket, at + first.wait_s + 1e-9, rate, burst, 1).granted == 1


async def test_the_claims_sql_arithmetic_is_the_same(pool: Any) -> None:
    rng = random.Random(35)
    cases = [
        (
            rng.choice([0.0, rng.uniform(0, 1), rng.uniform(0, 50)]),
            rng.choice([0.0, rng.uniform(0, 0.1), rng.uniform(0, 5), -1.0]),
            rng.uniform(0.1, 2000),
            rng.randint(1, 100),
            rng.randint(0, 120),
        )
        for _ in range(600)
    ]
    cases = [(min(tk, float(b)), el, r, b, w) for tk, el, r, b, w in cases]  # never above burst
    rows = await pool.fetch(
        "SELECT (f).granted, (f).tokens, (f).wait_s FROM ("
        " SELECT hookproof_rate_refill(t, e, r, b, w) AS f, k"
        " FROM unnest($1::float8[], $2::float8[], $3::float8[], $4::float8[], $5::int[])"
        " WITH ORDINALITY AS c(t, e, r, b, w, k)) AS x ORDER BY k",
        *[list(col) for col in zip(*cases, strict=True)],
    )
    for (tokens, elapsed, rate, burst, wanted), row in zip(cases, rows, strict=True):
        mine = take(Bucket(tokens, 0.0), elapsed, rate, burst, wanted)
        assert row["granted"] == mine.granted
        assert abs(row["tokens"] - mine.bucket.tokens) <= 1e-9 * max(1.0, burst)
        if mine.wait_s is None:
            assert row["wait_s"] is None
        else:
            assert abs(row["wait_s"] - mine.wait_s) <= 1e-9


EXTREMES = [0.0, -1.0, 5e-324, 1e-300, 1e308, math.inf, -math.inf, math.nan]


async def test_no_stored_number_makes_the_bucket_fail(pool: Any) -> None:
    """Issue 46: a perSecond of 5e-324 stored once made every claim fail (float8 underflow).
    Whatever the bucket or the config holds (0, negative, denormal, 1e308, infinite, NaN),
    the SQL function answers, inside the API's bounds, and agrees with ``take``."""
    cases = [
        (tk, el, r, b, w)
        for r in [*EXTREMES, 2.0]
        for b in [*EXTREMES, 3.0]
        for tk, el in [(0.0, 1.0), (math.nan, 2.0), (math.inf, math.inf), (1.0, math.nan)]
        for w in (1, 5)
    ]
    rows = await pool.fetch(
        "SELECT (f).granted, (f).tokens, (f).wait_s FROM ("
        " SELECT hookproof_rate_refill(t, e, r, b, w) AS f, k"
        " FROM unnest($1::float8[], $2::float8[], $3::float8[], $4::float8[], $5::int[])"
        " WITH ORDINALITY AS c(t, e, r, b, w, k)) AS x ORDER BY k",
        *[list(col) for col in zip(*cases, strict=True)],
    )
    for (tokens, elapsed, rate, burst, wanted), row in zip(cases, rows, strict=True):
        mine = take(Bucket(tokens, 0.0), elapsed, rate, burst, wanted)  # type: ignore[arg-type]
        assert 0 <= row["granted"] <= wanted and row["granted"] == mine.granted
        assert 0 <= row["tokens"] <= 100_000 and math.isfinite(row["tokens"])
        assert abs(row["tokens"] - mine.bucket.tokens) <= 1e-6
        if mine.wait_s is None:
            assert row["wait_s"] is None
        else:
            assert 0 <= row["wait_s"] <= 1000 and abs(row["wait_s"] - mine.wait_s) <= 1e-9
