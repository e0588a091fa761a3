"""``rateLimit`` (DESIGN.md section 14) across real processes: two ``serve --workers 2``
daemons on one database deliver to a subscription limited to ``perSecond`` 20, ``burst`` 5,
and to one without a limit. The subscriber counts arrivals on its own clock: in every window
of ``t`` seconds at most ``burst + perSecond * (t + JITTER_S)`` requests (the bucket bounds the
grants inside the claim; JITTER_S allows for the spread between a grant and its request's
arrival on this shared machine, where a worker starved of CPU sends what it was granted late,
next to another's on-time sends; without the limit, or with one bucket per process, windows of a
second or more exceed it many times over). The bucket's own bound, with no allowance at all, is
checked on the grant times Postgres records under concurrent takers (the first test). Two
unlimited subscriptions, one to the same URL and one whose endpoint is in the same worker share
as the limited one's (so the same claims see both backlogs), their events posted after the
whole limited backlog, are not delayed by it: both are delivered before the limited one is
half done. The load lasts 60 s, as the issue asks: the limited subscription's backlog is
``burst + perSecond * 60`` events."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import aiohttp
import pytest
import trustme

from ..daemon import run_cli
from .conftest import Subscriber
from .test_processes import _env, _start, _stop, _wait_states

PER_SECOND = 20.0
BURST = 5
LOAD_S = 60
EVENTS = int(BURST + PER_SECOND * LOAD_S)  # 60 s at 20/s for the limited subscription
#: events of each of the two unlimited subscriptions (one at the same URL, one at another
#: endpoint of the same worker share), posted after the whole limited backlog
OTHERS = EVENTS // 2
#: the spread allowed between a grant (in the claim) and its request's arrival (measured up to
#: ~0.3 s at a load average of 11 on this 2-core machine)
JITTER_S = 0.5


def _worst_window(
    times: list[float], jitter_s: float = JITTER_S, counts: list[int] | None = None
) -> tuple[float, int, float, float]:
    """The window with the largest ``count - (burst + perSecond * (t + jitter_s))``:
    (that excess, its count, its start after the first time, its length). ``counts``: how
    many each time stands for (default one)."""
    order = sorted(range(len(times)), key=lambda k: times[k])
    times = [times[k] for k in order]
    weights = [counts[k] for k in order] if counts is not None else [1] * len(times)
    worst = (float("-inf"), 0, 0.0, 0.0)
    for i in range(len(times)):
        count = 0
        for j in range(i, len(times)):
            count += weights[j]
            span = times[j] - times[i]
            excess = count - (BURST + PER_SECOND * (span + jitter_s))
            if excess > worst[0]:
                worst = (excess, count, times[i] - times[0], span)
    return worst


async def test_the_bucket_grants_within_the_bound_under_concurrent_claims(pool: Any) -> None:
    """Eight connections take from one bucket as fast as they can for ~3 s, each take in its
    own transaction like a claim; the grant times are the bucket's own (``updated_at`` read
    under the take's row lock): at most burst + perSecond * t in every window, no allowance."""
    grants: list[tuple[float, int]] = []
    stop = asyncio.get_running_loop().time() + 3.0

    async def taker() -> None:
        async with pool.acquire() as conn:
            while asyncio.get_running_loop().time() < stop:
                async with conn.transaction():
                    n = await conn.fetchval(
                        "SELECT hookproof_rate_take('sub_bucket', $1, $2, 3)", PER_SECOND, BURST
                    )
                    at = await conn.fetchval(
                        "SELECT extract(epoch FROM updated_at)::float8"
                        " FROM subscription_rate_buckets WHERE subscription_id = 'sub_bucket'"
                    )
                if n:
                    grants.append((at, n))

    await asyncio.gather(*(taker() for _ in range(8)))
    total = sum(n for _, n in grants)
    span = max(t for t, _ in grants) - min(t for t, _ in grants)
    assert total > BURST  # it did refill and grant more than the burst
    worst = _worst_window([t for t, _ in grants], 0.0, [n for _, n in grants])
    assert worst[0] <= 1e-6, worst
    assert total <= BURST + PER_SECOND * span + 1e-6


async def _share(pool: Any, subscription_id: str) -> int:
    """The worker share (of two per daemon) whose claims look at this subscription's endpoint
    (``dispatch_claim.sql``: ``hashtext(endpoint_digest)`` modulo the workers)."""
    return int(
        await pool.fetchval(
            "SELECT mod(abs(hashtext(endpoint_digest)::bigint), 2) FROM subscriptions"
            " WHERE subscription_id = $1",
            subscription_id,
        )
    )


async def _register(http: aiohttp.ClientSession, base: str, url: str, **extra: Any) -> str:
    async with http.post(
        f"{base}/v1/subscriptions",
        json={
            "endpoint": url,
            "topics": ["t"],
            "eventVersions": [1],
            "region": "eu",
            "signatureAlgorithm": "ed25519",
            "owner": "ops",
            "retryPolicy": {"initialDelayS": 0.2, "maxDelayS": 0.5},
            **extra,
        },
    ) as r:
        body = await r.json()
        assert r.status == 201, body
    for _ in range(300):
        async with http.get(f"{base}/v1/subscriptions/{body['id']}") as r:
            if (await r.json())["state"] == "ACTIVE":
                return str(body["id"])
        await asyncio.sleep(0.1)
    raise AssertionError("not activated")


@pytest.mark.solo  # timing across processes: after the parallel part, alone (Makefile)
async def test_rate_limit_holds_across_two_daemons_with_two_workers_each(
    db_url: str, pool: Any, tmp_path: Path, subscriber: Subscriber, ca: trustme.CA
) -> None:
    env = _env(db_url, tmp_path, subscriber, ca, HOOKPROOF_WORKERS="2")
    a = await _start(env, tmp_path)
    b = await _start(env, tmp_path)
    try:
        created = await asyncio.to_thread(run_cli, ["tenant", "create", "acme", "--json"], env)
        token = json.loads(created.stdout.strip().splitlines()[-1])["token"]
        auth = {"Authorization": f"Bearer {token}"}
        async with aiohttp.ClientSession(headers=auth) as http:
            limit = {"perSecond": PER_SECOND, "burst": BURST}
            limited = await _register(
                http, a.base_url, subscriber.url("ok-limited"), rateLimit=limit
            )
            # an unlimited subscription to the same URL (the limit is the subscription's)
            same = await _register(http, b.base_url, subscriber.url("ok-limited"), topics=["same"])
            # and one whose endpoint is in the same worker share as the limited one's (claims
            # look at their own share's endpoints): the claims that see its rows see the
            # limited backlog ahead of them
            free = ""
            for n in range(8):
                free = await _register(
                    http, b.base_url, subscriber.url(f"ok-free-{n}"), topics=[f"u{n}"]
                )
                if await _share(pool, free) == await _share(pool, limited):
                    break
            free_topic, free_path = f"u{n}", f"ok-free-{n}"
            async with http.get(f"{b.base_url}/v1/subscriptions/{limited}") as r:
                assert (await r.json())["rateLimit"] == limit
            # the whole limited backlog first, then the others' events: every limited row is
            # older than theirs, the order in which a head-of-line wait shows
            events = [
                {
                    "eventId": f"e-{topic}-{i}",
                    "topic": topic,
                    "version": "1.0",
                    "aggregateId": f"a-{i}",
                    "aggregateVersion": 1,
                    "occurredAt": "2026-11-30T10:00:00Z",
                    "payload": {"i": i},
                }
                for topic, count in (("t", EVENTS), ("same", OTHERS), (free_topic, OTHERS))
                for i in range(count)
            ]
            for start in range(0, len(events), 1000):  # a batch holds at most 1000 events
                async with http.post(
                    f"{a.base_url}/v1/events/batch",
                    json={"events": events[start : start + 1000]},
                ) as r:
                    assert r.status < 300, await r.text()
        await _wait_states(pool, "ENDPOINT_ACCEPTED", EVENTS + 2 * OTHERS, timeout=3 * LOAD_S + 60)
    finally:
        await _stop(a)
        await _stop(b)
    to_url = subscriber.deliveries("ok-limited")
    limited_at = [r.at for r in to_url if r.headers.get("Webhook-Subscription") == limited]
    same_at = sorted(r.at for r in to_url if r.headers.get("Webhook-Subscription") == same)
    free_at = sorted(r.at for r in subscriber.deliveries(free_path))
    assert (len(limited_at), len(same_at), len(free_at)) == (EVENTS, OTHERS, OTHERS)
    # the bound, in every window, on the subscriber's own clock
    worst = _worst_window(limited_at)
    assert worst[0] <= 0, (worst, [round(t - min(limited_at), 3) for t in sorted(limited_at)][:40])
    # the limit bound the whole run: it took at least (EVENTS - BURST) / PER_SECOND
    # (implied by the window over all arrivals, stated for the reader)
    assert max(limited_at) - min(limited_at) >= (EVENTS - BURST) / PER_SECOND - JITTER_S
    # the others are not delayed by the limited backlog ahead of them: all of both arrived
    # before the limited one had received half of its deliveries. Behind it (a claim's limit
    # spent on rows the bucket holds back, a scan filled by the backlog, claims queued on the
    # bucket's row lock, a hold of the whole URL) they arrived with its last ones: the one at
    # the same URL at 100% before session 11, the other endpoint's at up to 91% at load 14.
    limited_sorted = sorted(limited_at)
    t0 = limited_sorted[0]
    half = limited_sorted[EVENTS // 2]
    for name, at in (("same URL", same_at), ("same share", free_at)):
        assert at[-1] < half, (
            name,
            round(at[0] - t0, 2),
            round(at[-1] - t0, 2),
            round(half - t0, 2),
            [round(at[k] - t0, 1) for k in range(0, len(at), 100)],
        )
    assert {
        r["subscription_id"]
        for r in await pool.fetch("SELECT subscription_id FROM subscription_rate_buckets")
    } == {limited}
