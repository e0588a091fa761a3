"""Signing and verification keys, key states, resolvers and JWK conversion."""

from __future__ import annotations

import base64
import binascii
import secrets
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Protocol, runtime_checkable

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

__all__ = [
    "ALGORITHMS",
    "ED25519",
    "HMAC_SHA256",
    "MIN_HMAC_SECRET_BYTES",
    "MIN_IMPORTED_SECRET_BYTES",
    "KeyResolver",
    "KeyState",
    "SharedSecretResolver",
    "SigningKey",
    "StaticKeyResolver",
    "VerificationKey",
    "b64url_decode",
    "b64url_encode",
    "decode_base64_secret",
    "decode_shared_secret",
    "jwk_to_verification_key",
    "public_jwk",
]

ED25519 = "ed25519"
HMAC_SHA256 = "hmac-sha256"
ALGORITHMS = frozenset({ED25519, HMAC_SHA256})
MIN_HMAC_SECRET_BYTES = 32
#: Shortest key a key object holds: Standard Webhooks secrets imported from other platforms
#: are commonly 24 bytes (``whsec_`` + 32 base64 characters); hookproof issues 32.
MIN_IMPORTED_SECRET_BYTES = 24


class KeyState(StrEnum):
    """Life-cycle state of a key, as published in the JWKS ``state`` member."""

    NOT_BEFORE = "NOT_BEFORE"
    ACTIVE = "ACTIVE"
    VERIFY_ONLY = "VERIFY_ONLY"
    REVOKED = "REVOKED"


def b64url_encode(data: bytes) -> str:
    """base64url without padding."""
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def b64url_decode(text: str) -> bytes:
    """Strict base64url decode (padding optional, alphabet enforced, canonical bits)."""
    if not isinstance(text, str) or not text.isascii():
        raise ValueError("base64url value must be an ASCII string")
    padded = text + "=" * (-len(text) % 4)
    try:
        raw = base64.b64decode(padded, altchars=b"-_", validate=True)
    except binascii.Error as exc:
        raise ValueError("invalid base64url") from exc
    if b64url_encode(raw) != text.rstrip("="):
        raise ValueError("non-canonical base64url")
    return raw


def decode_base64_secret(text: str, minimum: int, *, what: str, form: str) -> bytes:
    """The bytes of a secret in strict standard base64, at least ``minimum`` of them; a
    ``ValueError`` naming ``what`` (and the expected ``form``) otherwise."""
    try:
        raw = base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError) as exc:
        raise ValueError(f"{what} must be {form}") from exc
    if len(raw) < minimum:
        raise ValueError(f"{what} must decode to at least {minimum} bytes")
    return raw


def decode_shared_secret(secret_b64: str) -> bytes:
    """Decode a shared secret given as standard base64 (the HMAC key is the decoded bytes)."""
    return decode_base64_secret(
        secret_b64, MIN_HMAC_SECRET_BYTES, what="shared secret", form="standard base64"
    )


def _check_material(
    alg: str, ed25519_key: object, ed25519_type: type, secret: bytes | None, role: str
) -> None:
    """A ``ValueError`` unless the key's material fits its algorithm: an ``ed25519_type``
    instance for ed25519, a secret of at least ``MIN_IMPORTED_SECRET_BYTES`` for hmac-sha256."""
    if alg == ED25519:
        if not isinstance(ed25519_key, ed25519_type):
            raise ValueError(f"ed25519 {role} key needs an {ed25519_type.__name__}")
    elif alg == HMAC_SHA256:
        if not isinstance(secret, bytes) or len(secret) < MIN_IMPORTED_SECRET_BYTES:
            raise ValueError(f"hmac-sha256 secret must be >= {MIN_IMPORTED_SECRET_BYTES} bytes")
    else:
        raise ValueError(f"unsupported algorithm {alg!r}")


@dataclass(frozen=True, slots=True)
class SigningKey:
    """A key id, its algorithm and the private material (never shown in ``repr``)."""

    key_id: str
    alg: str
    private_key: Ed25519PrivateKey | None = field(default=None, repr=False)
    secret: bytes | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        if not isinstance(self.key_id, str) or not self.key_id:
            raise ValueError("key_id must be a non-empty string")
        _check_material(self.alg, self.private_key, Ed25519PrivateKey, self.secret, "signing")

    @classmethod
    def ed25519(cls, key_id: str, private_key: Ed25519PrivateKey) -> SigningKey:
        return cls(key_id, ED25519, private_key=private_key)

    @classmethod
    def generate_ed25519(cls, key_id: str | None = None) -> SigningKey:
        """A fresh random Ed25519 key (key id random when not given)."""
        return cls(key_id or secrets.token_urlsafe(12), ED25519, Ed25519PrivateKey.generate())

    @classmethod
    def ed25519_from_pem(cls, key_id: str, pem: bytes) -> SigningKey:
        key = serialization.load_pem_private_key(pem, password=None)
        if not isinstance(key, Ed25519PrivateKey):
            raise ValueError("PEM is not an Ed25519 private key")
        return cls(key_id, ED25519, private_key=key)

    @classmethod
    def hmac(cls, key_id: str, secret: bytes | str) -> SigningKey:
        """*secret* as raw bytes, or as standard base64 text (decoded)."""
        raw = decode_shared_secret(secret) if isinstance(secret, str) else secret
        return cls(key_id, HMAC_SHA256, secret=raw)

    def verification_key(self, **kwargs: Any) -> VerificationKey:
        """The matching VerificationKey (state and validity via keyword arguments)."""
        if self.alg == ED25519:
            assert self.private_key is not None
            return VerificationKey(
                self.key_id, ED25519, public_key=self.private_key.public_key(), **kwargs
            )
        return VerificationKey(self.key_id, HMAC_SHA256, secret=self.secret, **kwargs)


@dataclass(frozen=True, slots=True)
class VerificationKey:
    """What a verifier needs: algorithm, public key or secret, state and validity window."""

    key_id: str
    alg: str
    public_key: Ed25519PublicKey | None = field(default=None, repr=False)
    secret: bytes | None = field(default=None, repr=False)
    state: KeyState = KeyState.ACTIVE
    not_before: int | None = None
    not_after: int | None = None
    generation: int | None = None

    def __post_init__(self) -> None:
        _check_material(self.alg, self.public_key, Ed25519PublicKey, self.secret, "verification")
        object.__setattr__(self, "state", KeyState(self.state))

    @classmethod
    def ed25519(
        cls, key_id: str, public_key: Ed25519PublicKey | bytes, **kwargs: Any
    ) -> VerificationKey:
        if isinstance(public_key, bytes):
            public_key = Ed25519PublicKey.from_public_bytes(public_key)
        return cls(key_id, ED25519, public_key=public_key, **kwargs)

    @classmethod
    def ed25519_from_pem(cls, key_id: str, pem: bytes, **kwargs: Any) -> VerificationKey:
        key = serialization.load_pem_public_key(pem)
        if not isinstance(key, Ed25519PublicKey):
            raise ValueError("PEM is not an Ed25519 public key")
        return cls(key_id, ED25519, public_key=key, **kwargs)

    @classmethod
    def hmac(cls, key_id: str, secret: bytes | str, **kwargs: Any) -> VerificationKey:
        raw = decode_shared_secret(secret) if isinstance(secret, str) else secret
        return cls(key_id, HMAC_SHA256, secret=raw, **kwargs)


@runtime_checkable
class KeyResolver(Protocol):
    """Maps a ``keyid`` to a VerificationKey, or None when unknown."""

    def resolve(self, key_id: str) -> VerificationKey | None: ...


class StaticKeyResolver:
    """A fixed set of verification keys."""

    def __init__(self, keys: Iterable[VerificationKey] = ()) -> None:
        self._keys: dict[str, VerificationKey] = {k.key_id: k for k in keys}

    def add(self, key: VerificationKey) -> None:
        self._keys[key.key_id] = key

    def remove(self, key_id: str) -> None:
        self._keys.pop(key_id, None)

    def resolve(self, key_id: str) -> VerificationKey | None:
        return self._keys.get(key_id)

    @property
    def key_ids(self) -> list[str]:
        return sorted(self._keys)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(key_ids={sorted(self._keys)!r})"


class SharedSecretResolver(StaticKeyResolver):
    """HMAC secrets by key id, given as standard base64 text or raw bytes."""

    def __init__(self, secrets_by_key_id: Mapping[str, bytes | str] | None = None) -> None:
        items = (secrets_by_key_id or {}).items()
        super().__init__(VerificationKey.hmac(kid, s) for kid, s in items)


def _numeric_date(value: Any, name: str) -> int | None:
    if value is None:
        return None
    if type(value) is not int:
        raise ValueError(f"JWK member {name!r} must be an integer (epoch seconds)")
    return value


def jwk_to_verification_key(jwk: Mapping[str, Any]) -> VerificationKey:
    """Convert one JWKS entry (OKP Ed25519 with ``kid``, optional ``state``/``nbf``/``exp``)."""
    if jwk.get("kty") != "OKP" or jwk.get("crv") != "Ed25519":
        raise ValueError("only OKP Ed25519 JWKs are supported")
    kid = jwk.get("kid")
    if not isinstance(kid, str) or not kid:
        raise ValueError("JWK needs a string kid")
    if "d" in jwk:
        raise ValueError("refusing a JWK that carries private material")
    x = b64url_decode(jwk.get("x", ""))
    if len(x) != 32:
        raise ValueError("Ed25519 public key must be 32 bytes")
    generation = jwk.get("generation", jwk.get("keyGeneration"))
    return VerificationKey(
        kid,
        ED25519,
        public_key=Ed25519PublicKey.from_public_bytes(x),
        state=KeyState(jwk.get("state", KeyState.ACTIVE)),
        not_before=_numeric_date(jwk.get("nbf"), "nbf"),
        not_after=_numeric_date(jwk.get("exp"), "exp"),
        generation=generation if type(generation) is int else None,
    )


def public_jwk(
    key: SigningKey | VerificationKey | Ed25519PublicKey, kid: str | None = None
) -> dict[str, Any]:
    """The public OKP JWK of an Ed25519 key (``kid`` from the key unless given)."""
    if isinstance(key, SigningKey):
        if key.private_key is None:
            raise ValueError("not an Ed25519 key")
        pub = key.private_key.public_key()
        kid = kid or key.key_id
    elif isinstance(key, VerificationKey):
        if key.public_key is None:
            raise ValueError("not an Ed25519 key")
        pub = key.public_key
        kid = kid or key.key_id
    else:
        pub = key
    raw = pub.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    jwk: dict[str, Any] = {"kty": "OKP", "crv": "Ed25519", "x": b64url_encode(raw)}
    if kid:
        jwk["kid"] = kid
    return jwk
