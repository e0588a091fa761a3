"""The public JWKS at ``GET /.well-known/hookproof/jwks.json`` (served by
``engine/api/jwks.py``): no auth, cacheable.

Published: ed25519 engine keys in NOT_BEFORE (so subscribers learn the next key before it
signs), ACTIVE and VERIFY_ONLY. Each entry is an OKP JWK (RFC 8037) plus the members the
subscriber SDK reads: ``state``, ``nbf`` (epoch seconds it became ACTIVE), ``exp`` (epoch
seconds the VERIFY_ONLY window ends) and ``keyGeneration``. REVOKED keys are left out (the
verifier then says ``unknown_key``; the engine's own resolver says ``revoked_key``).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from hookproof.events.key_events import ED25519, PURPOSE_ENGINE, KeyState
from hookproof.projections.key_ring import KeyView

__all__ = ["CACHE_CONTROL", "JWKS_PATH", "build_jwks", "jwk_of"]

JWKS_PATH = "/.well-known/hookproof/jwks.json"
# Short: a rotation publishes the next key as NOT_BEFORE well before promoting it, and a
# compromise must reach verifiers quickly.
CACHE_CONTROL = "public, max-age=60, must-revalidate"
_PUBLISHED = (KeyState.NOT_BEFORE, KeyState.ACTIVE, KeyState.VERIFY_ONLY)


def jwk_of(view: KeyView) -> dict[str, Any]:
    assert view.public_key is not None
    jwk: dict[str, Any] = {
        "kty": "OKP",
        "crv": "Ed25519",
        "x": view.public_key,
        "kid": view.key_id,
        "alg": "EdDSA",
        "use": "sig",
        "state": str(view.state),
        "keyGeneration": view.generation,
        "maxMessageLifetime": view.max_message_lifetime_s,
    }
    if view.activated_at is not None and view.state is not KeyState.NOT_BEFORE:
        jwk["nbf"] = int(view.activated_at.timestamp())
    if view.state is KeyState.VERIFY_ONLY and view.verify_only_until is not None:
        jwk["exp"] = int(view.verify_only_until.timestamp())
    return jwk


def build_jwks(views: Iterable[KeyView]) -> dict[str, Any]:
    """``{"keys": [...]}``, newest generation first. Public data only."""
    published = [
        v
        for v in views
        if v.purpose == PURPOSE_ENGINE
        and v.algorithm == ED25519
        and v.state in _PUBLISHED
        and v.public_key is not None
    ]
    published.sort(key=lambda v: v.generation, reverse=True)
    return {"keys": [jwk_of(v) for v in published]}
