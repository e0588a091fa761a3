"""The unauthenticated challenge answer route is priced (issue 46): an answer is checked
against the subscription's pending challenge (id, nonce, expiry: its projection row) before
any stream is read, so answers naming a subscription with a long history cost another tenant's
reads little, and wrong or late answers change nothing.

A real engine process (``serve``), real Postgres; the long history is real events appended
through the engine's own event store (with its inline projections), as drift checks would
append them over months."""

from __future__ import annotations

import asyncio
import base64
import hashlib
import json
import secrets
import statistics
import threading
import time
from collections.abc import Awaitable
from datetime import UTC, datetime, timedelta
from http.client import HTTPConnection
from pathlib import Path
from typing import Any

import aiohttp
import asyncpg

from hookproof.engine.recording.registry import inline_hooks
from hookproof.events import EventStore, Metadata, StreamAppend
from hookproof.events.subscription_events import ChallengeIssued, DriftDetected
from tests.daemon import Daemon, run_cli, start_daemon

HISTORY = 3000
ANSWERS = 200
#: answers per second (open loop): 200 in 4 s, in windows of 50
RATE = 50.0
WINDOWS = 4
PER_WINDOW = ANSWERS // WINDOWS


def _env(db_url: str, tmp: Path) -> dict[str, str]:
    return {
        "HOOKPROOF_DATABASE_URL": db_url,
        "HOOKPROOF_DATA_DIR": str(tmp),
        "HOOKPROOF_MASTER_KEY": base64.urlsafe_b64encode(b"c" * 32).decode().rstrip("="),
        "HOOKPROOF_DNS_SERVERS": "127.0.0.1:9",
        "HOOKPROOF_CONNECT_TIMEOUT": "1",
        "HOOKPROOF_REQUEST_TIMEOUT": "2",
    }


async def _tenant(env: dict[str, str], name: str) -> str:
    done = await asyncio.to_thread(run_cli, ["tenant", "create", name, "--json"], env)
    assert done.returncode == 0, done.stderr
    return str(json.loads(done.stdout.strip().splitlines()[-1])["token"])


async def _subscribe(http: aiohttp.ClientSession, base: str, token: str) -> str:
    body = {
        "endpoint": "https://hooks.test/in",
        "topics": ["order.created"],
        "eventVersions": [1],
        "region": "eu",
        "signatureAlgorithm": "ed25519",
        "owner": "team",
    }
    auth = {"Authorization": f"Bearer {token}"}
    async with http.post(f"{base}/v1/subscriptions", json=body, headers=auth) as r:
        assert r.status == 201, await r.text()
        return str((await r.json())["id"])


async def _settled(pool: asyncpg.Pool, sid: str) -> int:
    """The stream's version once its registration challenge has failed (nothing answers
    ``hooks.test``): nothing else appends to it afterwards."""
    for _ in range(300):
        row = await pool.fetchrow(
            "SELECT max(stream_version) AS v, bool_or(type = 'subscription.challenge_failed') AS f"
            " FROM events WHERE stream_id = $1",
            f"subscription-{sid}",
        )
        if row["f"]:
            return int(row["v"])
        await asyncio.sleep(0.1)
    raise AssertionError("the registration challenge never ended")


async def _issue(store: EventStore, sid: str, version: int, *, ttl_s: float) -> tuple[str, str]:
    """Append a pending challenge (as the challenger records one) with a nonce we know."""
    nonce = base64.urlsafe_b64encode(secrets.token_bytes(32)).decode().rstrip("=")
    cid = "chl_" + secrets.token_hex(12)
    now = datetime.now(UTC)
    issued = ChallengeIssued(
        subscription_id=sid,
        challenge_id=cid,
        generation=1,
        endpoint_digest=hashlib.sha256(b"https://hooks.test/in").hexdigest(),
        nonce_sha256=hashlib.sha256(nonce.encode()).hexdigest(),
        key_id="k-test",
        expires_at=(now + timedelta(seconds=ttl_s)).isoformat(),
        at=now.isoformat(),
    )
    await store.append(
        [StreamAppend(f"subscription-{sid}", [issued], version, Metadata(actor="test"))]
    )
    return cid, nonce


def _answer(sid: str, cid: str, nonce: str) -> bytes:
    doc = {
        "type": "hookproof.challenge-response.v1",
        "challengeId": cid,
        "nonce": nonce,
        "subscriptionId": sid,
        "generation": 1,
        "endpointDigest": "0" * 64,
        "expiresAt": "2099-01-01T00:00:00+00:00",
        "keyId": "k-test",
    }
    return json.dumps(doc).encode()


class Probe(threading.Thread):
    """The victim: reads its subscription every 10 ms on one keep-alive connection of its
    own thread (so the answers' client work in the test's loop does not delay it)."""

    def __init__(self, port: int, path: str, token: str) -> None:
        super().__init__(daemon=True)
        self.port, self.path, self.token = port, path, token
        self.latencies: list[float] = []
        self.stop = threading.Event()

    def run(self) -> None:
        conn = HTTPConnection("127.0.0.1", self.port, timeout=30)
        headers = {"Authorization": f"Bearer {self.token}"}
        try:
            while not self.stop.is_set():
                start = time.perf_counter()
                conn.request("GET", self.path, headers=headers)
                resp = conn.getresponse()
                resp.read()
                assert resp.status == 200
                self.latencies.append(time.perf_counter() - start)
                self.stop.wait(0.01)
        finally:
            conn.close()


async def probed(port: int, path: str, token: str, during: Awaitable[Any]) -> list[float]:
    """The victim's read latencies while ``during`` runs."""
    probe = Probe(port, path, token)
    probe.start()
    try:
        await during
    finally:
        probe.stop.set()
        await asyncio.to_thread(probe.join)
    return probe.latencies


async def paced_answers(
    http: aiohttp.ClientSession, base: str, sid: str, cid: str, n: int, rate: float
) -> list[tuple[int, str]]:
    """``n`` answers naming ``sid`` at ``rate`` per second, open loop (a slow answer does
    not slow the sending): half guesses of the challenge id, half ``cid`` with a wrong nonce.
    Their (status, code)."""

    async def one(i: int) -> tuple[int, str]:
        wrong = base64.urlsafe_b64encode(secrets.token_bytes(32)).decode().rstrip("=")
        name = cid if i % 2 else "chl_" + secrets.token_hex(12)
        data = _answer(sid, name, wrong)
        async with http.post(f"{base}/v1/challenges/{name}/response", data=data) as r:
            return r.status, str((await r.json())["code"])

    tasks = []
    start = time.monotonic()
    for i in range(n):
        await asyncio.sleep(max(0.0, start + i / rate - time.monotonic()))
        tasks.append(asyncio.create_task(one(i)))
    return list(await asyncio.gather(*tasks))


def _cpu_s(daemon: Daemon) -> float:
    fields = Path(f"/proc/{daemon.proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / 100.0  # utime + stime, in clock ticks


async def test_answers_naming_a_long_history_cost_another_tenants_reads_little(
    db_url: str, pool: asyncpg.Pool, tmp_path: Path
) -> None:
    env = _env(db_url, tmp_path)
    daemon = await asyncio.to_thread(start_daemon, env, tmp_path)
    base = daemon.base_url
    store = EventStore(pool, inline=inline_hooks())
    try:
        target_token, victim_token = await _tenant(env, "acme"), await _tenant(env, "globex")
        async with aiohttp.ClientSession() as http:
            sid = await _subscribe(http, base, target_token)
            victim = await _subscribe(http, base, victim_token)
            version = await _settled(pool, sid)
            await _settled(pool, victim)
            at = datetime.now(UTC).isoformat()
            drift = [
                DriftDetected(
                    subscription_id=sid, generation=1, reason="dns_changed", addresses=[], at=at
                )
                for _ in range(HISTORY)
            ]
            await store.append(
                [StreamAppend(f"subscription-{sid}", drift, version, Metadata(actor="test"))]
            )
            cid, nonce = await _issue(store, sid, version + HISTORY, ttl_s=300)
            before = await pool.fetchrow(
                "SELECT stream_version, pending_challenge_id FROM subscriptions"
                " WHERE subscription_id = $1",
                sid,
            )
            assert before["pending_challenge_id"] == cid  # the projection row holds it

            port = int(base.rsplit(":", 1)[1])
            path = f"/v1/subscriptions/{victim}"
            await probed(port, path, victim_token, asyncio.sleep(0.5))  # warm
            # quiet and busy windows taken in turn (the machine's load drifts; each kind of
            # window sees the same drift): 4 x (1 s without answers, 50 answers at 50/s)
            quiet: list[float] = []
            busy: list[float] = []
            codes: list[tuple[int, str]] = []
            cpu = 0.0
            for _ in range(WINDOWS):
                quiet += await probed(port, path, victim_token, asyncio.sleep(PER_WINDOW / RATE))
                cpu0 = _cpu_s(daemon)
                flood = paced_answers(http, base, sid, cid, PER_WINDOW, RATE)
                flooding = asyncio.ensure_future(flood)
                busy += await probed(port, path, victim_token, flooding)
                codes += flooding.result()
                cpu += _cpu_s(daemon) - cpu0

            p50_quiet, p50_busy = statistics.median(quiet), statistics.median(busy)
            detail = (
                f"victim p50 {p50_quiet * 1e3:.2f} ms quiet ({len(quiet)} reads), "
                f"{p50_busy * 1e3:.2f} ms while {ANSWERS} answers at {RATE:.0f}/s named a "
                f"{HISTORY}-event history ({len(busy)} reads); server CPU "
                f"{cpu * 1e3 / ANSWERS:.1f} ms per answer (the victim's reads included)"
            )
            print(detail)
            # under 20% (a 2 ms floor for scheduling noise on a shared machine; folding the
            # history per answer cost 35-60 ms of the server's CPU each: at this rate it was
            # busy all the time and every read waited)
            assert p50_busy <= 1.2 * p50_quiet + 0.002, detail
            assert set(codes) == {(404, "challenge_not_found"), (400, "nonce_mismatch")}, codes

            # wrong and late answers changed nothing: no event, the row as it was
            after = await pool.fetchrow(
                "SELECT stream_version, pending_challenge_id FROM subscriptions"
                " WHERE subscription_id = $1",
                sid,
            )
            assert dict(after) == dict(before)
            # the right nonce without a valid proof is judged against the log: refused, and
            # still nothing written
            async with http.post(
                f"{base}/v1/challenges/{cid}/response", data=_answer(sid, cid, nonce)
            ) as r:
                assert r.status == 400, await r.text()
            # a late answer (right nonce, past its expiry) is refused before any stream read
            late, late_nonce = await _issue(store, sid, before["stream_version"], ttl_s=-1)
            async with http.post(
                f"{base}/v1/challenges/{late}/response", data=_answer(sid, late, late_nonce)
            ) as r:
                assert r.status == 400 and (await r.json())["code"] == "expired"
            version_now = await pool.fetchval(
                "SELECT max(stream_version) FROM events WHERE stream_id = $1",
                f"subscription-{sid}",
            )
            assert version_now == before["stream_version"] + 1  # only the test's own issue
            # the old pending challenge is no longer pending: its answers are guesses now
            async with http.post(
                f"{base}/v1/challenges/{cid}/response", data=_answer(sid, cid, nonce)
            ) as r:
                assert r.status == 404
            # still held: an oversized answer is 413 before anything is read; a guess naming
            # no subscription at all is the same 404 as a guess naming this one
            big = _answer(sid, late, late_nonce) + b" " * 9000
            async with http.post(f"{base}/v1/challenges/{late}/response", data=big) as r:
                assert r.status == 413
            nobody = "sub_" + secrets.token_hex(12)
            async with http.post(
                f"{base}/v1/challenges/{late}/response", data=_answer(nobody, late, late_nonce)
            ) as r:
                assert (r.status, (await r.json())["code"]) == (404, "challenge_not_found")
    finally:
        await asyncio.to_thread(daemon.stop)
