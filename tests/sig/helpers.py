"""Shared fixtures-as-functions for the signature tests."""

from __future__ import annotations

from hookproof_subscriber import SigningKey, StaticKeyResolver, sign_request

__all__ = ["BODY", "ED_KEY", "HEADERS", "HMAC_KEY", "NOW", "RESOLVER", "URL", "signed"]

NOW = 1_700_000_000
URL = "https://subscriber.example.com/hooks/orders?tenant=acme"
BODY = (
    b'{"type":"order.created","eventId":"evt_01","version":"1.0","aggregateId":"ord_9",'
    b'"aggregateVersion":1,"occurredAt":"2023-11-14T22:13:20Z","payload":{"total":42}}'
)
HEADERS = {
    "Content-Type": "application/json",
    "Webhook-Id": "evt_01",
    "Webhook-Delivery-Id": "dlv_01",
    "Webhook-Attempt": "1",
    "Webhook-Subscription": "sub_01",
    "Webhook-Generation": "3",
}
ED_KEY = SigningKey.ed25519_from_pem(
    "engine-k1",
    b"-----BEGIN PRIVATE KEY-----\n"
    b"MC4CAQAwBQYDK2VwBCIEIJ+DYvh6SEqVTm50DFtMDoQikTmiCqirVv9mWG9qfSnF\n"
    b"-----END PRIVATE KEY-----\n",
)
HMAC_KEY = SigningKey.hmac("sub_01-secret-1", b"\x07" * 32)
RESOLVER = StaticKeyResolver([ED_KEY.verification_key(), HMAC_KEY.verification_key()])


def signed(
    key: SigningKey = ED_KEY,
    *,
    url: str = URL,
    body: bytes = BODY,
    headers: dict[str, str] | None = None,
    created: int = NOW,
    expires: int = NOW + 300,
    nonce: str = "bm9uY2UtMDE",
    **kwargs: object,
) -> dict[str, str]:
    """Headers of a request signed under hookproof.sig.v1 (covered fields + signature)."""
    base = dict(HEADERS if headers is None else headers)
    base.update(
        sign_request(
            "POST",
            url,
            base,
            body,
            key=key,
            created=created,
            expires=expires,
            nonce=nonce,
            **kwargs,
        )  # type: ignore[arg-type]
    )
    return base
