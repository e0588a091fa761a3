"""Key material at rest: AES-256-GCM under the master key, associated data = key id.

The master key is ``HOOKPROOF_MASTER_KEY`` (base64url of 32 bytes) or, when unset, the file
``<data_dir>/master.key`` created with mode 0600 on first use. Plaintext material leaves this
module only as objects handed to the signer; it is never logged, put in an event, an error
message or a response.
"""

from __future__ import annotations

import base64
import binascii
import os
import secrets
import stat
from datetime import datetime
from pathlib import Path

import asyncpg
import structlog
from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from hookproof.config import Settings
from hookproof.engine.db.queries import ENGINE_QUERIES

from .errors import KeyMaterialUnavailable, MasterKeyInvalid

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

log = structlog.get_logger("hookproof.keys")

MASTER_KEY_BYTES = 32
MASTER_KEY_FILE = "master.key"

SQL = ENGINE_QUERIES.named("key_material_insert", "key_material_select", "key_material_destroy")


def decode_master_key(text: str, *, source: str) -> bytes:
    """base64url (padding optional) of exactly 32 bytes, else MasterKeyInvalid."""
    cleaned = text.strip()
    try:
        raw = base64.urlsafe_b64decode(cleaned + "=" * (-len(cleaned) % 4))
        if not cleaned or base64.urlsafe_b64encode(raw).rstrip(b"=").decode() != cleaned.rstrip(
            "="
        ):
            raise ValueError("not canonical base64url")
    except (binascii.Error, ValueError) as exc:
        raise MasterKeyInvalid(f"{source}: the master key is not base64url") from exc
    if len(raw) != MASTER_KEY_BYTES:
        raise MasterKeyInvalid(
            f"{source}: the master key must be {MASTER_KEY_BYTES} bytes, got {len(raw)}"
        )
    return raw


def load_master_key(settings: Settings) -> bytes:
    """The master key from the settings, else from (or into) ``<data_dir>/master.key``."""
    if settings.master_key_b64:
        return decode_master_key(settings.master_key_b64, source="HOOKPROOF_MASTER_KEY")
    path = Path(settings.data_dir) / MASTER_KEY_FILE
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        text = base64.urlsafe_b64encode(secrets.token_bytes(MASTER_KEY_BYTES)).rstrip(b"=")
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            pass  # another process created it first: read theirs
        else:
            with os.fdopen(fd, "wb") as fh:
                fh.write(text + b"\n")
                fh.flush()
                os.fsync(fh.fileno())
            log.info("master_key_created", path=str(path))
    mode = stat.S_IMODE(path.stat().st_mode)
    if mode & 0o077:
        raise MasterKeyInvalid(
            f"{path}: the master key file must not be readable by group or others "
            f"(mode {mode:o}; chmod 600)",
            code="master_key_file_insecure",
        )
    return decode_master_key(path.read_text(encoding="ascii"), source=str(path))


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
