"""The master key under faults, with real ``serve`` processes, real Postgres and a real HTTPS
subscriber (issues 48 and 46): a key from another folder is refused at start-up with the
database untouched and no key file made; nothing sealed under the first key is lost or
overwritten, and the first key still delivers; ``/readyz`` is not ready while keys cannot be
opened."""

from __future__ import annotations

import asyncio
import base64
import json
import secrets
from pathlib import Path
from typing import Any

import aiohttp
import asyncpg
import trustme

from hookproof.engine.keys.master import fingerprint
from hookproof.engine.keys.master_check import CHECK_ID, CHECK_PLAINTEXT
from hookproof.engine.keys.material import MaterialBox

from ..daemon import Daemon, free_port, run_cli, start_daemon
from .conftest import Subscriber

HEADER_VALUE = "hdr-" + secrets.token_urlsafe(18)


def _env(db_url: str, tmp: Path, sub: Subscriber, ca: trustme.CA) -> dict[str, str]:
    """An operator's settings with a relative data dir (where the key file goes) and no key
    set: what the daemon reads depends on the folder it is started from."""
    ca_file = tmp / "ca.pem"
    ca.cert_pem.write_to_path(str(ca_file))
    return {
        "HOOKPROOF_DATABASE_URL": db_url,
        "HOOKPROOF_DATA_DIR": ".hookproof",
        "HOOKPROOF_MASTER_KEY": "",
        "HOOKPROOF_MASTER_KEY_FILE": "",
        "HOOKPROOF_EGRESS_ALLOW": f"127.0.0.1:{sub.port}",
        "HOOKPROOF_EGRESS_CA_FILE": str(ca_file),
        "HOOKPROOF_DNS_SERVERS": "127.0.0.1:9",
        "HOOKPROOF_CONNECT_TIMEOUT": "1",
        "HOOKPROOF_REQUEST_TIMEOUT": "2",
    }


async def _start(env: dict[str, str], tmp: Path, cwd: Path) -> Daemon:
    return await asyncio.to_thread(start_daemon, env, tmp, cwd=cwd)


async def _cli(args: list[str], env: dict[str, str], cwd: Path) -> Any:
    return await asyncio.to_thread(run_cli, args, env, 90, cwd=cwd)


async def _snapshot(pool: asyncpg.Pool) -> dict[str, list[tuple[Any, ...]]]:
    """What a refused start must leave as it was: the log, the sealed rows, the check value,
    the deliveries and the migrations applied."""
    queries = {
        "events": "SELECT global_position, stream_id, stream_version FROM events",
        "key_material": "SELECT key_id, nonce, ciphertext, destroyed_at FROM key_material",
        "endpoint_auth": "SELECT material_id, nonce, ciphertext FROM endpoint_auth_material",
        "check": "SELECT fingerprint, nonce, ciphertext, created_at FROM master_key_check",
        "deliveries": "SELECT delivery_id, state FROM deliveries",
        "migrations": "SELECT number FROM hookproof_migrations",
    }
    return {name: sorted(tuple(r) for r in await pool.fetch(sql)) for name, sql in queries.items()}


async def _wait(pred: Any, what: str, timeout: float = 60.0) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while loop.time() < deadline:
        if await pred():
            return
        await asyncio.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


async def _deliver(base: str, token: str, event_id: str, subscriber: Subscriber) -> None:
    """Publish one event and wait until the subscriber took it and the engine recorded it."""
    async with aiohttp.ClientSession(headers={"Authorization": f"Bearer {token}"}) as http:
        async with http.post(
            f"{base}/v1/events",
            json={
                "eventId": event_id,
                "topic": "t",
                "version": "1.0",
                "aggregateId": "a",
                "aggregateVersion": 1,
                "occurredAt": "2026-11-30T10:00:00Z",
                "payload": {"id": event_id},
            },
        ) as r:
            assert r.status == 202, await r.text()
            [delivery] = (await r.json())["deliveries"]

        async def accepted() -> bool:
            async with http.get(f"{base}/v1/deliveries/{delivery['deliveryId']}") as r:
                return (await r.json())["state"] == "ENDPOINT_ACCEPTED"

        await _wait(accepted, f"{event_id} accepted")
    [got] = [r for r in subscriber.deliveries("ok") if event_id.encode() in r.body]
    assert got.headers["X-Api-Key"] == HEADER_VALUE  # the sealed header opened


def _refusal(done: Any) -> str:
    """The one error line of a refused command (exit EX_CONFIG, no traceback)."""
    assert done.returncode == 78, done.stdout + done.stderr
    errors = [line for line in done.stderr.splitlines() if line.startswith("error ")]
    assert len(errors) == 1, done.stderr
    assert "Traceback" not in done.stdout + done.stderr
    return errors[0]


async def test_a_master_key_from_another_folder_is_refused_and_nothing_sealed_is_lost(
    db_url: str, pool: asyncpg.Pool, tmp_path: Path, subscriber: Subscriber, ca: trustme.CA
) -> None:
    folder_a, folder_b = tmp_path / "a", tmp_path / "b"
    folder_a.mkdir()
    folder_b.mkdir()
    env = _env(db_url, tmp_path, subscriber, ca)
    assert await pool.fetchval("SELECT count(*) FROM master_key_check") == 0
    daemon = await _start(env, tmp_path, folder_a)
    try:
        created = await _cli(["tenant", "create", "acme", "--json"], env, folder_a)
        token = json.loads(created.stdout.strip().splitlines()[-1])["token"]
        async with aiohttp.ClientSession(headers={"Authorization": f"Bearer {token}"}) as http:
            async with http.post(
                f"{daemon.base_url}/v1/subscriptions",
                json={
                    "endpoint": subscriber.url("ok"),
                    "topics": ["t"],
                    "eventVersions": [1],
                    "region": "eu",
                    "signatureAlgorithm": "ed25519",
                    "owner": "ops",
                    "auth": {"type": "header", "name": "X-Api-Key", "value": HEADER_VALUE},
                },
            ) as r:
                assert r.status == 201, await r.text()
                sid = (await r.json())["id"]

            async def active() -> bool:
                async with http.get(f"{daemon.base_url}/v1/subscriptions/{sid}") as r:
                    return (await r.json())["state"] == "ACTIVE"

            await _wait(active, f"{sid} ACTIVE")
        await _deliver(daemon.base_url, token, "e-1", subscriber)
    finally:
        assert daemon.stop() == 0, daemon.log()
    key_file = folder_a / ".hookproof" / "master.key"
    key_a = base64.urlsafe_b64decode(key_file.read_text().strip() + "==")
    started = f"hookproof: master key {fingerprint(key_a)} from {key_file} (HOOKPROOF_DATA_DIR)"
    assert started in daemon.log()  # stated at start-up: which key, from where
    # a fresh database records the first key's check value
    assert await pool.fetchval("SELECT fingerprint FROM master_key_check") == fingerprint(key_a)
    before = await _snapshot(pool)
    assert before["key_material"] and before["endpoint_auth"]
    # which key the database expects, without any key: what an operator compares a backup with
    status = await _cli(["db", "status", "--json"], {**env, "HOOKPROOF_DATA_DIR": ""}, folder_b)
    assert status.returncode == 0, status.stderr
    assert json.loads(status.stdout)["masterKey"]["fingerprint"] == fingerprint(key_a)

    # the same settings from another folder: a new key would be made there; refused instead
    elsewhere = folder_b / ".hookproof" / "master.key"
    port = {"HOOKPROOF_LISTEN": f"127.0.0.1:{free_port()}"}
    for args, extra in (
        (["serve"], {"HOOKPROOF_WORKERS": "1"}),
        (["serve"], {"HOOKPROOF_WORKERS": "2"}),
        (["migrate"], {}),
        (["keys", "rotate"], {}),
    ):
        line = _refusal(await _cli(args, {**env, **port, **extra}, folder_b))
        assert line.startswith("error [master_key_mismatch]: "), (args, line)
        assert f"expected the key with fingerprint {fingerprint(key_a)}" in line
        assert f"from {elsewhere} (HOOKPROOF_DATA_DIR)" in line, line
        assert not elsewhere.exists() and not elsewhere.parent.exists()  # no new key saved
    # another existing key, set outright
    key_b = secrets.token_bytes(32)
    env_b = {**env, **port, "HOOKPROOF_WORKERS": "1"}
    env_b["HOOKPROOF_MASTER_KEY"] = base64.urlsafe_b64encode(key_b).decode()
    line = _refusal(await _cli(["serve"], env_b, folder_b))
    assert f"master key {fingerprint(key_b)} from HOOKPROOF_MASTER_KEY" in line
    assert key_b.hex() not in line and env_b["HOOKPROOF_MASTER_KEY"] not in line
    # an external database and no key setting at all: never the working directory
    unset = {**env, **port, "HOOKPROOF_DATA_DIR": "", "HOOKPROOF_WORKERS": "1"}
    line = _refusal(await _cli(["serve"], unset, folder_b))
    assert line.startswith("error [master_key_unset]: ") and "HOOKPROOF_MASTER_KEY" in line
    assert list(folder_b.iterdir()) == []
    assert await _snapshot(pool) == before  # the database untouched, nothing overwritten

    # key A again, from its own folder: its sealed secrets open and it delivers
    daemon = await _start(env, tmp_path, folder_a)
    try:
        await _deliver(daemon.base_url, token, "e-2", subscriber)
    finally:
        assert daemon.stop() == 0, daemon.log()
    after = await _snapshot(pool)
    for table in ("key_material", "endpoint_auth", "check"):
        assert after[table] == before[table], table


async def test_readyz_is_not_ready_while_keys_cannot_be_opened(
    db_url: str, pool: asyncpg.Pool, tmp_path: Path, subscriber: Subscriber, ca: trustme.CA
) -> None:
    """A running engine whose database's check value is not under its key (the database
    restored from another installation's backup under it) says so on ``/readyz``."""
    key = secrets.token_bytes(32)
    env = {
        **_env(db_url, tmp_path, subscriber, ca),
        "HOOKPROOF_MASTER_KEY": base64.urlsafe_b64encode(key).decode(),
    }
    daemon = await _start(env, tmp_path, tmp_path)
    try:
        async with aiohttp.ClientSession() as http:

            async def readyz() -> tuple[int, Any]:
                async with http.get(daemon.base_url + "/readyz") as r:
                    return r.status, await r.json()

            assert await readyz() == (200, {"status": "ready"})
            other = secrets.token_bytes(32)
            nonce, sealed = MaterialBox(other).seal(CHECK_ID, CHECK_PLAINTEXT)
            async with pool.acquire() as conn, conn.transaction():
                await conn.execute("ALTER TABLE master_key_check DISABLE TRIGGER USER")
                await conn.execute("DELETE FROM master_key_check")
                await conn.execute(
                    "INSERT INTO master_key_check (fingerprint, nonce, ciphertext)"
                    " VALUES ($1, $2, $3)",
                    fingerprint(other),
                    nonce,
                    sealed,
                )
                await conn.execute("ALTER TABLE master_key_check ENABLE TRIGGER USER")
            status, body = await readyz()
            assert (status, body["status"], body["reason"]) == (
                503,
                "unavailable",
                "master_key_mismatch",
            )
            assert base64.urlsafe_b64encode(key).decode() not in json.dumps(body)
    finally:
        daemon.stop()
