"""Reads on a hot standby (``HOOKPROOF_READ_DATABASE_URL``, docs/standby.md), against a real
streaming standby made here: the test's own primary (pgserver in a folder it made), copied with
``pg_basebackup -R`` and started with the same binaries on a port and socket folder of its own.

The read routes answer from the standby (its own table statistics grow); a GET right after the
POST that made a delivery sees it even while the standby's replay is paused (it waits, then
reads the primary); ``projections rebuild --verify`` and ``audit verify`` pass against the
standby, read-only; a stopped standby makes reads fall back to the primary with a log line,
never an error."""

from __future__ import annotations

import asyncio
import base64
import dataclasses
import json
import os
import pwd
import shutil
import socket
import subprocess
import sys
import tempfile
import urllib.parse
import warnings
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import aiohttp
import asyncpg
import pytest
import trustme
from aiohttp.test_utils import TestServer
from structlog.testing import capture_logs

from hookproof.engine.db.database import connect_pool
from hookproof.engine.standby import parse_lsn

from ..support import loopback_settings, running_engine
from .conftest import Subscriber, active_subscription

#: one master key for the module's engines (they share the primary and its key ring)
MASTER_KEY = base64.urlsafe_b64encode(os.urandom(32)).decode()
STATS = "SELECT coalesce(sum(seq_scan + coalesce(idx_scan, 0)), 0) FROM pg_stat_user_tables"


@dataclass
class Replica:
    primary_dir: Path
    primary_url: str
    standby_parent: Path
    standby_url: str
    user: Any

    @property
    def standby_dir(self) -> Path:
        return self.standby_parent / "data"

    def _ctl(self, pgdata: Path, args: list[str]) -> None:
        import pgserver

        pgserver.pg_ctl(args, pgdata=pgdata, user=self.user, timeout=60)

    async def stop_standby(self) -> None:
        await asyncio.to_thread(self._ctl, self.standby_dir, ["-w", "-m", "fast", "stop"])

    async def start_standby(self) -> None:
        q = urllib.parse.parse_qs(urllib.parse.urlsplit(self.standby_url).query)
        args = ["-w", "-o", '-h ""', "-o", f"-k {q['host'][0]}", "-o", f"-p {q['port'][0]}"]
        log = str(self.standby_parent / "standby.log")
        await asyncio.to_thread(self._ctl, self.standby_dir, [*args, "-l", log, "start"])

    async def caught_up(self) -> None:
        """Until the standby replayed everything the primary wrote so far (bounded)."""
        primary = await asyncpg.connect(self.primary_url)
        standby = await asyncpg.connect(self.standby_url)
        try:
            target = parse_lsn(await primary.fetchval("SELECT pg_current_wal_insert_lsn()::text"))
            for _ in range(600):
                done = await standby.fetchval("SELECT pg_last_wal_replay_lsn()::text")
                if parse_lsn(done) >= target:
                    return
                await asyncio.sleep(0.05)
            raise AssertionError("the standby never replayed the primary's WAL")
        finally:
            await primary.close()
            await standby.close()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _make_replica() -> Replica:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import pgserver
    primary_dir = Path(tempfile.mkdtemp(prefix="hp-primary-"))
    server = pgserver.get_server(str(primary_dir), cleanup_mode=None)
    url, user = server.get_uri(), server.system_user
    sock = urllib.parse.parse_qs(urllib.parse.urlsplit(url).query)["host"][0]
    parent = Path(tempfile.mkdtemp(prefix="hp-standby-"))
    if user is not None:  # as root, pgserver runs Postgres as a user of its own
        pw = pwd.getpwnam(user)
        os.chown(parent, pw.pw_uid, pw.pw_gid)
    data = parent / "data"
    # the standby: a streaming copy (-R writes primary_conninfo and standby.signal)
    pgserver.pg_basebackup(
        ["-D", str(data), "-R", "-X", "stream", "-h", sock, "-U", "postgres"],
        user=user,
        timeout=120,
    )
    sbsock = parent / "sock"
    sbsock.mkdir()
    sbsock.chmod(0o777)
    port = _free_port()
    pgserver.pg_ctl(
        ["-w", "-o", '-h ""', "-o", f"-k {sbsock}", "-o", f"-p {port}"]
        + ["-l", str(parent / "standby.log"), "start"],
        pgdata=data,
        user=user,
        timeout=60,
    )
    standby_url = f"postgresql://postgres@/postgres?host={sbsock}&port={port}"
    return Replica(primary_dir, url, parent, standby_url, user)


@pytest.fixture(scope="module")
def replica() -> Iterator[Replica]:
    """One primary and its standby for the module (each test has a tenant of its own)."""
    r = _make_replica()
    try:
        yield r
    finally:
        for pgdata in (r.standby_dir, r.primary_dir):
            try:
                r._ctl(pgdata, ["-w", "-m", "fast", "stop"])
            except Exception:  # already stopped
                pass
        shutil.rmtree(r.standby_parent, ignore_errors=True)
        shutil.rmtree(r.primary_dir, ignore_errors=True)


async def _standby_reads(url: str) -> int:
    """Table reads the standby has counted (its own statistics; nothing else reads it)."""
    conn = await asyncpg.connect(url)
    try:
        return int(await conn.fetchval(STATS))
    finally:
        await conn.close()


async def _read_sessions(url: str) -> list[str]:
    """The last statement of each of the engine's read sessions on the standby (its own
    ``pg_stat_activity``)."""
    conn = await asyncpg.connect(url)
    try:
        rows = await conn.fetch(
            "SELECT query FROM pg_stat_activity WHERE application_name = 'hookproof-read'"
        )
        return [str(r["query"]) for r in rows]
    finally:
        await conn.close()


async def _until_more_reads(url: str, before: int) -> int:
    for _ in range(600):  # an idle backend flushes its statistics within 10 s
        now = await _standby_reads(url)
        if now > before:
            return now
        await asyncio.sleep(0.05)
    raise AssertionError("the standby counted no table read")


def _event(event_id: str) -> dict[str, Any]:
    return {
        "eventId": event_id,
        "topic": "order.created",
        "version": "1.0",
        "aggregateId": "order-1",
        "aggregateVersion": 1,
        "occurredAt": "2026-11-30T10:00:00Z",
        "payload": {"amount": 1},
    }


@dataclass
class Api:
    http: aiohttp.ClientSession
    base: str
    token: str

    async def call(
        self, method: str, path: str, body: Any = None, headers: dict[str, str] | None = None
    ) -> tuple[int, Any, Any]:
        auth = {"Authorization": f"Bearer {self.token}", **(headers or {})}
        async with self.http.request(method, self.base + path, json=body, headers=auth) as r:
            return r.status, await r.json(content_type=None), r.headers


@pytest.fixture
async def standby_api(
    replica: Replica, tmp_path: Path, subscriber: Subscriber, ca: trustme.CA
) -> AsyncIterator[tuple[Api, str]]:
    pool = await connect_pool(replica.primary_url, min_size=1, max_size=6)
    settings = dataclasses.replace(
        loopback_settings(subscriber.port, ca, tmp_path, request_timeout_s=2.0),
        read_database_url=replica.standby_url,
        read_wait_s=0.2,
        master_key_b64=MASTER_KEY,
    )
    try:
        async with running_engine(pool, settings) as engine:
            tenant = await engine.tenants.create(f"acme-{os.urandom(4).hex()}")
            sid = await active_subscription(engine, tenant.tenant_id, subscriber.url("ok"))
            await replica.caught_up()  # written outside the API: nothing tracks them
            server = TestServer(engine.app(), host="127.0.0.1")
            await server.start_server()
            try:
                async with aiohttp.ClientSession() as http:
                    base = str(server.make_url("")).rstrip("/")
                    yield Api(http, base, tenant.token), sid
            finally:
                await server.close()
    finally:
        await pool.close()


async def test_read_routes_answer_from_the_standby(
    replica: Replica, standby_api: tuple[Api, str]
) -> None:
    api, sid = standby_api
    before = await _standby_reads(replica.standby_url)
    status, sub, _ = await api.call("GET", f"/v1/subscriptions/{sid}")
    assert status == 200 and sub["id"] == sid
    status, page, _ = await api.call("GET", "/v1/deliveries")
    assert status == 200 and page["items"] == []
    status, tl, _ = await api.call("GET", f"/v1/subscriptions/{sid}/timeline")
    assert status == 200 and tl["entries"][0]["type"] == "subscription.registered"
    await _until_more_reads(replica.standby_url, before)
    assert await _read_sessions(replica.standby_url)  # the engine's read-only sessions


async def test_a_get_right_after_the_post_sees_the_write(
    replica: Replica, standby_api: tuple[Api, str]
) -> None:
    api, sid = standby_api
    # the standby applies nothing more until resumed: a read that must see the POST cannot be
    # answered by it, and waits (bounded) before the primary answers it
    admin = await asyncpg.connect(replica.standby_url)
    try:
        await admin.execute("SELECT pg_wal_replay_pause()")
        with capture_logs() as logs:
            status, posted, headers = await api.call("POST", "/v1/events", _event("ryw-1"))
            assert status == 202, posted
            position = headers["Hookproof-Write-Position"]
            [did] = [d["deliveryId"] for d in posted["deliveries"]]
            status, page, _ = await api.call("GET", f"/v1/deliveries?subscriptionId={sid}")
            assert status == 200 and [i["deliveryId"] for i in page["items"]] == [did]
            status, view, _ = await api.call("GET", f"/v1/deliveries/{did}")
            assert status == 200 and view["deliveryId"] == did
            status, tl, _ = await api.call("GET", f"/v1/deliveries/{did}/timeline")
            assert status == 200 and tl["entries"]
        assert any(e["event"] == "standby_behind" for e in logs), logs
        assert not any(e["event"] == "standby_unavailable" for e in logs)
        # another process's client carries the position back: same answer
        status, view, _ = await api.call(
            "GET", f"/v1/deliveries/{did}", headers={"Hookproof-Read-After": position}
        )
        assert status == 200 and view["deliveryId"] == did
        status, problem, _ = await api.call(
            "GET", f"/v1/deliveries/{did}", headers={"Hookproof-Read-After": "nope"}
        )
        assert status == 400 and problem["code"] == "invalid_read_position"
    finally:
        await admin.execute("SELECT pg_wal_replay_resume()")
        await admin.close()
    # replayed: the standby answers again, and has the write
    await replica.caught_up()
    status, view, _ = await api.call("GET", f"/v1/deliveries/{did}")
    assert status == 200 and view["deliveryId"] == did
    # its read sessions' last statements: the view's reads, not only the replay position
    assert any("FROM events" in q for q in await _read_sessions(replica.standby_url))


async def test_a_stopped_standby_falls_back_to_the_primary_with_a_log_line(
    replica: Replica, standby_api: tuple[Api, str]
) -> None:
    api, sid = standby_api
    status, posted, _ = await api.call("POST", "/v1/events", _event("down-1"))
    assert status == 202
    await replica.caught_up()
    status, _, _ = await api.call("GET", "/v1/deliveries")
    assert status == 200
    await replica.stop_standby()
    with capture_logs() as logs:
        for path in (
            "/v1/deliveries",
            f"/v1/subscriptions/{sid}",
            f"/v1/subscriptions/{sid}/timeline",
        ):
            status, doc, _ = await api.call("GET", path)
            assert status == 200, (path, doc)
        status, page, _ = await api.call("GET", "/v1/deliveries")
        assert [i["deliveryId"] for i in page["items"]] == [
            d["deliveryId"] for d in posted["deliveries"]
        ]
    down = [e for e in logs if e["event"] == "standby_unavailable"]
    assert down and down[0]["fallback"] == "primary" and down[0]["log_level"] == "warning"
    await replica.start_standby()  # for the tests after this one


def _cli(args: list[str], replica: Replica, folder: Path) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "HOOKPROOF_DATABASE_URL": replica.primary_url,
        "HOOKPROOF_READ_DATABASE_URL": replica.standby_url,
        "HOOKPROOF_DATA_DIR": str(folder),
        "HOOKPROOF_MASTER_KEY": MASTER_KEY,
    }
    exe = [sys.executable, "-m", "hookproof.engine.cli"]
    return subprocess.run(exe + args, env=env, capture_output=True, text=True, timeout=180)


async def test_rebuild_verify_and_audit_pass_against_the_standby(
    replica: Replica, standby_api: tuple[Api, str], tmp_path: Path
) -> None:
    api, _ = standby_api
    for i in range(3):
        status, _, _ = await api.call("POST", "/v1/events", _event(f"verify-{i}"))
        assert status == 202
    await replica.caught_up()
    before = await _standby_reads(replica.standby_url)
    done = await asyncio.to_thread(
        _cli, ["projections", "rebuild", "--verify", "--json"], replica, tmp_path
    )
    assert done.returncode == 0, done.stdout + done.stderr
    lines = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    where = {line["projection"]: line["database"] for line in lines}
    assert where.pop("stream_catalogue") == "primary"  # unlogged: no rows on a standby
    assert where and set(where.values()) == {"standby"}
    assert all(line["differences"] == [] for line in lines)
    assert await _until_more_reads(replica.standby_url, before) > before
    audit = await asyncio.to_thread(_cli, ["audit", "verify", "--json"], replica, tmp_path)
    assert audit.returncode == 0, audit.stdout + audit.stderr
    assert json.loads(audit.stdout.splitlines()[-1])["ok"] is True
