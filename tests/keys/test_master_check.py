"""The master key's location and the database's check value (issue 48), against real Postgres:
a key is never looked for in the working directory for an external database, the first key is
recorded, another key is refused before anything is written, ``/readyz``'s probe names it."""

from __future__ import annotations

import base64
import secrets
from dataclasses import replace
from pathlib import Path

import asyncpg
import pytest

from hookproof.config import Settings
from hookproof.engine.keys import KeyRing
from hookproof.engine.keys.errors import MasterKeyMismatch, MasterKeyUnset
from hookproof.engine.keys.master import fingerprint, locate_master_key
from hookproof.engine.keys.master_check import (
    judge,
    master_key_problem,
    record_master_key,
    verify_master_key,
)


def _b64(key: bytes) -> str:
    return base64.urlsafe_b64encode(key).rstrip(b"=").decode()


async def _sealed(pool: asyncpg.Pool) -> list[tuple[object, ...]]:
    """Every sealed row and the check value, as stored."""
    rows = await pool.fetch("SELECT key_id, nonce, ciphertext FROM key_material ORDER BY key_id")
    check = await pool.fetch("SELECT fingerprint, nonce, ciphertext FROM master_key_check")
    return [tuple(r) for r in rows] + [tuple(r) for r in check]


def test_an_external_database_never_uses_the_working_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    env = {"HOOKPROOF_DATABASE_URL": "postgresql://db.internal/hookproof"}
    with pytest.raises(MasterKeyUnset) as info:
        locate_master_key(Settings.from_env(env))
    assert info.value.code == "master_key_unset" and info.value.exit_code == 78
    assert "HOOKPROOF_MASTER_KEY_FILE" in info.value.detail
    assert not (tmp_path / ".hookproof").exists()  # nothing created
    # a key file an older version left there is named, never used
    (tmp_path / ".hookproof").mkdir()
    (tmp_path / ".hookproof" / "master.key").write_text(_b64(secrets.token_bytes(32)))
    with pytest.raises(MasterKeyUnset) as info:
        locate_master_key(Settings.from_env(env))
    assert str(tmp_path / ".hookproof" / "master.key") in info.value.detail


def test_key_locations_are_absolute_and_a_new_key_is_not_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    url = {"HOOKPROOF_DATABASE_URL": "postgresql://db.internal/hookproof"}
    in_dir = locate_master_key(Settings.from_env({**url, "HOOKPROOF_DATA_DIR": "state"}))
    assert in_dir.pending_file == tmp_path / "state" / "master.key"
    assert f"{tmp_path / 'state' / 'master.key'} (HOOKPROOF_DATA_DIR)" in in_dir.describe()
    assert not (tmp_path / "state").exists()  # only saved once the database accepted it
    key = secrets.token_bytes(32)
    (tmp_path / "k").write_text(_b64(key) + "\n")
    (tmp_path / "k").chmod(0o600)
    from_file = locate_master_key(Settings.from_env({**url, "HOOKPROOF_MASTER_KEY_FILE": "k"}))
    assert from_file.key == key and from_file.pending_file is None
    assert from_file.describe() == (
        f"master key {fingerprint(key)} from {tmp_path / 'k'} (HOOKPROOF_MASTER_KEY_FILE)"
    )
    from_env = locate_master_key(Settings.from_env({**url, "HOOKPROOF_MASTER_KEY": _b64(key)}))
    assert from_env.describe() == f"master key {fingerprint(key)} from HOOKPROOF_MASTER_KEY"
    # the embedded database keeps its key beside it, in the data dir
    embedded = locate_master_key(Settings.from_env({}))
    assert embedded.pending_file == tmp_path / ".hookproof" / "master.key"


def test_fingerprints_name_keys_without_revealing_them() -> None:
    a, b = secrets.token_bytes(32), secrets.token_bytes(32)
    assert fingerprint(a) == fingerprint(a) != fingerprint(b)
    assert fingerprint(a).startswith("mk_") and len(fingerprint(a)) == 19
    assert a.hex()[:16] not in fingerprint(a)


def test_judge() -> None:
    assert judge(True, []).refused is None and not judge(True, []).record
    assert judge(False, [("key_material k", True)]).refused == "the check value"
    assert judge(None, []).record and judge(None, [("x", True)]).record
    refused = judge(None, [("x", True), ("key_material k", False)])
    assert refused.refused == "key_material k" and not refused.record


async def test_the_first_key_is_recorded_and_another_refused_with_nothing_written(
    pool: asyncpg.Pool, tmp_path: Path
) -> None:
    first = Settings(database_url="postgresql://unused", data_dir=tmp_path / "a")
    a = locate_master_key(first)
    async with pool.acquire() as conn:
        assert await verify_master_key(conn, a)  # a fresh database: to be recorded
        a = await record_master_key(conn, a)
        assert not await verify_master_key(conn, a)
    assert (tmp_path / "a" / "master.key").stat().st_mode & 0o777 == 0o600
    [row] = await pool.fetch("SELECT fingerprint FROM master_key_check")
    assert row["fingerprint"] == a.fingerprint
    ring = KeyRing(pool, replace(first, master_key_b64=_b64(a.key)))
    await ring.ensure_active_engine_key(actor="test")
    before = await _sealed(pool)

    b = locate_master_key(replace(first, data_dir=tmp_path / "b"))  # another folder
    async with pool.acquire() as conn:
        with pytest.raises(MasterKeyMismatch) as info:
            await verify_master_key(conn, b)
    detail = info.value.detail
    assert info.value.code == "master_key_mismatch" and "\n" not in detail
    assert a.fingerprint in detail and b.fingerprint in detail
    assert str(tmp_path / "b" / "master.key") in detail
    assert not (tmp_path / "b").exists()
    assert await _sealed(pool) == before
    assert await master_key_problem(pool, a.key) is None
    assert await master_key_problem(pool, b.key) == "master_key_mismatch"


async def test_a_database_from_before_the_check_value_is_judged_by_its_sealed_rows(
    pool: asyncpg.Pool, tmp_path: Path
) -> None:
    key, other = secrets.token_bytes(32), secrets.token_bytes(32)
    settings = Settings(master_key_b64=_b64(key), data_dir=tmp_path)
    await KeyRing(pool, settings).ensure_active_engine_key(actor="test")
    before = await _sealed(pool)
    assert await master_key_problem(pool, other) == "key_material_undecryptable"

    wrong = locate_master_key(replace(settings, master_key_b64=_b64(other)))
    async with pool.acquire() as conn:
        with pytest.raises(MasterKeyMismatch) as info:
            await verify_master_key(conn, wrong)
        assert "the key that sealed key_material k_" in info.value.detail
        assert "no check value recorded yet" in info.value.detail
        assert await _sealed(pool) == before  # nothing recorded for the wrong key
        right = locate_master_key(settings)
        assert await verify_master_key(conn, right)
        await record_master_key(conn, right)
    assert await pool.fetchval("SELECT fingerprint FROM master_key_check") == fingerprint(key)


async def test_the_check_value_is_written_once(pool: asyncpg.Pool, tmp_path: Path) -> None:
    key = secrets.token_bytes(32)
    master = locate_master_key(Settings(master_key_b64=_b64(key), data_dir=tmp_path))
    async with pool.acquire() as conn:
        await record_master_key(conn, master)
        with pytest.raises(asyncpg.InsufficientPrivilegeError):
            await conn.execute("DELETE FROM master_key_check")
        with pytest.raises(asyncpg.InsufficientPrivilegeError):
            await conn.execute("UPDATE master_key_check SET fingerprint = 'mk_0'")


async def test_a_concurrent_first_start_with_another_key_leaves_no_key_behind(
    pool: asyncpg.Pool, tmp_path: Path
) -> None:
    """Two first starts from two folders: both found no check value; the one that records
    second is refused and the key file it had just made is removed."""
    settings = Settings(database_url="postgresql://unused", data_dir=tmp_path / "first")
    first = locate_master_key(settings)
    second = locate_master_key(replace(settings, data_dir=tmp_path / "second"))
    async with pool.acquire() as conn:
        assert await verify_master_key(conn, first)
        assert await verify_master_key(conn, second)
        await record_master_key(conn, first)
        with pytest.raises(MasterKeyMismatch) as info:
            await record_master_key(conn, second)
    assert first.fingerprint in info.value.detail
    assert (tmp_path / "first" / "master.key").exists()
    assert not (tmp_path / "second" / "master.key").exists()
    assert await pool.fetchval("SELECT fingerprint FROM master_key_check") == first.fingerprint
