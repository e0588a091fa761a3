"""Events of the key ring (``key-<keyId>``): one stream per signing key or shared secret.

A key's whole life is in its stream: creation (algorithm, generation, purpose, the public key
for ed25519), every state transition with its time, the VERIFY_ONLY deadline with the numbers
it was computed from, revocation with a reason, and the destruction of its material. No event
ever carries private key material or a shared secret: those live encrypted in the
``key_material`` table, referenced by key id.
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum

from .catalogue import Event

__all__ = [
    "ED25519",
    "HMAC_SHA256",
    "PURPOSE_ENGINE",
    "PURPOSE_SUBSCRIPTION",
    "KeyActivated",
    "KeyCreated",
    "KeyMaterialDestroyed",
    "KeyRevoked",
    "KeyRolledBack",
    "KeyState",
    "KeySuperseded",
    "RevokeReason",
    "key_id_of",
    "key_stream_id",
]

ED25519 = "ed25519"
HMAC_SHA256 = "hmac-sha256"
PURPOSE_ENGINE = "engine"  # ed25519 keys that sign every delivery and challenge
PURPOSE_SUBSCRIPTION = "subscription"  # hmac-sha256 shared secret of one subscription


class KeyState(StrEnum):
    """Life-cycle state of a key (same names as the JWKS ``state`` member)."""

    NOT_BEFORE = "NOT_BEFORE"
    ACTIVE = "ACTIVE"
    VERIFY_ONLY = "VERIFY_ONLY"
    REVOKED = "REVOKED"


class RevokeReason(StrEnum):
    RETIRED = "retired"  # VERIFY_ONLY window over
    COMPROMISED = "compromised"  # leaked or suspected: revoked at once
    ABANDONED = "abandoned"  # a NOT_BEFORE key withdrawn before use


class KeyCreated(Event, frozen=True, kw_only=True, tag="key.created"):
    """A key exists. ``state`` is NOT_BEFORE (published next key) or ACTIVE (first key)."""

    key_id: str
    algorithm: str  # ed25519 | hmac-sha256
    purpose: str  # engine | subscription
    subscription_id: str | None = None
    generation: int  # monotonic within (purpose, subscription_id)
    state: KeyState
    public_key: str | None = None  # ed25519: base64url of the 32 raw public bytes (public)
    max_message_lifetime_s: int  # no signature under this key may live longer
    created_at: datetime
    activated_at: datetime | None = None  # set when created ACTIVE


class KeyActivated(Event, frozen=True, kw_only=True, tag="key.activated"):
    """NOT_BEFORE -> ACTIVE: signing switches to this key."""

    key_id: str
    at: datetime
    previous_key_id: str | None = None


class KeySuperseded(Event, frozen=True, kw_only=True, tag="key.verify_only"):
    """ACTIVE -> VERIFY_ONLY until ``verify_only_until`` (and the numbers behind it)."""

    key_id: str
    at: datetime
    superseded_by: str | None = None
    verify_only_until: datetime
    max_queue_delay_s: float
    max_retry_window_s: float
    clock_skew_s: float


class KeyRolledBack(Event, frozen=True, kw_only=True, tag="key.rolled_back"):
    """VERIFY_ONLY -> ACTIVE again (rollback to a generation that was never revoked)."""

    key_id: str
    at: datetime
    replaces_key_id: str | None = None


class KeyRevoked(Event, frozen=True, kw_only=True, tag="key.revoked"):
    """Any state -> REVOKED: never used to sign or accepted by a verifier again."""

    key_id: str
    at: datetime
    reason: RevokeReason
    previous_state: KeyState


class KeyMaterialDestroyed(Event, frozen=True, kw_only=True, tag="key.material_destroyed"):
    """The encrypted material of a REVOKED key was erased (crypto-shredding)."""

    key_id: str
    at: datetime


KEY_PREFIX = "key-"


def key_stream_id(key_id: str) -> str:
    """The stream of one key of the ring: ``key-<keyId>``."""
    return f"{KEY_PREFIX}{key_id}"


def key_id_of(stream_id: str) -> str:
    """The key id of a key stream's id (``key-<keyId>``)."""
    return stream_id.removeprefix(KEY_PREFIX)
