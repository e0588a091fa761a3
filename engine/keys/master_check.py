"""The database's check value of the master key: a key that does not open it is refused.

The first master key to use a database records its fingerprint and a constant sealed under it
(``master_key_check``, migration 1013). Before anything is written, every command that opens
sealed material opens the check value (:func:`verify_master_key`, read only): another key is
refused with :class:`MasterKeyMismatch` naming the expected fingerprint and where the key was
looked for, and no key file is created. A database from before the check value has none: its
newest sealed rows are opened instead, then (after the migrations) :func:`record_master_key`
saves a new key's file and records the check value. :func:`master_key_problem` is what
``/readyz`` asks.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import asyncpg
import structlog

from hookproof.engine.db.queries import ENGINE_QUERIES

from .errors import KeyMaterialUnavailable, MasterKeyMismatch
from .master import MasterKey, fingerprint, save_master_key
from .material import MaterialBox

__all__ = [
    "CHECK_ID",
    "CHECK_PLAINTEXT",
    "Verdict",
    "judge",
    "master_key_problem",
    "record_master_key",
    "verify_master_key",
]

log = structlog.get_logger("hookproof.keys")

SQL = ENGINE_QUERIES.named(
    "master_key_tables",
    "master_key_check_select",
    "master_key_check_insert",
    "master_key_sample_key_material",
    "master_key_sample_destination_credentials",
    "master_key_sample_endpoint_auth",
)

#: associated data and plaintext of the check value
CHECK_ID = "master_key_check"
CHECK_PLAINTEXT = b"hookproof master key check v1"
#: the sealed tables sampled when no check value exists yet, and their queries
_SAMPLES = (
    ("key_material", "master_key_sample_key_material"),
    ("destination_credentials", "master_key_sample_destination_credentials"),
    ("endpoint_auth_material", "master_key_sample_endpoint_auth"),
)


@dataclass(frozen=True)
class Verdict:
    """What the key may do: ``refused`` names what it did not open (None: accepted);
    ``record``: no check value exists yet, the key's is to be written."""

    refused: str | None
    record: bool


def judge(check_opens: bool | None, samples: Sequence[tuple[str, bool]]) -> Verdict:
    """Pure: ``check_opens`` (None: no check value recorded) and, without one, whether each
    sampled sealed row opens."""
    if check_opens is not None:
        return Verdict(None if check_opens else "the check value", record=False)
    failed = [what for what, opens in samples if not opens]
    return Verdict(failed[0] if failed else None, record=not failed)


def _opens(box: MaterialBox, sealed_id: str, row: Any) -> bool:
    try:
        box.open(sealed_id, bytes(row["nonce"]), bytes(row["ciphertext"]))
    except KeyMaterialUnavailable:
        return False
    return True


async def verify_master_key(conn: asyncpg.Connection, master: MasterKey) -> bool:
    """Read only: raise :class:`MasterKeyMismatch` unless ``master`` opens the database's
    sealed material; True when its check value is still to be recorded."""
    box = MaterialBox(master.key)
    tables = await conn.fetchrow(SQL["master_key_tables"])
    check = None
    if tables["master_key_check"]:
        check = await conn.fetchrow(SQL["master_key_check_select"])
    samples: list[tuple[str, bool]] = []
    if check is None:
        for table, query in _SAMPLES:
            row = await conn.fetchrow(SQL[query]) if tables[table] else None
            if row is not None:
                samples.append((f"{table} {row['sealed_id']}", _opens(box, row["sealed_id"], row)))
    verdict = judge(None if check is None else _opens(box, CHECK_ID, check), samples)
    if verdict.refused is not None:
        expected = (
            f"the key with fingerprint {check['fingerprint']} (recorded"
            f" {check['created_at']:%Y-%m-%d %H:%M:%S %Z})"
            if check is not None
            else f"the key that sealed {verdict.refused} (no check value recorded yet)"
        )
        log.error(
            "master_key_mismatch",
            fingerprint=master.fingerprint,
            expected=None if check is None else check["fingerprint"],
            where=master.where,
        )
        raise MasterKeyMismatch(
            f"the {master.describe()} does not open this database's sealed material; expected"
            f" {expected}: set HOOKPROOF_MASTER_KEY or HOOKPROOF_MASTER_KEY_FILE to that key"
            " (nothing was written)",
            field="HOOKPROOF_MASTER_KEY",
        )
    return verdict.record


async def record_master_key(conn: asyncpg.Connection, master: MasterKey) -> MasterKey:
    """Save a new key's file, record its check value (first key wins), and verify again: a
    concurrent first start with another key is refused here, and the key file it had just
    created is removed (no second key left behind). The key in use is returned."""
    saved = save_master_key(master)
    created = master.pending_file if saved.key == master.key else None
    nonce, ciphertext = MaterialBox(saved.key).seal(CHECK_ID, CHECK_PLAINTEXT)
    await conn.execute(SQL["master_key_check_insert"], saved.fingerprint, nonce, ciphertext)
    try:
        await verify_master_key(conn, saved)
    except MasterKeyMismatch:
        if created is not None:
            created.unlink(missing_ok=True)
        raise
    log.info("master_key_check_recorded", fingerprint=saved.fingerprint)
    return saved


async def master_key_problem(pool: asyncpg.Pool, key: bytes) -> str | None:
    """For ``/readyz``: a reason code while ``key`` cannot open the check value or the newest
    engine signing key (None: both open, or nothing is sealed yet)."""
    box = MaterialBox(key)
    async with pool.acquire() as conn:
        check = await conn.fetchrow(SQL["master_key_check_select"])
        engine_key = await conn.fetchrow(SQL["master_key_sample_key_material"])
    if check is not None and (
        check["fingerprint"] != fingerprint(key) or not _opens(box, CHECK_ID, check)
    ):
        return "master_key_mismatch"
    if engine_key is not None and not _opens(box, engine_key["sealed_id"], engine_key):
        return "key_material_undecryptable"
    return None
