"""Where the master key comes from, and its fingerprint.

In order: ``HOOKPROOF_MASTER_KEY`` (base64url of 32 bytes), the file of
``HOOKPROOF_MASTER_KEY_FILE``, else ``<data dir>/master.key``. The data dir is used for the
embedded Postgres (the key then lives beside its database and travels with it) and, for an
external ``HOOKPROOF_DATABASE_URL``, only when ``HOOKPROOF_DATA_DIR`` is set: the working
directory is never where an external database's key is looked for or created. A file that does
not exist yet is created (0600) only by :func:`save_master_key`, after the database's check
value accepted the new key (``master_check``). Every path is absolute, so what is stated at
start-up does not depend on the folder the command was started from.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import os
import secrets
import stat
from dataclasses import dataclass, field
from pathlib import Path

import structlog

from hookproof.config import Settings

from .errors import MasterKeyInvalid, MasterKeyUnset

__all__ = [
    "MASTER_KEY_BYTES",
    "MASTER_KEY_FILE",
    "MasterKey",
    "decode_master_key",
    "fingerprint",
    "load_master_key",
    "locate_master_key",
    "save_master_key",
]

log = structlog.get_logger("hookproof.keys")

MASTER_KEY_BYTES = 32
MASTER_KEY_FILE = "master.key"
_FINGERPRINT_LABEL = b"hookproof.master-key.fingerprint.v1"


def fingerprint(key: bytes) -> str:
    """``mk_`` and 16 hex digits: a keyed digest naming the key (it reveals nothing of it)."""
    return "mk_" + hmac.new(key, _FINGERPRINT_LABEL, hashlib.sha256).hexdigest()[:16]


@dataclass(frozen=True)
class MasterKey:
    """A located master key: the key, where it was found, and the file to create (a new key
    that exists in memory only until :func:`save_master_key`)."""

    key: bytes = field(repr=False)
    where: str
    pending_file: Path | None = None

    @property
    def fingerprint(self) -> str:
        return fingerprint(self.key)

    def describe(self) -> str:
        """One line for the operator: which key, from where."""
        new = " (new: created on first use)" if self.pending_file is not None else ""
        return f"master key {self.fingerprint} from {self.where}{new}"


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


def _key_file(settings: Settings) -> tuple[Path, str]:
    """The key file to use and the setting that named it."""
    if settings.master_key_file is not None:
        return settings.master_key_file.absolute(), "HOOKPROOF_MASTER_KEY_FILE"
    if settings.database_url and settings.data_dir_default:
        stray = (settings.data_dir / MASTER_KEY_FILE).absolute()
        hint = (
            f"; a key file exists at {stray}: if it is this database's key, set"
            f" HOOKPROOF_MASTER_KEY_FILE={stray}"
            if stray.exists()
            else ""
        )
        raise MasterKeyUnset(
            "HOOKPROOF_DATABASE_URL names an external Postgres and no master key is set: set"
            " HOOKPROOF_MASTER_KEY (base64url of 32 random bytes), HOOKPROOF_MASTER_KEY_FILE (a"
            " file holding it) or HOOKPROOF_DATA_DIR (its master.key); the working directory is"
            f" never used{hint}",
            field="HOOKPROOF_MASTER_KEY",
        )
    return (settings.data_dir / MASTER_KEY_FILE).absolute(), "HOOKPROOF_DATA_DIR"


def locate_master_key(settings: Settings) -> MasterKey:
    """The configured master key, read but never written: a key file that does not exist yet
    yields a fresh key with ``pending_file`` set."""
    if settings.master_key_b64:
        key = decode_master_key(settings.master_key_b64, source="HOOKPROOF_MASTER_KEY")
        return MasterKey(key, "HOOKPROOF_MASTER_KEY")
    path, setting = _key_file(settings)
    where = f"{path} ({setting})"
    if not path.exists():
        return MasterKey(secrets.token_bytes(MASTER_KEY_BYTES), where, pending_file=path)
    mode = stat.S_IMODE(path.stat().st_mode)
    if mode & 0o077:
        raise MasterKeyInvalid(
            f"{path}: the master key file must not be readable by group or others "
            f"(mode {mode:o}; chmod 600)",
            code="master_key_file_insecure",
        )
    return MasterKey(decode_master_key(path.read_text(encoding="ascii"), source=str(path)), where)


def save_master_key(located: MasterKey) -> MasterKey:
    """Create the pending key file (0600, exclusive). Another process that created it first
    wins: its key is read and returned instead."""
    path = located.pending_file
    if path is None:
        return located
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    text = base64.urlsafe_b64encode(located.key).rstrip(b"=")
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:  # another process created it first: read theirs
        key = decode_master_key(path.read_text(encoding="ascii"), source=str(path))
        return MasterKey(key, located.where)
    with os.fdopen(fd, "wb") as fh:
        fh.write(text + b"\n")
        fh.flush()
        os.fsync(fh.fileno())
    log.info("master_key_created", path=str(path), fingerprint=located.fingerprint)
    return MasterKey(located.key, located.where)


def load_master_key(settings: Settings) -> bytes:
    """The master key of ``settings``, its file created if it does not exist yet."""
    return save_master_key(locate_master_key(settings)).key
