"""``applicationReceipt.v1``: build, sign (profile ``hookproof.receipt.v1``), parse, send."""

from __future__ import annotations

import json
import re
import time
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from .digest import parse_content_digest
from .extras import require_aiohttp
from .keys import ED25519, SigningKey
from .sigv1 import RECEIPT_V1, sign_request

__all__ = [
    "RECEIPT_RESULTS",
    "RECEIPT_TYPE",
    "Receipt",
    "ReceiptError",
    "build_receipt",
    "parse_receipt",
    "send_receipt",
    "sign_receipt",
]

RECEIPT_TYPE = "applicationReceipt.v1"
RECEIPT_RESULTS = ("applied", "rejected", "duplicate")
_FIELDS = (
    "type",
    "subscriptionId",
    "eventId",
    "deliveryId",
    "payloadDigest",
    "operationId",
    "result",
    "appliedAt",
    "receiptKeyGeneration",
)
_RFC3339 = re.compile(
    r"\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?(?:[Zz]|[+-]\d{2}:\d{2})"
)


class ReceiptError(ValueError):
    """A receipt body that does not follow applicationReceipt.v1."""


def _now_rfc3339() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


@dataclass(frozen=True, slots=True)
class Receipt:
    """One application receipt (field names as on the wire, in camelCase via ``to_dict``)."""

    subscription_id: str
    event_id: str
    delivery_id: str
    payload_digest: str
    operation_id: str
    result: str
    applied_at: str
    receipt_key_generation: int

    def __post_init__(self) -> None:
        _validate(self.to_dict())

    def to_dict(self) -> dict[str, Any]:
        return {
            "type": RECEIPT_TYPE,
            "subscriptionId": self.subscription_id,
            "eventId": self.event_id,
            "deliveryId": self.delivery_id,
            "payloadDigest": self.payload_digest,
            "operationId": self.operation_id,
            "result": self.result,
            "appliedAt": self.applied_at,
            "receiptKeyGeneration": self.receipt_key_generation,
        }

    def to_bytes(self) -> bytes:
        """Compact JSON in the documented field order (these bytes are what gets signed)."""
        return json.dumps(self.to_dict(), separators=(",", ":"), ensure_ascii=False).encode()


def _validate(doc: Mapping[str, Any]) -> None:
    if doc.get("type") != RECEIPT_TYPE:
        raise ReceiptError("type must be applicationReceipt.v1")
    extra = set(doc) - set(_FIELDS)
    if extra:
        raise ReceiptError(f"unexpected fields: {sorted(extra)}")
    for name in ("subscriptionId", "eventId", "deliveryId", "operationId"):
        v = doc.get(name)
        if not isinstance(v, str) or not v or len(v) > 256:
            raise ReceiptError(f"{name} must be a non-empty string (<= 256 chars)")
    digest = doc.get("payloadDigest")
    try:
        if not isinstance(digest, str) or "sha-256" not in parse_content_digest(digest):
            raise ReceiptError("payloadDigest must be a sha-256 Content-Digest value")
    except ValueError as exc:
        raise ReceiptError("payloadDigest must be a sha-256 Content-Digest value") from exc
    if doc.get("result") not in RECEIPT_RESULTS:
        raise ReceiptError("result must be applied, rejected or duplicate")
    applied_at = doc.get("appliedAt")
    if not isinstance(applied_at, str) or not _RFC3339.fullmatch(applied_at):
        raise ReceiptError("appliedAt must be an RFC 3339 timestamp")
    gen = doc.get("receiptKeyGeneration")
    if type(gen) is not int or not 1 <= gen <= 2**31 - 1:
        raise ReceiptError("receiptKeyGeneration must be an integer 1..2147483647")


def build_receipt(
    *,
    subscription_id: str,
    event_id: str,
    delivery_id: str,
    payload_digest: str,
    result: str = "applied",
    operation_id: str | None = None,
    applied_at: str | None = None,
    receipt_key_generation: int = 1,
) -> Receipt:
    """A receipt; ``operation_id`` defaults to a random UUID, ``applied_at`` to now (UTC)."""
    return Receipt(
        subscription_id,
        event_id,
        delivery_id,
        payload_digest,
        operation_id or str(uuid.uuid4()),
        result,
        applied_at or _now_rfc3339(),
        receipt_key_generation,
    )


def parse_receipt(body: bytes) -> Receipt:
    """Parse and validate a receipt body; raise ReceiptError."""
    try:
        doc = json.loads(body)
    except (ValueError, UnicodeError) as exc:
        raise ReceiptError("receipt body is not JSON") from exc
    if not isinstance(doc, dict):
        raise ReceiptError("receipt body is not a JSON object")
    _validate(doc)
    return Receipt(
        doc["subscriptionId"],
        doc["eventId"],
        doc["deliveryId"],
        doc["payloadDigest"],
        doc["operationId"],
        doc["result"],
        doc["appliedAt"],
        doc["receiptKeyGeneration"],
    )


def sign_receipt(
    receipt: Receipt | bytes,
    *,
    url: str,
    key: SigningKey,
    created: int | None = None,
    expires: int | None = None,
    lifetime: int = 300,
) -> tuple[dict[str, str], bytes]:
    """Headers and body of a signed ``POST`` of *receipt* to *url* (the engine's receipts URL)."""
    if key.alg != ED25519:
        raise ValueError("receipts are signed with an Ed25519 receipt key")
    body = receipt.to_bytes() if isinstance(receipt, Receipt) else bytes(receipt)
    created = int(time.time()) if created is None else created
    headers = {"Content-Type": "application/json"}
    headers.update(
        sign_request(
            "POST",
            url,
            headers,
            body,
            key=key,
            created=created,
            expires=expires,
            profile=RECEIPT_V1,
            lifetime=lifetime,
        )
    )
    return headers, body


async def send_receipt(
    receipt: Receipt,
    *,
    url: str,
    key: SigningKey,
    session: Any = None,
    request_timeout: float = 10.0,
    extra_headers: Mapping[str, str] | None = None,
) -> tuple[int, bytes]:
    """Sign and ``POST`` the receipt with aiohttp; return ``(status, response body)``.
    Without aiohttp installed: :class:`~.extras.MissingExtraError`."""
    aiohttp = require_aiohttp("send_receipt")

    headers, body = sign_receipt(receipt, url=url, key=key)
    if extra_headers:
        headers = {**extra_headers, **headers}
    own = session is None
    if own:
        session = aiohttp.ClientSession(
            timeout=aiohttp.ClientTimeout(total=request_timeout), trust_env=False
        )
    try:
        async with session.post(url, data=body, headers=headers, allow_redirects=False) as resp:
            return resp.status, await resp.content.read(1 << 16)
    finally:
        if own:
            await session.close()
