"""The catalogue as an OpenAPI 3.1 document: one ``webhooks`` entry per (topic, major).

Each entry is the ``POST`` a subscriber receives: the delivery body (DESIGN.md section 11,
"Delivery request") with the type's schema as ``payload`` and its example, and the headers of
both signature profiles (``hookproof.sig.v1``: RFC 9421 ``Signature-Input``/``Signature``
over Content-Digest and the Webhook-* headers; ``standard-webhooks.v1``: ``webhook-id``,
``webhook-timestamp``, ``webhook-signature``). Header names are case-insensitive, so the
``Webhook-Id`` both profiles send is one parameter. ``x-hookproof-signature-profiles`` says
which headers each profile sends and how it signs.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any

from hookproof.events.canonical import canonical_json
from hookproof.events.delivery_events import EVENT_ID

__all__ = ["SIGNATURE_PROFILES", "catalogue_document", "webhook_name"]

_DIALECT = "https://json-schema.org/draft/2020-12/schema"

#: (header, required in every request, which profiles send it, description)
_HEADERS: tuple[tuple[str, bool, tuple[str, ...], str], ...] = (
    (
        "Webhook-Id",
        True,
        ("hookproof.sig.v1", "standard-webhooks.v1"),
        "The event id, stable across retries (Standard Webhooks: webhook-id).",
    ),
    (
        "Webhook-Delivery-Id",
        True,
        ("hookproof.sig.v1", "standard-webhooks.v1"),
        "The delivery id: one per (event, subscription), stable across retries.",
    ),
    (
        "Webhook-Attempt",
        True,
        ("hookproof.sig.v1", "standard-webhooks.v1"),
        "The attempt number, from 1.",
    ),
    (
        "Webhook-Subscription",
        True,
        ("hookproof.sig.v1", "standard-webhooks.v1"),
        "The subscription id.",
    ),
    (
        "Webhook-Generation",
        True,
        ("hookproof.sig.v1", "standard-webhooks.v1"),
        "The subscription generation the delivery was admitted for.",
    ),
    (
        "Content-Digest",
        True,
        ("hookproof.sig.v1", "standard-webhooks.v1"),
        "RFC 9530 sha-256 of the exact body bytes: sha-256=:<base64>:",
    ),
    (
        "Signature-Input",
        False,
        ("hookproof.sig.v1",),
        'RFC 9421, label "hookproof", tag="hookproof.sig.v1" (hookproof.sig.v1 only).',
    ),
    (
        "Signature",
        False,
        ("hookproof.sig.v1",),
        "RFC 9421 signature (ed25519 or hmac-sha256) (hookproof.sig.v1 only).",
    ),
    (
        "webhook-timestamp",
        False,
        ("standard-webhooks.v1",),
        "Integer Unix seconds of this attempt (standard-webhooks.v1 only).",
    ),
    (
        "webhook-signature",
        False,
        ("standard-webhooks.v1",),
        'Space-separated "v1,<base64 HMAC-SHA256>" or "v1a,<base64 Ed25519>" over '
        '"{webhook-id}.{webhook-timestamp}.{body}" (standard-webhooks.v1 only).',
    ),
    (
        "traceparent",
        False,
        ("hookproof.sig.v1", "standard-webhooks.v1"),
        "W3C trace context of the attempt.",
    ),
)

SIGNATURE_PROFILES: dict[str, dict[str, Any]] = {
    "hookproof.sig.v1": {
        "standard": "RFC 9421 HTTP Message Signatures",
        "headers": [h for h, _, p, _ in _HEADERS if "hookproof.sig.v1" in p],
        "signatureLabel": "hookproof",
        "coveredComponents": [
            "@method",
            "@target-uri",
            "content-digest",
            "content-type",
            "webhook-id",
            "webhook-delivery-id",
            "webhook-subscription",
            "webhook-generation",
        ],
        "parameters": ["created", "expires", "keyid", "alg", "nonce", 'tag="hookproof.sig.v1"'],
        "algorithms": ["ed25519", "hmac-sha256"],
        "jwks": "/.well-known/hookproof/jwks.json",
    },
    "standard-webhooks.v1": {
        "standard": "Standard Webhooks",
        "headers": [h for h, _, p, _ in _HEADERS if "standard-webhooks.v1" in p],
        "signedContent": "{webhook-id}.{webhook-timestamp}.{body}",
        "algorithms": ["hmac-sha256 (v1,)", "ed25519 (v1a,)"],
    },
}


def webhook_name(topic: str, major: str) -> str:
    return f"{topic}.v{major}"


def _parameters() -> list[dict[str, Any]]:
    return [
        {
            "name": name,
            "in": "header",
            "required": required,
            "description": f"{text} Sent under: {', '.join(profiles)}.",
            "schema": {"type": "string"},
        }
        for name, required, profiles, text in _HEADERS
    ]


def _envelope(topic: str, major: str, schema: Any) -> dict[str, Any]:
    return {
        "type": "object",
        "required": [
            "type",
            "eventId",
            "version",
            "aggregateId",
            "aggregateVersion",
            "occurredAt",
            "payload",
        ],
        "properties": {
            "type": {"const": topic},
            # what POST /v1/events accepted (the same patterns and lengths it checks)
            "eventId": {"type": "string", "pattern": EVENT_ID.pattern},
            "version": {"type": "string", "pattern": f"^{major}\\.(0|[1-9][0-9]{{0,4}})$"},
            "aggregateId": {"type": "string", "minLength": 1, "maxLength": 200},
            "aggregateVersion": {"type": "integer", "minimum": 0},
            "occurredAt": {"type": "string", "format": "date-time"},
            "payload": schema,
        },
    }


def _example(topic: str, major: str, payload: Any) -> dict[str, Any]:
    return {
        "type": topic,
        "eventId": "evt_example",
        "version": f"{major}.0",
        "aggregateId": "example-1",
        "aggregateVersion": 1,
        "occurredAt": "2026-01-01T00:00:00Z",
        "payload": payload,
    }


def catalogue_document(types: Sequence[Any], *, title: str) -> dict[str, Any]:
    """``types``: the tenant's :class:`~hookproof.engine.event_types.service.EventTypeView`s."""
    webhooks: dict[str, Any] = {}
    for t in sorted(types, key=lambda t: t.topic):
        for major in sorted(t.versions, key=int):
            v = t.versions[major]
            name = webhook_name(t.topic, major)
            webhooks[name] = {
                "post": {
                    "operationId": name,
                    "summary": f"{t.topic} v{major}",
                    "description": t.description,
                    "deprecated": t.deprecated,
                    "parameters": _parameters(),
                    "requestBody": {
                        "required": True,
                        "content": {
                            "application/json": {
                                "schema": _envelope(t.topic, major, v["schema"]),
                                "example": _example(t.topic, major, v["example"]),
                            }
                        },
                    },
                    "responses": {
                        "2XX": {
                            "description": "Accepted (endpoint acceptance; a 3xx is a failure)"
                        },
                        "default": {"description": "Not accepted: retried by the policy"},
                    },
                    "x-hookproof-topic": t.topic,
                    "x-hookproof-major-version": int(major),
                    "x-hookproof-type-version": t.version,
                }
            }
    digest = hashlib.sha256(
        canonical_json([[t.topic, t.digest] for t in sorted(types, key=lambda t: t.topic)])
    ).hexdigest()
    return {
        "openapi": "3.1.0",
        "jsonSchemaDialect": _DIALECT,
        "info": {
            "title": title,
            "version": digest[:16],
            "description": "Webhooks this sender delivers, one per (topic, major version).",
        },
        "webhooks": webhooks,
        "x-hookproof-signature-profiles": SIGNATURE_PROFILES,
    }
