"""Signing a sig.v1 request with a ring key, for the rotation and compromise tests."""

from __future__ import annotations

import secrets

from hookproof_subscriber import SigningKey, sign_request

URL = "https://subscriber.example.com/hooks"
BODY = b'{"type":"order.created","eventId":"evt_1","payload":{"n":1}}'


def signed_headers(key: SigningKey, created: int, *, lifetime: int = 300) -> dict[str, str]:
    headers = {
        "Content-Type": "application/json",
        "Webhook-Id": "evt_1",
        "Webhook-Delivery-Id": "dlv_" + secrets.token_hex(4),
        "Webhook-Attempt": "1",
        "Webhook-Subscription": "sub_1",
        "Webhook-Generation": "1",
    }
    headers.update(
        sign_request("POST", URL, headers, BODY, key=key, created=created, lifetime=lifetime)
    )
    return headers
