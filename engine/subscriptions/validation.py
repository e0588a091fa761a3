"""Turn API bodies into a validated SubscriptionConfig (field-named errors, reason codes)."""

from __future__ import annotations

import base64
from datetime import UTC, datetime
from typing import Any

import msgspec

from hookproof.config import Settings
from hookproof.errors import ValidationError
from hookproof.events.subscription_events import ReceiptKey, RetryPolicy
from hookproof.schemas.api import ReceiptKeyIn, RetryPolicyIn, SubscriptionCreate
from hookproof_subscriber import decode_whsec

from ..egress.endpoint import Endpoint, normalise_endpoint
from .matching import validate_filter

__all__ = [
    "in_utc",
    "parse_time",
    "printable",
    "validate_endpoint",
    "validate_event_versions",
    "validate_gap_timeout",
    "validate_imported_secret",
    "validate_receipt_key",
    "validate_retry_policy",
    "validate_text",
    "validate_topics",
]


def validate_endpoint(url: str, settings: Settings) -> Endpoint:
    return normalise_endpoint(
        url, allowed_ports=settings.egress_ports, allow_pairs=settings.egress_allow
    )


def validate_text(value: str, field: str, *, max_len: int = 200) -> str:
    if not value.strip() or len(value) > max_len:
        raise ValidationError(f"{field} must be 1..{max_len} characters", field=field)
    if not printable(value):
        raise ValidationError(
            f"{field} must not contain control characters", field=field, code="invalid_character"
        )
    return value


def printable(value: str) -> bool:
    """No control characters (NUL included) and no lone surrogates."""
    return value.isprintable() and not any("\ud800" <= ch <= "\udfff" for ch in value)


def validate_topics(topics: list[str]) -> list[str]:
    if not topics or len(topics) > 100:
        raise ValidationError("topics must list 1..100 topics", field="topics")
    for t in topics:
        validate_text(t, "topics")
    return sorted(set(topics))


def validate_event_versions(versions: list[int]) -> list[int]:
    if not versions or any(v < 0 or v > 10_000 for v in versions):
        raise ValidationError(
            "eventVersions must list accepted major versions (0..10000)", field="eventVersions"
        )
    return sorted(set(versions))


def validate_filter_value(flt: Any) -> dict[str, Any] | None:
    problem = validate_filter(flt)
    if problem:
        raise ValidationError(problem, field="filter")
    return flt  # type: ignore[no-any-return]


def parse_time(text: str, field: str) -> datetime:
    try:
        value = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError as exc:
        raise ValidationError(f"{field} is not an RFC 3339 time", field=field) from exc
    if value.tzinfo is None:
        raise ValidationError(f"{field} needs a time zone offset", field=field)
    return in_utc(value, field)


def in_utc(value: datetime, field: str) -> datetime:
    """``value`` in UTC; ``invalid_data`` naming ``field`` when UTC cannot represent it.

    ``0001-01-01T00:00:00+23:59`` and ``9999-12-31T23:59:59-23:59`` parse, but their UTC
    instant lies outside years 1..9999 (``astimezone`` raises ``OverflowError``).
    """
    try:
        return value.astimezone(UTC)
    except (OverflowError, ValueError) as exc:
        raise ValidationError(
            f"{field} is outside the representable range of times (years 1..9999 in UTC)",
            field=field,
            code="invalid_data",
        ) from exc


def validate_expiry(text: str | None, now: datetime) -> str | None:
    if text is None:
        return None
    value = parse_time(text, "expiresAt")
    if value <= now:
        raise ValidationError("expiresAt is in the past", field="expiresAt")
    return value.isoformat()


def validate_gap_timeout(value: float) -> float:
    if not 0 <= value <= 86400 or value != value:
        raise ValidationError(
            "orderingGapTimeoutS must be 0..86400 seconds", field="orderingGapTimeoutS"
        )
    return float(value)


def validate_retry_policy(p: RetryPolicyIn | None) -> RetryPolicy:
    if p is None:
        return RetryPolicy()
    if not 1 <= p.max_attempts <= 100:
        raise ValidationError("maxAttempts must be 1..100", field="retryPolicy.maxAttempts")
    if not 0 < p.initial_delay_s <= 86400:
        raise ValidationError(
            "initialDelayS must be in (0, 86400]", field="retryPolicy.initialDelayS"
        )
    if not p.initial_delay_s <= p.max_delay_s <= 7 * 86400:
        raise ValidationError("maxDelayS out of range", field="retryPolicy.maxDelayS")
    if not 1.0 <= p.multiplier <= 10.0:
        raise ValidationError("multiplier must be 1..10", field="retryPolicy.multiplier")
    if not 0 <= p.retry_after_cap_s <= 7 * 86400:
        raise ValidationError("retryAfterCapS out of range", field="retryPolicy.retryAfterCapS")
    return RetryPolicy(**msgspec.structs.asdict(p))


def validate_receipt_key(k: ReceiptKeyIn | None, generation: int = 1) -> ReceiptKey | None:
    if k is None:
        return None
    validate_text(k.key_id, "receiptKey.keyId")
    jwk = k.public_key_jwk
    field = "receiptKey.publicKeyJwk"
    if jwk.get("kty") != "OKP" or jwk.get("crv") != "Ed25519" or not isinstance(jwk.get("x"), str):
        raise ValidationError("receipt key must be an Ed25519 OKP JWK", field=field)
    if "d" in jwk:
        raise ValidationError("receipt key must be public (no 'd')", field=field)
    try:
        raw = base64.urlsafe_b64decode(jwk["x"] + "=" * (-len(jwk["x"]) % 4))
    except ValueError as exc:
        raise ValidationError("receipt key 'x' is not base64url", field=field) from exc
    if len(raw) != 32:
        raise ValidationError("receipt key 'x' must be 32 bytes", field=field)
    public = {"kty": "OKP", "crv": "Ed25519", "x": jwk["x"]}
    return ReceiptKey(key_id=k.key_id, public_key_jwk=public, generation=generation)


#: an imported Standard Webhooks secret decodes to this many bytes (as the spec's libraries make)
MIN_IMPORTED_SECRET, MAX_IMPORTED_SECRET = 24, 64


def validate_imported_secret(body: SubscriptionCreate) -> bytes | None:
    """The key bytes of an imported ``whsec_`` secret (hmac-sha256 standard-webhooks.v1 only).

    The error never repeats the value: it is a secret.
    """
    if body.secret is None:
        return None
    if body.signature_algorithm != "hmac-sha256" or body.signature_profile != (
        "standard-webhooks.v1"
    ):
        raise ValidationError(
            "secret may be imported only for an hmac-sha256 standard-webhooks.v1 subscription",
            field="secret",
            code="secret_not_importable",
        )
    problem = ValidationError(
        f"secret must be whsec_ followed by standard base64 of {MIN_IMPORTED_SECRET}"
        f"..{MAX_IMPORTED_SECRET} bytes",
        field="secret",
        code="secret_invalid",
    )
    # the length is judged before anything is decoded: base64 of 64 bytes is 88 characters
    if not body.secret.startswith("whsec_") or len(body.secret) > 6 + 88:
        raise problem
    try:
        key: bytes = decode_whsec(body.secret)
    except ValueError:
        raise problem from None
    if not MIN_IMPORTED_SECRET <= len(key) <= MAX_IMPORTED_SECRET:
        raise problem
    return key
