"""The ``standard-webhooks.v1`` signature profile (the Standard Webhooks specification).

Headers ``webhook-id``, ``webhook-timestamp`` (Unix seconds) and ``webhook-signature``: a
space-separated list of ``v1,<base64 HMAC-SHA256>`` (symmetric) or ``v1a,<base64 Ed25519>``
(asymmetric) signatures over ``"{webhook-id}.{webhook-timestamp}.{body}"``. Shared secrets
are written ``whsec_<standard base64 of the key bytes>``.

``sign_standard`` builds the three headers; ``verify_standard`` checks them against the keys
a subscriber holds and answers with the same ``VerifyResult`` / reason codes as
``hookproof.sig.v1`` (it never raises).
"""

from __future__ import annotations

import base64
import binascii
import time
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from .digest import content_digest
from .freshness import Freshness
from .keys import (
    ED25519,
    HMAC_SHA256,
    MIN_IMPORTED_SECRET_BYTES,
    KeyState,
    SigningKey,
    VerificationKey,
    decode_base64_secret,
)
from .rfc9421 import normalize_headers, sign_bytes, verify_bytes
from .sigv1 import NonceCache, Reason, VerifyResult

__all__ = [
    "STANDARD_WEBHOOKS_V1",
    "WHSEC_PREFIX",
    "candidate_keys",
    "decode_whsec",
    "encode_whsec",
    "sign_standard",
    "signed_content",
    "verify_standard",
]

STANDARD_WEBHOOKS_V1 = "standard-webhooks.v1"
WHSEC_PREFIX = "whsec_"
TOLERANCE_S = 300  # the reference libraries' window: five minutes either way
_SKEW = 60  # a broker message's clock skew, as hookproof.sig.v1's
_MAX_ID = 256
_MAX_SIGNATURES = 16


def encode_whsec(secret: bytes) -> str:
    """``whsec_`` + standard base64 of the key bytes."""
    return WHSEC_PREFIX + base64.b64encode(secret).decode("ascii")


def decode_whsec(text: str) -> bytes:
    """The key bytes of a ``whsec_...`` secret (the prefix is optional, as in the spec)."""
    if not isinstance(text, str) or not text.isascii():
        raise ValueError("secret must be ASCII text")
    body = text[len(WHSEC_PREFIX) :] if text.startswith(WHSEC_PREFIX) else text
    return decode_base64_secret(
        body, MIN_IMPORTED_SECRET_BYTES, what="secret", form="whsec_ followed by standard base64"
    )


def signed_content(msg_id: str, timestamp: int | str, body: bytes) -> bytes:
    """The exact bytes signed: ``{id}.{timestamp}.{body}``."""
    return f"{msg_id}.{timestamp}.".encode() + bytes(body)


#: the Standard Webhooks signature version of each algorithm (``v1,<base64>``, ``v1a,...``)
_VERSION = {HMAC_SHA256: "v1", ED25519: "v1a"}


def _sign_one(key: SigningKey, content: bytes) -> str:
    return f"{_VERSION[key.alg]},{base64.b64encode(sign_bytes(key, content)).decode('ascii')}"


def sign_standard(
    msg_id: str,
    body: bytes,
    keys: SigningKey | Sequence[SigningKey],
    *,
    timestamp: int | None = None,
) -> dict[str, str]:
    """The ``webhook-id``, ``webhook-timestamp`` and ``webhook-signature`` headers.

    Several keys (e.g. a key rollout's current and target key) give several
    space-separated signatures; a verifier accepts the request when one of them verifies.
    """
    if not msg_id or not msg_id.isascii() or " " in msg_id or "." in msg_id:
        raise ValueError("webhook-id must be ASCII without spaces or dots")
    ts = int(time.time()) if timestamp is None else int(timestamp)
    content = signed_content(msg_id, ts, body)
    seq = [keys] if isinstance(keys, SigningKey) else list(keys)
    if not seq:
        raise ValueError("at least one key is needed")
    return {
        "webhook-id": msg_id,
        "webhook-timestamp": str(ts),
        "webhook-signature": " ".join(_sign_one(k, content) for k in seq),
    }


def candidate_keys(keys: Any) -> list[VerificationKey]:
    """Every VerificationKey a resolver, mapping or iterable holds (the spec has no key id)."""
    if isinstance(keys, VerificationKey):
        return [keys]
    if isinstance(keys, Mapping):
        return [k for k in keys.values() if isinstance(k, VerificationKey)]
    ids = getattr(keys, "key_ids", None)
    if ids is not None and hasattr(keys, "resolve"):
        found = (keys.resolve(kid) for kid in (ids() if callable(ids) else ids))
        return [k for k in found if isinstance(k, VerificationKey)]
    if isinstance(keys, Iterable):
        return [k for k in keys if isinstance(k, VerificationKey)]
    return []


def _fail(reason: Reason, detail: str, **kw: Any) -> VerifyResult:
    return VerifyResult(ok=False, reason=reason, detail=detail, **kw)


def _usable(key: VerificationKey, now: int, skew: int, accept_not_before: bool) -> Reason | None:
    if key.state is KeyState.REVOKED:
        return Reason.REVOKED_KEY
    if not accept_not_before and (
        key.state is KeyState.NOT_BEFORE
        or (key.not_before is not None and key.not_before > now + skew)
    ):
        return Reason.KEY_NOT_YET_VALID
    if key.not_after is not None and key.not_after < now - skew:
        return Reason.EXPIRED
    return None


def _matches(key: VerificationKey, version: str, sig: bytes, content: bytes) -> bool:
    return _VERSION.get(key.alg) == version and verify_bytes(key, content, sig)


def verify_standard(
    headers: Any,
    body: bytes,
    *,
    keys: Any,
    now: int | None = None,
    tolerance: int = TOLERANCE_S,
    nonce_cache: NonceCache | None = None,
    accept_not_before: bool = False,
    freshness: Freshness | None = None,
) -> VerifyResult:
    """Verify ``webhook-signature``. Never raises.

    *keys*: a resolver with ``key_ids`` (``JwksKeyResolver``, ``StaticKeyResolver``), a
    mapping or an iterable of ``VerificationKey``: each usable key is tried against each
    signature. Reasons: ``malformed`` (headers missing or unparsable), ``expired`` /
    ``not_yet_valid`` (timestamp outside *tolerance*), ``unknown_key`` (no key of the
    signature's kind), ``revoked_key`` (only a revoked key matches), ``bad_signature``,
    ``replayed_nonce`` (the same id and timestamp seen again), ``ok``. With *freshness* (a
    broker message) the timestamp is judged by its age rule instead of *tolerance*, and no
    replay cache is consulted (a broker consumer dedupes by the delivery id).
    """
    try:
        return _verify(
            headers, body, keys, now, tolerance, nonce_cache, accept_not_before, freshness
        )
    except Exception as exc:
        return _fail(Reason.MALFORMED, f"unexpected input ({type(exc).__name__})")


def _verify(
    headers: Any,
    body: bytes,
    keys: Any,
    now: int | None,
    tolerance: int,
    nonce_cache: NonceCache | None,
    accept_not_before: bool,
    freshness: Freshness | None = None,
) -> VerifyResult:
    if not isinstance(body, bytes | bytearray):
        return _fail(Reason.MALFORMED, "body must be bytes")
    body = bytes(body)
    digest = content_digest(body)
    now = int(time.time()) if now is None else int(now)
    hdrs = normalize_headers(headers)
    msg_id = hdrs.get("webhook-id")
    raw_ts = hdrs.get("webhook-timestamp")
    raw_sig = hdrs.get("webhook-signature")
    if not msg_id or not raw_ts or not raw_sig:
        return _fail(Reason.MALFORMED, "webhook-id, -timestamp and -signature are required")
    if len(msg_id) > _MAX_ID:
        return _fail(Reason.MALFORMED, "webhook-id too long", digest=digest)
    if not raw_ts.isascii() or not raw_ts.isdigit() or len(raw_ts) > 12:
        return _fail(Reason.MALFORMED, "webhook-timestamp is not Unix seconds", digest=digest)
    ts = int(raw_ts)
    info: dict[str, Any] = {"digest": digest, "created": ts}
    at = now
    if freshness is not None:
        late, at = freshness.judge(ts, ts + tolerance, now, _SKEW)
        if late is not None:
            return _fail(Reason(late[0]), late[1], **info)
        nonce_cache = None
    elif ts > now + tolerance:
        return _fail(Reason.NOT_YET_VALID, "webhook-timestamp is in the future", **info)
    elif ts < now - tolerance:
        return _fail(Reason.EXPIRED, "webhook-timestamp too old", **info)
    sigs: list[tuple[str, bytes]] = []
    for item in raw_sig.split(" ")[:_MAX_SIGNATURES]:
        version, sep, b64 = item.partition(",")
        if not sep or version not in ("v1", "v1a"):
            continue  # other versions are ignored, as in the reference libraries
        try:
            sigs.append((version, base64.b64decode(b64, validate=True)))
        except (binascii.Error, ValueError):
            continue
    if not sigs:
        return _fail(Reason.MALFORMED, "no v1 or v1a signature", **info)
    content = signed_content(msg_id, raw_ts, body)
    wanted = {ED25519 if v == "v1a" else HMAC_SHA256 for v, _ in sigs}
    pool = [k for k in candidate_keys(keys) if k.alg in wanted]
    if not pool:
        return _fail(Reason.UNKNOWN_KEY, "no key for the signature's algorithm", **info)
    refused: Reason | None = None
    for key in pool:
        for version, sig in sigs:
            if not _matches(key, version, sig, content):
                continue
            problem = _usable(key, at, tolerance, accept_not_before)
            if problem is not None:
                refused = refused or problem
                continue
            info.update(key_id=key.key_id, alg=key.alg, expires=ts + tolerance)
            if nonce_cache is not None and not nonce_cache.check_and_add(
                "standard-webhooks", f"{msg_id}.{raw_ts}", ts + tolerance, now
            ):
                return _fail(Reason.REPLAYED_NONCE, "webhook-id and timestamp seen", **info)
            return VerifyResult(ok=True, reason=Reason.OK, key=key, **info)
    if refused is not None:
        return _fail(refused, "only an unusable key matches", **info)
    return _fail(Reason.BAD_SIGNATURE, "no signature verifies", **info)
