"""The ``hookproof.sig.v1`` and ``hookproof.receipt.v1`` RFC 9421 signature profiles.

``sign_request`` produces ``Content-Digest``, ``Signature-Input`` and ``Signature``;
``verify_request`` checks a request against a profile and returns a ``VerifyResult`` with a
reason code. The verifier never raises: anything unexpected is ``malformed``.
"""

from __future__ import annotations

import base64
import dataclasses
import heapq
import secrets
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Protocol, runtime_checkable

from .digest import DigestError, content_digest, verify_content_digest
from .freshness import Freshness
from .keys import ED25519, HMAC_SHA256, KeyResolver, KeyState, SigningKey, VerificationKey
from .rfc9421 import (
    SignatureFormatError,
    build_message_base,
    build_signature_base,
    check_signature,
    normalize_headers,
    parse_signature,
    parse_target,
    serialize_signature_params,
    sign_bytes,
    verify_bytes,
)

__all__ = [
    "PROFILE_COMPONENTS",
    "RECEIPT_COMPONENTS",
    "RECEIPT_V1",
    "SIG_V1",
    "AsyncKeyResolver",
    "NonceCache",
    "Profile",
    "Reason",
    "VerifyResult",
    "averify_request",
    "keys_unavailable",
    "mark_unavailable",
    "peek_key_id",
    "sign_request",
    "verify_request",
]

PROFILE_COMPONENTS: tuple[str, ...] = (
    "@method",
    "@target-uri",
    "content-digest",
    "content-type",
    "webhook-id",
    "webhook-delivery-id",
    "webhook-subscription",
    "webhook-generation",
)
RECEIPT_COMPONENTS: tuple[str, ...] = ("@method", "@target-uri", "content-digest", "content-type")
_PARAM_ORDER = ("created", "expires", "keyid", "alg", "nonce", "tag")
_MAX_TEXT_PARAM = 256


class Reason(StrEnum):
    """Verification outcome codes (stable wire names)."""

    OK = "ok"
    UNKNOWN_KEY = "unknown_key"
    REVOKED_KEY = "revoked_key"
    KEY_NOT_YET_VALID = "key_not_yet_valid"
    EXPIRED = "expired"
    NOT_YET_VALID = "not_yet_valid"
    DIGEST_MISMATCH = "digest_mismatch"
    COMPONENT_MISSING = "component_missing"
    BAD_SIGNATURE = "bad_signature"
    WRONG_TAG = "wrong_tag"
    ALG_MISMATCH = "alg_mismatch"
    MALFORMED = "malformed"
    REPLAYED_NONCE = "replayed_nonce"
    #: the verification keys could not be downloaded (transient: try again later)
    KEYS_UNAVAILABLE = "keys_unavailable"


@dataclass(frozen=True, slots=True)
class Profile:
    """A signature profile: label, tag, exact covered components and parameter rules."""

    name: str
    label: str
    tag: str
    components: tuple[str, ...]
    algorithms: frozenset[str]
    require_nonce: bool = True
    allowed_params: frozenset[str] = frozenset(_PARAM_ORDER)
    max_lifetime: int | None = 3600
    clock_skew: int = 60

    @property
    def required_params(self) -> frozenset[str]:
        base = {"created", "expires", "keyid", "alg", "tag"}
        return frozenset(base | ({"nonce"} if self.require_nonce else set()))


SIG_V1 = Profile(
    name="hookproof.sig.v1",
    label="hookproof",
    tag="hookproof.sig.v1",
    components=PROFILE_COMPONENTS,
    algorithms=frozenset({ED25519, HMAC_SHA256}),
    require_nonce=True,
)
RECEIPT_V1 = Profile(
    name="hookproof.receipt.v1",
    label="receipt",
    tag="hookproof.receipt.v1",
    components=RECEIPT_COMPONENTS,
    algorithms=frozenset({ED25519}),
    require_nonce=False,
)


@dataclass(frozen=True, slots=True)
class VerifyResult:
    """Outcome of a verification; safe to log (no secret, no body)."""

    ok: bool
    reason: Reason
    key_id: str | None = None
    digest: str | None = None
    created: int | None = None
    expires: int | None = None
    alg: str | None = None
    nonce: str | None = None
    detail: str = ""
    key: VerificationKey | None = field(default=None, repr=False, compare=False)

    def log_fields(self) -> dict[str, Any]:
        """The fields a verification log line may carry."""
        return {"key_id": self.key_id, "digest": self.digest, "reason": str(self.reason)}


class NonceCache:
    """Bounded in-memory replay cache of ``(keyid, nonce)`` pairs until their ``expires``.

    When full, expired entries go first, then the ones closest to expiry (counted in
    ``evictions``); size it for peak rate x maximum signature lifetime.
    """

    def __init__(self, max_entries: int = 100_000, grace: int = 60) -> None:
        if max_entries < 1:
            raise ValueError("max_entries must be >= 1")
        self.max_entries = max_entries
        self.grace = grace
        self.evictions = 0
        self._entries: dict[tuple[str, str], int] = {}
        self._heap: list[tuple[int, tuple[str, str]]] = []
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._entries)

    def _purge(self, now: int) -> None:
        heap, entries = self._heap, self._entries
        while heap and (heap[0][0] < now or len(entries) >= self.max_entries):
            until, k = heapq.heappop(heap)
            if entries.get(k) == until:
                del entries[k]
                if until >= now:
                    self.evictions += 1

    def check_and_add(self, key_id: str, nonce: str, expires: int, now: int) -> bool:
        """Record the pair; False if it was already present and not expired."""
        k = (key_id, nonce)
        until = expires + self.grace
        with self._lock:
            prev = self._entries.get(k)
            if prev is not None and prev >= now:
                return False
            self._purge(now)
            self._entries[k] = until
            heapq.heappush(self._heap, (until, k))
            return True


@runtime_checkable
class AsyncKeyResolver(Protocol):
    """A resolver that may fetch (e.g. a JWKS refresh on an unknown key id)."""

    async def aresolve(self, key_id: str) -> VerificationKey | None: ...


def sign_request(
    method: str,
    url: str,
    headers: Mapping[str, str],
    body: bytes,
    *,
    key: SigningKey,
    created: int | None = None,
    expires: int | None = None,
    nonce: str | None = None,
    profile: Profile = SIG_V1,
    label: str | None = None,
    tag: str | None = None,
    components: Sequence[str] | None = None,
    lifetime: int = 300,
) -> dict[str, str]:
    """Sign a request; return the headers to add: Content-Digest, Signature-Input, Signature.

    *headers* must already hold the covered fields other than Content-Digest (which is
    computed from *body*; a different existing one is an error). ``created`` defaults to
    now, ``expires`` to ``created + lifetime``, ``nonce`` to 16 random bytes (base64url)
    when the profile requires one.
    """
    if key.alg not in profile.algorithms:
        raise ValueError(f"profile {profile.name} does not allow {key.alg}")
    if not isinstance(body, bytes | bytearray | memoryview):
        raise TypeError("body must be bytes")
    label = profile.label if label is None else label
    tag = profile.tag if tag is None else tag
    comps = tuple(profile.components if components is None else components)
    created = int(time.time()) if created is None else created
    expires = created + lifetime if expires is None else expires
    if nonce is None and profile.require_nonce:
        nonce = secrets.token_urlsafe(16)
    hdrs = normalize_headers(headers)
    digest = content_digest(body)
    existing = hdrs.get("content-digest")
    if existing is not None and existing != digest:
        raise ValueError("existing Content-Digest does not match the body")
    hdrs["content-digest"] = digest
    params: list[tuple[str, int | str]] = [
        ("created", created),
        ("expires", expires),
        ("keyid", key.key_id),
        ("alg", key.alg),
    ]
    if nonce is not None:
        params.append(("nonce", nonce))
    params.append(("tag", tag))
    sig_params = serialize_signature_params(comps, params)
    try:
        base = build_signature_base(method, url, hdrs, comps, sig_params)
    except SignatureFormatError as exc:
        raise ValueError(exc.detail) from exc
    signature = sign_bytes(key, base)
    return {
        "Content-Digest": digest,
        "Signature-Input": f"{label}={sig_params}",
        "Signature": f"{label}=:{base64.b64encode(signature).decode('ascii')}:",
    }


def peek_key_id(headers: Any, profile: Profile = SIG_V1) -> str | None:
    """The ``keyid`` of the profile's signature, or None (no verification done)."""
    try:
        return parse_signature(normalize_headers(headers), profile.label).key_id
    except Exception:
        return None


def _fail(reason: Reason, detail: str = "", **kw: Any) -> VerifyResult:
    return VerifyResult(ok=False, reason=reason, detail=detail, **kw)


def keys_unavailable(keys: Any) -> str | None:
    """Why a fetching resolver holds no usable key set (its ``unavailable``: the last key
    download failed), or None."""
    why = getattr(keys, "unavailable", None)
    return why if isinstance(why, str) and why else None


def mark_unavailable(res: VerifyResult, keys: Any, failed: str | None = None) -> VerifyResult:
    """*res* with ``keys_unavailable`` for ``unknown_key`` when the keys could not be
    downloaded (*failed*, or the resolver says so): the key may well exist, we could not
    look. Every other outcome is returned unchanged."""
    why = failed or keys_unavailable(keys)
    if res.reason is not Reason.UNKNOWN_KEY or why is None:
        return res
    detail = f"the verification keys could not be downloaded ({why}); try again later"
    return dataclasses.replace(res, reason=Reason.KEYS_UNAVAILABLE, detail=detail)


def verify_request(
    method: str,
    url: str,
    headers: Any,
    body: bytes,
    *,
    keys: KeyResolver,
    now: int | None = None,
    nonce_cache: NonceCache | None = None,
    profile: Profile = SIG_V1,
    clock_skew: int | None = None,
    accept_not_before: bool = False,
    expected: Mapping[str, str] | None = None,
) -> VerifyResult:
    """Verify *profile*'s signature on a request. Never raises.

    Order: parse, parameters, tag, coverage, time window, key (unknown / revoked / not yet
    valid / expired / alg), body digest, signature, nonce replay (cheap checks first).
    ``accept_not_before`` admits a key still in state NOT_BEFORE (for challenges signed with
    the next key).
    ``expected`` maps covered field names to the values this receiver requires (e.g.
    ``{"webhook-subscription": "sub_1"}``): a validly signed request for another
    subscription or generation is then ``bad_signature`` too, never ``ok``.
    """
    try:
        return _verify(
            method,
            url,
            headers,
            body,
            keys,
            now,
            nonce_cache,
            profile,
            clock_skew,
            accept_not_before,
            expected,
        )
    except Exception as exc:
        return _fail(Reason.MALFORMED, f"unexpected input ({type(exc).__name__})")


async def averify_request(
    method: str,
    url: str,
    headers: Any,
    body: bytes,
    *,
    keys: KeyResolver | AsyncKeyResolver,
    now: int | None = None,
    nonce_cache: NonceCache | None = None,
    profile: Profile = SIG_V1,
    clock_skew: int | None = None,
    accept_not_before: bool = False,
    expected: Mapping[str, str] | None = None,
) -> VerifyResult:
    """``verify_request`` for resolvers that fetch keys asynchronously (e.g. a JWKS)."""
    resolver: Any = keys
    failed: str | None = None
    if isinstance(keys, AsyncKeyResolver):
        kid = peek_key_id(headers, profile)
        try:
            key = await keys.aresolve(kid) if kid is not None else None
        except Exception as exc:
            key, failed = None, type(exc).__name__
        resolver = _OneKey(kid, key)
    res = verify_request(
        method,
        url,
        headers,
        body,
        keys=resolver,
        now=now,
        nonce_cache=nonce_cache,
        profile=profile,
        clock_skew=clock_skew,
        accept_not_before=accept_not_before,
        expected=expected,
    )
    return mark_unavailable(res, keys, failed)


class _OneKey:
    def __init__(self, key_id: str | None, key: VerificationKey | None) -> None:
        self._kid, self._key = key_id, key

    def resolve(self, key_id: str) -> VerificationKey | None:
        return self._key if key_id == self._kid else None


def _verify(
    method: str,
    url: str,
    headers: Any,
    body: bytes,
    keys: KeyResolver,
    now: int | None,
    nonce_cache: NonceCache | None,
    profile: Profile,
    clock_skew: int | None,
    accept_not_before: bool = False,
    expected: Mapping[str, str] | None = None,
    destination: str | None = None,
    freshness: Freshness | None = None,
) -> VerifyResult:
    """The one verification path. With *destination* the signed thing is a broker message
    (``@destination`` instead of the request's derived components; *method*/*url* unused).
    With *freshness* (broker messages) the age rule replaces the signature's time window,
    keys are judged at the enqueue time and no nonce is checked (dedupe by delivery id)."""
    now = int(time.time()) if now is None else int(now)
    skew = profile.clock_skew if clock_skew is None else clock_skew
    digest = content_digest(bytes(body)) if isinstance(body, bytes | bytearray) else None
    if digest is None:
        return _fail(Reason.MALFORMED, "body must be bytes")
    try:
        hdrs = normalize_headers(headers)
        parsed = parse_signature(hdrs, profile.label)
        target = parse_target(url) if destination is None else None
    except SignatureFormatError as exc:
        return _fail(Reason(exc.reason), exc.detail, digest=digest)

    p = parsed.params
    key_id = parsed.key_id
    created = p.get("created")
    expires = p.get("expires")
    info: dict[str, Any] = {
        "key_id": key_id,
        "digest": digest,
        "created": created if type(created) is int else None,
        "expires": expires if type(expires) is int else None,
        "alg": p.get("alg") if type(p.get("alg")) is str else None,
    }
    unknown = set(p) - profile.allowed_params
    if unknown:
        return _fail(Reason.MALFORMED, f"unexpected parameters: {sorted(unknown)}", **info)
    absent = profile.required_params - set(p)
    if absent:
        return _fail(Reason.MALFORMED, f"missing parameters: {sorted(absent)}", **info)
    if p.get("tag") != profile.tag:
        return _fail(Reason.WRONG_TAG, "tag parameter differs from the profile", **info)
    covered = set(parsed.components)
    missing = [c for c in profile.components if c not in covered]
    if missing:
        return _fail(Reason.COMPONENT_MISSING, f"not covered: {', '.join(missing)}", **info)
    if len(parsed.components) != len(profile.components):
        return _fail(Reason.MALFORMED, "covers components outside the profile", **info)
    assert type(created) is int and type(expires) is int and key_id is not None
    nonce = p.get("nonce")
    if nonce is not None:
        if not (0 < len(str(nonce)) <= _MAX_TEXT_PARAM):
            return _fail(Reason.MALFORMED, "nonce length out of range", **info)
        info["nonce"] = nonce
    if not (0 < len(key_id) <= _MAX_TEXT_PARAM):
        return _fail(Reason.MALFORMED, "keyid length out of range", **info)
    if expires < created:
        return _fail(Reason.MALFORMED, "expires precedes created", **info)
    if profile.max_lifetime is not None and expires - created > profile.max_lifetime:
        return _fail(Reason.MALFORMED, "signature lifetime exceeds the profile maximum", **info)
    at = now
    if freshness is not None:
        problem, at = freshness.judge(created, expires, now, skew)
        if problem is not None:
            return _fail(Reason(problem[0]), problem[1], **info)
        nonce_cache = None
    elif created > now + skew:
        return _fail(Reason.NOT_YET_VALID, "created is in the future", **info)
    elif expires < now - skew:
        return _fail(Reason.EXPIRED, "signature expired", **info)
    alg = p["alg"]
    if alg not in profile.algorithms:
        return _fail(Reason.ALG_MISMATCH, f"algorithm {alg!r} not allowed by the profile", **info)

    key = keys.resolve(key_id)
    if key is None:
        return _fail(Reason.UNKNOWN_KEY, "key id not known", **info)
    if not isinstance(key, VerificationKey):
        return _fail(Reason.MALFORMED, "resolver returned an unexpected object", **info)
    if key.state is KeyState.REVOKED:
        return _fail(Reason.REVOKED_KEY, "key is revoked", **info)
    if not accept_not_before and (
        key.state is KeyState.NOT_BEFORE
        or (key.not_before is not None and key.not_before > at + skew)
    ):
        return _fail(Reason.KEY_NOT_YET_VALID, "key is not valid yet", **info)
    if key.not_after is not None and key.not_after < at - skew:
        return _fail(Reason.EXPIRED, "key validity ended", **info)
    if key.alg != alg:
        return _fail(Reason.ALG_MISMATCH, "alg parameter differs from the key's algorithm", **info)

    try:
        if target is not None:
            base = build_signature_base(
                method, target, hdrs, parsed.components, parsed.signature_params
            )
        else:
            assert destination is not None
            base = build_message_base(destination, hdrs, parsed.components, parsed.signature_params)
    except SignatureFormatError as exc:
        return _fail(Reason(exc.reason), exc.detail, **info)
    if "content-digest" in covered and hdrs["content-digest"] != digest:
        try:
            if not verify_content_digest(hdrs["content-digest"], bytes(body)):
                return _fail(Reason.DIGEST_MISMATCH, "body does not match Content-Digest", **info)
        except DigestError as exc:
            return _fail(Reason.MALFORMED, str(exc), **info)
    if target is None:  # a message: checked over our base (its member is canonical)
        signed = verify_bytes(key, base, parsed.signature)
    else:
        signed = check_signature(base, method, url, hdrs, parsed, key, tag=profile.tag)
    if not signed:
        return _fail(Reason.BAD_SIGNATURE, "signature does not verify", **info)

    if expected:
        for name, want in expected.items():
            lname = name.lower()
            if lname not in covered or hdrs.get(lname) != want:
                return _fail(Reason.BAD_SIGNATURE, f"signed {lname} is not this receiver's", **info)
    if (
        nonce_cache is not None
        and nonce is not None
        and not nonce_cache.check_and_add(key_id, str(nonce), expires, now)
    ):
        return _fail(Reason.REPLAYED_NONCE, "nonce already seen", **info)
    return VerifyResult(ok=True, reason=Reason.OK, detail="", key=key, **info)
