"""Endpoint credentials at rest: sealed under the master key (AES-GCM, associated data = the
material id) in ``endpoint_auth_material``, referenced from the subscription's events by an
:class:`~hookproof.events.subscription_events.EndpointAuthRef` (the id and a keyed digest).

Rows are immutable: a new ``auth`` is a new row, so an opened credential is memoised per
material id for as long as the worker keeps it.
"""

from __future__ import annotations

import secrets
from typing import Final

import asyncpg

from hookproof.config import Settings
from hookproof.errors import HookproofError
from hookproof.events.subscription_events import EndpointAuthRef

from ..common.memo import BoundedMemo
from ..db.queries import ENGINE_QUERIES
from ..keys.material import MaterialBox, load_master_key
from .spec import AuthSecret, auth_digest, auth_digest_key, certificate_of

__all__ = ["AuthMaterialUnavailable", "AuthMaterials"]

SQL = ENGINE_QUERIES.named("endpoint_auth_insert", "endpoint_auth_select")

#: opened credentials kept per worker (a few KiB each at most)
_MEMO: Final = 2_048


class AuthMaterialUnavailable(HookproofError):
    """The sealed credential is missing or does not decrypt (wrong master key, altered row)."""

    code = "auth_material_unavailable"
    status = 500
    title = "Endpoint credential unavailable"


class AuthMaterials:
    """Seals new credentials and opens stored ones."""

    def __init__(self, pool: asyncpg.Pool, box: MaterialBox, digest_key: bytes) -> None:
        self.pool = pool
        self._box = box
        self._digest_key = digest_key
        self._opened: BoundedMemo[str, AuthSecret] = BoundedMemo(_MEMO)

    @classmethod
    def from_settings(cls, pool: asyncpg.Pool, settings: Settings) -> AuthMaterials:
        """Under the master key of ``settings`` (``HOOKPROOF_MASTER_KEY`` or the key file)."""
        master = load_master_key(settings)
        return cls(pool, MaterialBox(master), auth_digest_key(master))

    def __repr__(self) -> str:
        return "AuthMaterials(<sealed>)"

    async def seal(
        self, conn: asyncpg.Connection, subscription_id: str, secret: AuthSecret
    ) -> EndpointAuthRef:
        """Store ``secret`` (in the caller's transaction); the reference its events carry."""
        material_id = "eam_" + secrets.token_hex(12)
        nonce, ciphertext = self._box.seal(material_id, secret.encode())
        await conn.execute(
            SQL["endpoint_auth_insert"],
            material_id,
            subscription_id,
            secret.type,
            nonce,
            ciphertext,
        )
        return EndpointAuthRef(
            type=secret.type,
            digest=auth_digest(secret, self._digest_key),
            material_id=material_id,
            name=secret.name,
            token_url=secret.token_url,
            client_id=secret.client_id,
            certificate_sha256=certificate_of(secret),
        )

    async def open(self, subscription_id: str, ref: EndpointAuthRef) -> AuthSecret:
        """The credential ``ref`` names (memoised per material id)."""
        secret = self._opened.get(ref.material_id)
        if secret is not None:
            return secret
        row = await self.pool.fetchrow(
            SQL["endpoint_auth_select"], ref.material_id, subscription_id
        )
        if row is None:
            raise AuthMaterialUnavailable(
                "the endpoint credential is not stored", material_id=ref.material_id
            )
        try:
            raw = self._box.open(ref.material_id, bytes(row["nonce"]), bytes(row["ciphertext"]))
        except HookproofError:
            raise AuthMaterialUnavailable(
                "the endpoint credential does not decrypt", material_id=ref.material_id
            ) from None
        secret = AuthSecret.decode(raw)
        self._opened.put(ref.material_id, secret)
        return secret
