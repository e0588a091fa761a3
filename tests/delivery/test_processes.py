"""Dispatchers as real processes against one Postgres: no double send; SIGKILL loses nothing."""

from __future__ import annotations

import asyncio
import base64
import json
import signal
from collections import Counter
from pathlib import Path
from typing import Any

import aiohttp
import pytest
import trustme

from ..daemon import Daemon, run_cli, start_daemon
from .conftest import Subscriber


def _env(db_url: str, tmp: Path, sub: Subscriber, ca: trustme.CA, **extra: str) -> dict[str, str]:
    ca_file = tmp / "ca.pem"
    ca.cert_pem.write_to_path(str(ca_file))
    return {
        "HOOKPROOF_DATABASE_URL": db_url,
        "HOOKPROOF_DATA_DIR": str(tmp),
        "HOOKPROOF_MASTER_KEY": base64.urlsafe_b64encode(b"k" * 32).decode().rstrip("="),
        "HOOKPROOF_EGRESS_ALLOW": f"127.0.0.1:{sub.port}",
        "HOOKPROOF_EGRESS_CA_FILE": str(ca_file),
        "HOOKPROOF_DNS_SERVERS": "127.0.0.1:9",
        "HOOKPROOF_CONNECT_TIMEOUT": "1",
        "HOOKPROOF_REQUEST_TIMEOUT": "2",
        "HOOKPROOF_LEASE_MARGIN": "1",
        **extra,
    }


async def _start(env: dict[str, str], tmp: Path) -> Daemon:
    return await asyncio.to_thread(start_daemon, env, tmp)


async def _stop(d: Daemon, sig: int = signal.SIGTERM) -> None:
    await asyncio.to_thread(d.stop, sig)


async def _setup(
    env: dict[str, str], base: str, sub: Subscriber, paths: list[str]
) -> tuple[str, list[str]]:
    created = await asyncio.to_thread(run_cli, ["tenant", "create", "acme", "--json"], env)
    token = json.loads(created.stdout.strip().splitlines()[-1])["token"]
    ids = []
    async with aiohttp.ClientSession(headers={"Authorization": f"Bearer {token}"}) as http:
        for p in paths:
            async with http.post(
                f"{base}/v1/subscriptions",
                json={
                    "endpoint": sub.url(p),
                    "topics": ["t"],
                    "eventVersions": [1],
                    "region": "eu",
                    "signatureAlgorithm": "ed25519",
                    "owner": "ops",
                    "retryPolicy": {"initialDelayS": 0.2, "maxDelayS": 0.5},
                },
            ) as r:
                assert r.status == 201, await r.text()
                ids.append((await r.json())["id"])
        for sid in ids:  # registration challenges run in the daemon's background
            for _ in range(100):
                async with http.get(f"{base}/v1/subscriptions/{sid}") as r:
                    if (await r.json())["state"] == "ACTIVE":
                        break
                await asyncio.sleep(0.1)
            else:
                raise AssertionError(f"{sid} never became ACTIVE")
    return token, ids


async def _publish(base: str, token: str, n: int) -> None:
    async with aiohttp.ClientSession(headers={"Authorization": f"Bearer {token}"}) as http:
        for i in range(n):
            async with http.post(
                f"{base}/v1/events",
                json={
                    "eventId": f"e-{i}",
                    "topic": "t",
                    "version": "1.0",
                    "aggregateId": "a",
                    "aggregateVersion": i,
                    "occurredAt": "2026-11-30T10:00:00Z",
                    "payload": {"i": i},
                },
            ) as r:
                assert r.status == 202, await r.text()


async def _wait_states(pool: Any, want: str, n: int, timeout: float = 60) -> None:
    for _ in range(int(timeout * 10)):
        got = await pool.fetchval("SELECT count(*) FROM deliveries WHERE state = $1", want)
        if got >= n:
            return
        await asyncio.sleep(0.1)
    rows = await pool.fetch("SELECT state, count(*) FROM deliveries GROUP BY state")
    raise AssertionError(f"timed out waiting for {n} {want}: {rows}")


async def test_two_dispatcher_processes_never_send_an_attempt_twice(
    db_url: str, pool: Any, tmp_path: Path, subscriber: Subscriber, ca: trustme.CA
) -> None:
    env = _env(db_url, tmp_path, subscriber, ca)
    a = await _start(env, tmp_path)
    b = await _start(env, tmp_path)
    try:
        token, _ = await _setup(env, a.base_url, subscriber, ["ok-1", "ok-2", "ok-3"])
        await _publish(a.base_url, token, 60)
        await _wait_states(pool, "ENDPOINT_ACCEPTED", 180)
    finally:
        await _stop(a)
        await _stop(b)
    sent = Counter(
        (r.headers["Webhook-Delivery-Id"], r.headers["Webhook-Attempt"])
        for r in subscriber.deliveries()
    )
    assert len(sent) == 180 and max(sent.values()) == 1
    dispatchers = await pool.fetch(
        "SELECT DISTINCT convert_from(data, 'UTF8')::jsonb->>'dispatcher' AS d FROM events "
        "WHERE type = 'delivery.attempt_admitted'"
    )
    assert len(dispatchers) == 2, "both processes took part"


@pytest.mark.solo  # timing across processes: after the parallel part, alone (Makefile)
async def test_sigkill_mid_flight_then_a_fresh_dispatcher_reconciles(
    db_url: str, pool: Any, tmp_path: Path, subscriber: Subscriber, ca: trustme.CA
) -> None:
    env = _env(db_url, tmp_path, subscriber, ca)
    a = await _start(env, tmp_path)
    token, _ = await _setup(env, a.base_url, subscriber, ["hang-1"])
    await _publish(a.base_url, token, 5)
    await _wait_states(pool, "DISPATCHING", 5)
    await _stop(a, signal.SIGKILL)
    assert a.proc.returncode == -signal.SIGKILL
    subscriber.modes["hang-1"] = "ok"
    b = await _start(env, tmp_path)
    try:
        await _wait_states(pool, "ENDPOINT_ACCEPTED", 5)
    finally:
        await _stop(b)
    rows = await pool.fetch("SELECT delivery_id FROM deliveries")
    for r in rows:
        types = [
            e["type"]
            for e in await pool.fetch(
                "SELECT type FROM events WHERE stream_id = $1 ORDER BY stream_version",
                f"delivery-{r['delivery_id']}",
            )
        ]
        assert types == [
            "delivery.planned",
            "delivery.attempt_admitted",
            "delivery.attempt_lost",
            "delivery.attempt_admitted",
            "delivery.endpoint_accepted",
        ]
