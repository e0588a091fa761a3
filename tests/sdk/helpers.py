"""An engine stand-in: builds and signs deliveries and challenges as hookproof does."""

from __future__ import annotations

import json
import secrets
from datetime import UTC, datetime

from hookproof_subscriber import SigningKey, content_digest, endpoint_digest, sign_request

__all__ = ["ENDPOINT", "ENGINE_KEY", "NOW", "SECRET", "SUB_KEY", "challenge", "delivery"]

NOW = 1_736_935_200
ENDPOINT = "https://hooks.example.com/hookproof"
ENGINE_KEY = SigningKey.generate_ed25519("engine-k1")
SECRET = secrets.token_bytes(32)
SUB_KEY = SigningKey.hmac("sub_1.s1", SECRET)


def _rfc3339(ts: int) -> str:
    return datetime.fromtimestamp(ts, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def delivery(
    event_id: str,
    aggregate_version: int,
    *,
    aggregate_id: str = "agg-1",
    payload: object = None,
    key: SigningKey = ENGINE_KEY,
    subscription: str = "sub_1",
    generation: int = 3,
    url: str = ENDPOINT,
    now: int = NOW,
    traceparent: str | None = None,
) -> tuple[dict[str, str], bytes]:
    body = json.dumps(
        {
            "type": "order.updated",
            "eventId": event_id,
            "version": "1.0",
            "aggregateId": aggregate_id,
            "aggregateVersion": aggregate_version,
            "occurredAt": _rfc3339(NOW),
            "payload": payload or {"v": aggregate_version},
        },
        separators=(",", ":"),
    ).encode()
    headers = {
        "Content-Type": "application/json",
        "Webhook-Id": event_id,
        "Webhook-Delivery-Id": f"dlv-{event_id}-{subscription}",
        "Webhook-Attempt": "1",
        "Webhook-Subscription": subscription,
        "Webhook-Generation": str(generation),
    }
    if traceparent:
        headers["traceparent"] = traceparent
    headers.update(
        sign_request("POST", url, headers, body, key=key, created=now, expires=now + 300)
    )
    return headers, body


def challenge(
    *,
    key: SigningKey = ENGINE_KEY,
    subscription: str = "sub_1",
    generation: int = 3,
    endpoint: str = ENDPOINT,
    now: int = NOW,
    expires_in: int = 120,
    challenge_id: str | None = None,
) -> tuple[dict[str, str], bytes]:
    cid = challenge_id or "chl_" + secrets.token_hex(8)
    body = json.dumps(
        {
            "type": "hookproof.challenge.v1",
            "challengeId": cid,
            "nonce": secrets.token_urlsafe(32),
            "subscriptionId": subscription,
            "generation": generation,
            "endpointDigest": endpoint_digest(endpoint),
            "expiresAt": _rfc3339(now + expires_in),
            "keyId": key.key_id,
        },
        separators=(",", ":"),
    ).encode()
    headers = {
        "Content-Type": "application/json",
        "Webhook-Id": cid,
        "Webhook-Delivery-Id": cid,
        "Webhook-Attempt": "1",
        "Webhook-Subscription": subscription,
        "Webhook-Generation": str(generation),
    }
    headers.update(
        sign_request("POST", endpoint, headers, body, key=key, created=now, expires=now + 60)
    )
    assert headers["Content-Digest"] == content_digest(body)
    return headers, body
