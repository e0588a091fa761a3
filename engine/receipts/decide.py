"""Pure parts of receipt handling: the reason codes, the receipt-key history of a
subscription, and the signature verdict under the current or a superseded receipt key."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from hookproof.events import Event
from hookproof.events.subscription_events import (
    ReceiptKey,
    SubscriptionRegistered,
    SubscriptionUpdated,
)
from hookproof_subscriber import (
    RECEIPT_V1,
    StaticKeyResolver,
    VerificationKey,
    jwk_to_verification_key,
    peek_key_id,
    verify_request,
)

__all__ = [
    "ACCEPTED_STATUS",
    "REASONS",
    "KeyVerdict",
    "receipt_key_history",
    "verify_receipt_signature",
]

#: Every refusal of ``POST /v1/receipts``: stable reason code -> HTTP status.
REASONS: dict[str, int] = {
    # the request itself
    "malformed": 400,  # not an applicationReceipt.v1 body, or unparsable signature fields
    "body_too_large": 413,
    "digest_mismatch": 400,  # Content-Digest does not match the body bytes
    # whom it names
    "delivery_not_found": 404,  # unknown subscription/delivery, or a delivery of another pair
    "no_receipt_contract": 422,  # no receipt key registered (or the delivery predates it)
    # the signature (profile hookproof.receipt.v1)
    "unknown_key": 401,  # keyid is no receipt key this subscription ever registered
    "revoked_receipt_key": 401,  # verifies, but under a receipt key superseded by rotation
    "bad_signature": 401,
    "expired": 401,
    "not_yet_valid": 401,
    "wrong_tag": 401,
    "alg_mismatch": 401,
    "component_missing": 401,
    # what it claims
    "wrong_key_generation": 422,  # receiptKeyGeneration != the registered key's generation
    "invalid_delivery_state": 409,  # e.g. a receipt for a delivery never sent (PLANNED)
    # (not a refusal of the signature: a valid receipt with another payload digest)
    "receipt_conflict": 409,
}
ACCEPTED_STATUS = 201
DUPLICATE_STATUS = 200


@dataclass(frozen=True)
class KeyVerdict:
    """``reason`` is ``ok`` only for a valid signature under the *current* receipt key."""

    reason: str
    key_id: str | None = None
    generation: int | None = None
    detail: str = ""


def receipt_key_history(events: Iterable[Event]) -> list[ReceiptKey]:
    """Every receipt key a subscription ever had, in registration order (no repeats)."""
    seen: list[ReceiptKey] = []
    for ev in events:
        if isinstance(ev, SubscriptionRegistered | SubscriptionUpdated):
            k = ev.config.receipt_key
            if k is not None and not any(_same(k, s) for s in seen):
                seen.append(k)
    return seen


def _same(a: ReceiptKey, b: ReceiptKey) -> bool:
    return (a.key_id, a.public_key_jwk.get("x"), a.generation) == (
        b.key_id,
        b.public_key_jwk.get("x"),
        b.generation,
    )


def _verification_key(k: ReceiptKey) -> VerificationKey:
    jwk: dict[str, Any] = {**k.public_key_jwk, "kid": k.key_id}
    jwk.pop("state", None)
    return jwk_to_verification_key(jwk)


def verify_receipt_signature(
    method: str,
    url: str,
    headers: Any,
    body: bytes,
    *,
    current: ReceiptKey,
    history: Iterable[ReceiptKey] = (),
    now: int,
) -> KeyVerdict:
    """Verify the ``receipt`` signature. Never raises.

    The current key answers ``ok`` (or why not). A signature that only a superseded key of
    this subscription verifies is ``revoked_receipt_key``; a key id this subscription never
    registered is ``unknown_key`` (after the structural checks, which come first).
    """
    past = [
        k
        for k in history
        if not _same(k, current) and k.public_key_jwk.get("x") != (current.public_key_jwk.get("x"))
    ]
    try:
        kid = peek_key_id(headers, RECEIPT_V1)
    except Exception:  # pragma: no cover - peek_key_id never raises
        kid = None

    def attempt(k: ReceiptKey | None) -> Any:
        keys = StaticKeyResolver([_verification_key(k)] if k is not None else [])
        return verify_request(method, url, headers, body, keys=keys, now=now, profile=RECEIPT_V1)

    try:
        if kid == current.key_id:
            res = attempt(current)
            if res.ok:
                return KeyVerdict("ok", kid, current.generation)
            if str(res.reason) == "bad_signature":
                for old in (k for k in past if k.key_id == kid):
                    if attempt(old).ok:
                        return KeyVerdict(
                            "revoked_receipt_key",
                            kid,
                            old.generation,
                            "signed by a superseded receipt key",
                        )
            return KeyVerdict(str(res.reason), kid, None, res.detail)
        olds = [k for k in past if k.key_id == kid]
        if olds:
            first = None
            for old in olds:
                res = attempt(old)
                if res.ok:
                    return KeyVerdict(
                        "revoked_receipt_key",
                        kid,
                        old.generation,
                        "signed by a superseded receipt key",
                    )
                first = first or res
            assert first is not None
            return KeyVerdict(str(first.reason), kid, None, first.detail)
        res = attempt(None)  # structural reasons first, then unknown_key
        return KeyVerdict(str(res.reason), kid, None, res.detail)
    except Exception as exc:  # a bad registered JWK, or anything unexpected
        return KeyVerdict("malformed", kid, None, f"unexpected input ({type(exc).__name__})")
