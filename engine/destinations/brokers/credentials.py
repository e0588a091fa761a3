"""Broker credentials at rest: sealed under the master key, referenced by id, bound by digest.

The plaintext (``BrokerCredentials``) is sealed with the key material's AEAD
(:class:`..keys.material.MaterialBox`, associated data = the credentials id) into
``destination_credentials``; a subscription's ``destination`` holds only the id and the keyed
digest (:func:`.spec.credentials_digest`). Opened only by a publisher about to connect.
"""

from __future__ import annotations

import secrets
from typing import Final

import asyncpg
import msgspec

from ...keys.errors import KeyMaterialUnavailable
from ...keys.material import MaterialBox
from .repository import CredentialsRepository
from .spec import BrokerCredentials, credentials_digest, digest_key

__all__ = ["CREDENTIALS_ID_PREFIX", "DestinationCredentials"]

CREDENTIALS_ID_PREFIX: Final = "dcr_"


class _Sealed(msgspec.Struct, omit_defaults=True):
    username: str | None = None
    password: str | None = None
    token: str | None = None
    creds: str | None = None


class DestinationCredentials:
    """Seal, digest and open broker credentials (one per engine)."""

    def __init__(self, pool: asyncpg.Pool, master_key: bytes) -> None:
        self.rows = CredentialsRepository(pool)
        self._box = MaterialBox(master_key)
        self._digest_key = digest_key(master_key)

    def __repr__(self) -> str:
        return "DestinationCredentials(<master key hidden>)"

    def digest(self, credentials: BrokerCredentials | None) -> str | None:
        """The keyed digest (a bound field; what events and logs may carry)."""
        return credentials_digest(credentials, self._digest_key)

    async def seal(self, subscription_id: str, credentials: BrokerCredentials) -> str:
        """Store *credentials* sealed; return their id."""
        credentials_id = CREDENTIALS_ID_PREFIX + secrets.token_hex(12)
        plaintext = msgspec.json.encode(
            _Sealed(
                username=credentials.username,
                password=credentials.password,
                token=credentials.token,
                creds=credentials.creds,
            )
        )
        nonce, ciphertext = self._box.seal(credentials_id, plaintext)
        await self.rows.insert(credentials_id, subscription_id, nonce, ciphertext)
        return credentials_id

    async def open(self, credentials_id: str) -> BrokerCredentials:
        """The plaintext credentials of *credentials_id* (KeyMaterialUnavailable if none)."""
        sealed = await self.rows.sealed(credentials_id)
        if sealed is None:
            raise KeyMaterialUnavailable(
                f"credentials {credentials_id}: not stored", code="credentials_missing"
            )
        raw = self._box.open(credentials_id, *sealed)
        doc = msgspec.json.decode(raw, type=_Sealed)
        return BrokerCredentials(
            username=doc.username, password=doc.password, token=doc.token, creds=doc.creds
        )
