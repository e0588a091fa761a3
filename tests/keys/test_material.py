"""Key material at rest: encrypted, bound to its key id, destroyable only once revoked."""

from __future__ import annotations

import base64
import os
import secrets
from dataclasses import replace
from pathlib import Path

import asyncpg
import pytest
from cryptography.hazmat.primitives import serialization

from hookproof.config import Settings
from hookproof.engine.keys import (
    KeyMaterialUnavailable,
    KeyRing,
    KeyTransitionForbidden,
    MasterKeyInvalid,
    load_master_key,
)
from hookproof.events import EventStore, verify_chain

from .conftest import Clock


async def _private_bytes(ring: KeyRing) -> bytes:
    key = await ring.signing_key()
    assert key.private_key is not None
    return key.private_key.private_bytes(
        serialization.Encoding.Raw, serialization.PrivateFormat.Raw, serialization.NoEncryption()
    )


async def test_ciphertext_does_not_contain_material(ring: KeyRing, pool: asyncpg.Pool) -> None:
    engine = await ring.ensure_active_engine_key()
    assert engine is not None
    priv = await _private_bytes(ring)
    kid, secret_b64 = await ring.create_subscription_secret("sub_1")
    secret = base64.b64decode(secret_b64)
    rows = {r["key_id"]: r for r in await pool.fetch("SELECT * FROM key_material")}
    assert set(rows) == {engine.key_id, kid}
    for key_id, plain in ((engine.key_id, priv), (kid, secret)):
        row = rows[key_id]
        blob = bytes(row["ciphertext"]) + bytes(row["nonce"])
        assert plain not in blob and plain[:16] not in blob
        assert len(bytes(row["ciphertext"])) == len(plain) + 16  # GCM tag
        assert len(bytes(row["nonce"])) == 12


async def test_wrong_master_key_is_a_typed_error(
    ring: KeyRing, pool: asyncpg.Pool, settings: Settings, clock: Clock
) -> None:
    kid, _ = await ring.create_subscription_secret("sub_1")
    await ring.ensure_active_engine_key()
    other = base64.urlsafe_b64encode(secrets.token_bytes(32)).decode()
    intruder = KeyRing(pool, replace(settings, master_key_b64=other), clock=clock)
    with pytest.raises(KeyMaterialUnavailable) as info:
        await intruder.secret_for(kid)
    assert info.value.code == "key_material_undecryptable"
    assert kid in info.value.detail
    with pytest.raises(KeyMaterialUnavailable):
        await intruder.signing_key()


async def test_material_bound_to_its_key_id(ring: KeyRing, pool: asyncpg.Pool) -> None:
    """Swapping two rows' ciphertexts (same master key) does not decrypt: AAD = key id."""
    a, _ = await ring.create_subscription_secret("sub_a")
    b, _ = await ring.create_subscription_secret("sub_b")
    row_b = await pool.fetchrow("SELECT nonce, ciphertext FROM key_material WHERE key_id=$1", b)
    box = ring._box  # the same master key
    with pytest.raises(KeyMaterialUnavailable):
        box.open(a, bytes(row_b["nonce"]), bytes(row_b["ciphertext"]))


@pytest.mark.parametrize(
    "bad",
    [
        "",
        "not base64!",
        base64.urlsafe_b64encode(b"x" * 16).decode(),
        base64.urlsafe_b64encode(b"x" * 33).decode(),
    ],
)
def test_wrong_size_or_malformed_master_key_refused(bad: str, tmp_path: Path) -> None:
    settings = Settings(master_key_b64=bad or " ", data_dir=tmp_path)
    with pytest.raises(MasterKeyInvalid) as info:
        load_master_key(settings)
    assert info.value.code == "master_key_invalid"
    assert bad.strip() == "" or bad not in info.value.detail  # never echoes the key


def test_master_key_file_created_private_and_reused(tmp_path: Path) -> None:
    settings = Settings(master_key_b64=None, data_dir=tmp_path / "data")
    first = load_master_key(settings)
    path = tmp_path / "data" / "master.key"
    assert len(first) == 32
    assert (path.stat().st_mode & 0o777) == 0o600
    assert load_master_key(settings) == first
    os.chmod(path, 0o644)
    with pytest.raises(MasterKeyInvalid) as info:
        load_master_key(settings)
    assert info.value.code == "master_key_file_insecure"
    os.chmod(path, 0o600)
    path.write_text("c2hvcnQ\n")
    with pytest.raises(MasterKeyInvalid):
        load_master_key(settings)


async def test_destroy_only_after_revoke_and_log_stays_verifiable(
    ring: KeyRing, pool: asyncpg.Pool
) -> None:
    key = await ring.ensure_active_engine_key()
    assert key is not None
    kid, _ = await ring.create_subscription_secret("sub_1")
    for target in (key.key_id, kid):
        with pytest.raises(KeyTransitionForbidden) as info:
            await ring.destroy(target)
        assert info.value.code == "destroy_refused"
    before = await pool.fetch("SELECT global_position, hash FROM events ORDER BY 1")
    await ring.compromise(key.key_id)
    await ring.compromise(kid)
    await ring.destroy(key.key_id, actor="ops")
    await ring.destroy(kid, actor="ops")
    await ring.destroy(kid, actor="ops")  # idempotent: no second event
    rows = await pool.fetch("SELECT * FROM key_material ORDER BY key_id")
    assert all(r["ciphertext"] is None and r["nonce"] is None and r["destroyed_at"] for r in rows)
    after = await pool.fetch("SELECT global_position, hash FROM events ORDER BY 1")
    assert [tuple(r) for r in after[: len(before)]] == [tuple(r) for r in before]
    store = EventStore(pool)
    for target in (key.key_id, kid):
        stream = await store.read_stream(f"key-{target}")
        assert verify_chain(stream) is None
        assert [e.type for e in stream][-1] == "key.material_destroyed"
        assert (await ring.get(target)).material_destroyed_at is not None
    assert len(await store.read_stream(f"key-{kid}")) == 3
    with pytest.raises(KeyMaterialUnavailable) as info:
        await ring.secret_for(kid)
    assert info.value.code == "key_revoked"
    # the resolver still answers for a destroyed key (public key from the log): revoked
    resolver = await ring.resolver(include_secrets=True)
    for target in (key.key_id, kid):
        vk = resolver.resolve(target)
        assert vk is not None and vk.state == "REVOKED"


async def test_material_table_refuses_rewrites(ring: KeyRing, pool: asyncpg.Pool) -> None:
    kid, _ = await ring.create_subscription_secret("sub_1")
    with pytest.raises(asyncpg.InsufficientPrivilegeError):
        await pool.execute(
            "UPDATE key_material SET ciphertext = '\\x00'::bytea WHERE key_id=$1", kid
        )
    with pytest.raises(asyncpg.InsufficientPrivilegeError):
        await pool.execute("DELETE FROM key_material WHERE key_id=$1", kid)
