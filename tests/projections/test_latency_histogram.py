"""The attempt statistics' latency histogram (issue 39, item 5): the Python fold and the SQL
fold put a duration in the same bucket (``bisect_right`` against Postgres' ``width_bucket``,
on the bounds and next to them), the migration's histogram functions add as the module does,
and a percentile read from the histogram stays within one bucket's factor of the exact one."""

from __future__ import annotations

import math
import random

import asyncpg

from hookproof.engine.delivery.stats_view import latency_view
from hookproof.projections.attempt_stats import (
    LATENCY_BOUNDS_MS,
    LATENCY_BUCKETS,
    add_latency,
    latency_bucket,
    percentiles,
)

#: the widest ratio between a bucket's bounds (rounded to the microsecond: a little over 10^(1/8))
FACTOR = max(b / a for a, b in zip(LATENCY_BOUNDS_MS, LATENCY_BOUNDS_MS[1:], strict=False))


def _probes() -> list[float]:
    rng = random.Random(39)
    out = [0.0, 0.2, 999_999.0]
    for b in LATENCY_BOUNDS_MS:
        out += [b, math.nextafter(b, 0.0), math.nextafter(b, math.inf), round(b - 0.001, 3)]
    out += [round(rng.lognormvariate(3, 2), 3) for _ in range(500)]
    return out


async def test_python_and_postgres_bucket_every_duration_alike(pool: asyncpg.Pool) -> None:
    probes = _probes()
    rows = await pool.fetch(
        "SELECT width_bucket(x, $1::float8[]) AS b FROM unnest($2::float8[]) WITH ORDINALITY"
        " AS u(x, i) ORDER BY i",
        LATENCY_BOUNDS_MS,
        probes,
    )
    assert [r["b"] for r in rows] == [latency_bucket(x) for x in probes]
    assert latency_bucket(0.0) == 0 and latency_bucket(1e9) == LATENCY_BUCKETS - 1


async def test_the_histogram_functions_add_as_the_module_does(pool: asyncpg.Pool) -> None:
    a = [random.Random(1).randrange(5) for _ in range(LATENCY_BUCKETS)]
    b = [random.Random(2).randrange(5) for _ in range(LATENCY_BUCKETS)]
    got = await pool.fetchval(
        "SELECT proj_latency_add($1::int[], proj_latency_one(7, 3, $3))"
        " = proj_latency_add(proj_latency_add($1::int[], $2::int[]), NULL)",
        a,
        b,
        LATENCY_BUCKETS,
    )
    assert got is False  # different sums are different
    one = await pool.fetchval("SELECT proj_latency_one(7, 3, $1)", LATENCY_BUCKETS)
    assert one == [3 if i == 7 else 0 for i in range(LATENCY_BUCKETS)]
    summed = await pool.fetchval(
        "SELECT proj_latency_sum(h) FROM (VALUES ($1::int[]), ($2::int[])) AS v(h)", a, b
    )
    assert summed == add_latency(list(a), b)


def test_percentiles_are_within_a_bucket_of_the_exact_ones() -> None:
    rng = random.Random(7)
    for _ in range(50):
        durations = [rng.lognormvariate(rng.uniform(0, 6), rng.uniform(0.1, 2)) for _ in range(400)]
        hist = [0] * LATENCY_BUCKETS
        for d in durations:
            hist[latency_bucket(d)] += 1
        got = percentiles(hist)
        assert got is not None
        ordered = sorted(durations)
        for q, estimate in zip((0.5, 0.9, 0.99), got, strict=True):
            exact = ordered[max(0, math.ceil(q * len(ordered)) - 1)]
            if exact < LATENCY_BOUNDS_MS[0] or exact >= LATENCY_BOUNDS_MS[-1]:
                continue  # the open-ended buckets say only "below 1 ms" / "100 s or more"
            assert exact / FACTOR <= estimate <= exact * FACTOR, (q, exact, estimate)
    assert percentiles([0] * LATENCY_BUCKETS) is None
    assert latency_view([0] * LATENCY_BUCKETS) is None
    view = latency_view(hist)
    assert view is not None and view["count"] == 400
    assert view["p50"] <= view["p90"] <= view["p99"]
