"""Key material at rest: AES-256-GCM under the master key, associated data = key id.

Where the master key comes from: :mod:`.master` (``HOOKPROOF_MASTER_KEY``, the file of
``HOOKPROOF_MASTER_KEY_FILE``, or ``<data dir>/master.key``). Plaintext material leaves this
module only as objects handed to the signer; it is never logged, put in an event, an error
message or a response.
"""

from __future__ import annotations

import secrets
from datetime import datetime

import asyncpg
from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from hookproof.engine.db.queries import ENGINE_QUERIES

from .errors import KeyMaterialUnavailable, MasterKeyInvalid
from .master import MASTER_KEY_BYTES, MASTER_KEY_FILE, decode_master_key, load_master_key

__all__ = [
    "MASTER_KEY_BYTES",
    "MASTER_KEY_FILE",
    "MaterialBox",
    "decode_master_key",
    "destroy_material",
    "load_master_key",
    "read_material",
    "store_material",
]

SQL = ENGINE_QUERIES.named("key_material_insert", "key_material_select", "key_material_destroy")


class MaterialBox:
    """Encrypt and decrypt key material bound to its key id."""

    def __init__(self, master_key: bytes) -> None:
        if len(master_key) != MASTER_KEY_BYTES:
            raise MasterKeyInvalid(f"the master key must be {MASTER_KEY_BYTES} bytes")
        self._aead = AESGCM(master_key)

    def __repr__(self) -> str:
        return "MaterialBox(<master key hidden>)"

    def seal(self, key_id: str, plaintext: bytes) -> tuple[bytes, bytes]:
        nonce = secrets.token_bytes(12)
        return nonce, self._aead.encrypt(nonce, plaintext, key_id.encode("utf-8"))

    def open(self, key_id: str, nonce: bytes, ciphertext: bytes) -> bytes:
        try:
            return self._aead.decrypt(nonce, ciphertext, key_id.encode("utf-8"))
        except InvalidTag:
            raise KeyMaterialUnavailable(
                f"key {key_id}: material does not decrypt (wrong master key or altered row)",
                code="key_material_undecryptable",
                key_id=key_id,
            ) from None


async def store_material(
    conn: asyncpg.Connection,
    box: MaterialBox,
    key_id: str,
    algorithm: str,
    plaintext: bytes,
    at: datetime,
) -> None:
    nonce, ciphertext = box.seal(key_id, plaintext)
    await conn.execute(SQL["key_material_insert"], key_id, algorithm, nonce, ciphertext, at)


async def read_material(
    conn: asyncpg.Connection | asyncpg.Pool, box: MaterialBox, key_id: str
) -> bytes:
    row = await conn.fetchrow(SQL["key_material_select"], key_id)
    if row is None:
        raise KeyMaterialUnavailable(
            f"key {key_id}: no material stored", code="key_material_missing", key_id=key_id
        )
    if row["destroyed_at"] is not None:
        raise KeyMaterialUnavailable(
            f"key {key_id}: material destroyed", code="key_material_destroyed", key_id=key_id
        )
    return box.open(key_id, bytes(row["nonce"]), bytes(row["ciphertext"]))


async def destroy_material(conn: asyncpg.Connection, key_id: str, at: datetime) -> bool:
    """Erase nonce and ciphertext (one way). False when already destroyed."""
    return await conn.fetchval(SQL["key_material_destroy"], key_id, at) is not None
