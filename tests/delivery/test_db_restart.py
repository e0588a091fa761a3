"""A Postgres restart under a running daemon: 503 problems (never a 500) while the database is
down, ``/readyz`` 503 and ``/healthz`` 200, then requests succeed and the same daemon process
delivers again. The Postgres is the test's own (pgserver in a folder it made), stopped and
started with ``pg_ctl``; the shared servers are never touched."""

from __future__ import annotations

import asyncio
import shutil
import tempfile
import urllib.parse
import warnings
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import aiohttp
import asyncpg
import pytest
import trustme
from structlog.testing import capture_logs

from hookproof.engine.db.database import connect_pool
from hookproof.engine.db.db_errors import database_unavailable
from hookproof.errors import DatabaseUnavailable, StoreError

from ..daemon import start_daemon
from ..support import loopback_settings, running_engine
from .conftest import Subscriber, active_subscription, delivery, publish
from .test_processes import _env, _publish, _setup, _stop


@dataclass
class OwnPostgres:
    folder: Path
    url: str
    user: Any

    def _ctl(self, args: list[str]) -> None:
        import pgserver

        pgserver.pg_ctl(args, pgdata=self.folder, user=self.user, timeout=60)

    async def stop(self) -> None:
        await asyncio.to_thread(self._ctl, ["-w", "-m", "fast", "stop"])

    async def crash(self) -> None:
        """Stop without a shutdown checkpoint: the next start runs crash recovery."""
        await asyncio.to_thread(self._ctl, ["-w", "-m", "immediate", "stop"])

    async def start(self) -> None:
        sock = urllib.parse.parse_qs(urllib.parse.urlsplit(self.url).query)["host"][0]
        log = str(self.folder / "restart.log")
        await asyncio.to_thread(
            self._ctl, ["-w", "-o", '-h ""', "-o", f"-k {sock}", "-l", log, "start"]
        )


@pytest.fixture
async def own_pg() -> AsyncIterator[OwnPostgres]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import pgserver
    folder = Path(tempfile.mkdtemp(prefix="hp-restart-"))
    server = pgserver.get_server(str(folder), cleanup_mode=None)
    pg = OwnPostgres(folder, server.get_uri(), server.system_user)
    try:
        yield pg
    finally:
        try:
            await pg.stop()
        except Exception:  # already stopped
            pass
        shutil.rmtree(folder, ignore_errors=True)


async def _accepted(url: str) -> int:
    conn = await asyncpg.connect(url)
    try:
        return int(
            await conn.fetchval("SELECT count(*) FROM deliveries WHERE state = 'ENDPOINT_ACCEPTED'")
        )
    finally:
        await conn.close()


async def _until_accepted(url: str, n: int) -> None:
    for _ in range(600):  # bounded: the daemon's poll interval is well under a second
        if await _accepted(url) >= n:
            return
        await asyncio.sleep(0.1)
    raise AssertionError(f"never {n} deliveries ENDPOINT_ACCEPTED")


LISTENING = "SELECT count(*) FROM pg_stat_activity WHERE query = 'LISTEN \"hookproof_events\"'"


async def _until_listening(url: str, n: int) -> None:
    """Until ``n`` sessions LISTEN for the log's notifications (their last statement)."""
    for _ in range(600):
        conn = await asyncpg.connect(url)
        try:
            if await conn.fetchval(LISTENING) >= n:
                return
        finally:
            await conn.close()
        await asyncio.sleep(0.1)
    raise AssertionError(f"fewer than {n} sessions LISTEN after the restart")


def _event(event_id: str) -> dict[str, Any]:
    return {
        "eventId": event_id,
        "topic": "t",
        "version": "1.0",
        "aggregateId": "a",
        "aggregateVersion": 1,
        "occurredAt": "2026-11-30T10:00:00Z",
        "payload": {"id": event_id},
    }


async def test_requests_during_a_postgres_restart_are_503_and_the_daemon_recovers(
    own_pg: OwnPostgres, tmp_path: Path, subscriber: Subscriber, ca: trustme.CA
) -> None:
    env = _env(own_pg.url, tmp_path, subscriber, ca)
    daemon = await asyncio.to_thread(start_daemon, env, tmp_path)
    base = daemon.base_url
    try:
        token, [sid] = await _setup(env, base, subscriber, ["ok-restart"])
        await _publish(base, token, 3)
        await _until_accepted(own_pg.url, 3)

        await own_pg.stop()
        auth = {"Authorization": f"Bearer {token}"}
        async with aiohttp.ClientSession() as http:
            async with http.get(f"{base}/healthz") as r:
                assert r.status == 200
            async with http.get(f"{base}/readyz") as r:
                assert r.status == 503
            for i in range(3):  # fresh connections, dead pooled ones: each a 503 problem
                for method, path, body in (
                    ("POST", "/v1/events", _event(f"down-{i}")),
                    ("POST", "/v1/events/batch", {"events": [_event(f"down-b{i}")]}),
                    ("GET", f"/v1/subscriptions/{sid}", None),
                    ("GET", "/v1/deliveries", None),
                ):
                    async with http.request(method, base + path, json=body, headers=auth) as r:
                        text = await r.text()
                        assert r.status == 503, (method, path, r.status, text)
                        assert r.content_type == "application/problem+json"
                        doc = await r.json(content_type=None)
                        assert doc["code"] in ("database_unavailable", "database_busy"), doc
                        assert int(r.headers["Retry-After"]) > 0

            await own_pg.start()
            statuses = []
            for _ in range(300):  # the pool replaces its dead connections as it meets them
                async with http.post(f"{base}/v1/events", json=_event("up-0"), headers=auth) as r:
                    statuses.append(r.status)
                    if r.status == 202:
                        break
                await asyncio.sleep(0.1)
            assert statuses[-1] == 202 and set(statuses) <= {202, 503}, statuses
            async with http.get(f"{base}/readyz") as r:
                assert r.status == 200
            async with http.post(f"{base}/v1/events", json=_event("up-1"), headers=auth) as r:
                assert r.status == 202, await r.text()
        await _until_accepted(own_pg.url, 5)  # the same process delivers again
        assert daemon.proc.poll() is None
        await _until_listening(own_pg.url, 3)  # dispatcher, projector, notifier: woken again
    finally:
        await _stop(daemon)
    log = daemon.log()
    assert "api_unhandled" not in log
    assert "api_database_unavailable" in log
    assert len(subscriber.deliveries("ok-restart")) >= 5


async def test_an_outcome_recorded_across_a_restart_is_recorded_once(
    own_pg: OwnPostgres, tmp_path: Path, subscriber: Subscriber, ca: trustme.CA
) -> None:
    pool = await connect_pool(own_pg.url, min_size=1, max_size=4)
    settings = loopback_settings(subscriber.port, ca, tmp_path, request_timeout_s=1.5)
    try:
        async with running_engine(pool, settings) as engine:
            tenant = (await engine.tenants.create("acme")).tenant_id
            await active_subscription(engine, tenant, subscriber.url("ok"))
            [d] = (await publish(engine, tenant, "evt-restart")).deliveries
            dispatcher = engine.services.dispatcher
            [job] = await dispatcher.claim()
            result = await dispatcher.destination.deliver(dispatcher.message_for(job), job.row)
            assert result.ok
            await own_pg.stop()
            with capture_logs() as logs:
                record = asyncio.create_task(dispatcher.record(job, result, 0.01))
                for _ in range(3000):  # until it met the outage and backed off
                    if any(e["event"] == "dispatch_record_retry" for e in logs) or record.done():
                        break
                    await asyncio.sleep(0.01)
                await own_pg.start()
                await record  # raises if it gave up
            stream = await engine.store.read_stream(f"delivery-{d['deliveryId']}")
            types = [e.type for e in stream]
            assert types.count("delivery.endpoint_accepted") == 1, types
            assert "delivery.attempt_lost" not in types
            view = await delivery(engine, tenant, d["deliveryId"])
            assert view["state"] == "ENDPOINT_ACCEPTED"
    finally:
        await pool.close()


@pytest.mark.parametrize(
    "exc",
    [
        asyncpg.CannotConnectNowError("the database system is shutting down"),
        asyncpg.ConnectionDoesNotExistError("connection was closed in the middle of operation"),
        asyncpg.TooManyConnectionsError("sorry, too many clients already"),
        asyncpg.AdminShutdownError("terminating connection due to administrator command"),
        asyncpg.InterfaceError("cannot perform operation: connection is closed"),
        asyncpg.DeadlockDetectedError("deadlock detected"),
    ],
)
def test_driver_unavailability_is_a_503_keeping_its_cause(exc: Exception) -> None:
    err = database_unavailable(exc)
    assert isinstance(err, DatabaseUnavailable) and err.status == 503
    assert err.__cause__ is exc
    wrapped = StoreError("append failed")  # the store's wrapping keeps it findable
    wrapped.__cause__ = exc
    assert database_unavailable(wrapped) is not None


@pytest.mark.parametrize(
    "exc",
    [
        asyncpg.InterfaceError("the server expects 28 arguments for this query, 32 were passed"),
        asyncpg.UniqueViolationError("duplicate key"),
        FileNotFoundError("an archive segment"),  # not raised by the driver
        RuntimeError("a bug"),
    ],
)
def test_bugs_and_other_failures_are_not_unavailability(exc: Exception) -> None:
    assert database_unavailable(exc) is None
