"""The OpenAPI 3.1 document, from the msgspec request types and one table of operations."""

from __future__ import annotations

import re
from typing import Any

import msgspec
from aiohttp import web

from hookproof.projections.deliveries import LEDGER_STATES
from hookproof.schemas import api as api_schemas

from ..delivery.log import EVIDENCE_FILTERS

__all__ = ["OPERATIONS", "openapi_document"]

_REQUEST_TYPES: list[Any] = [
    api_schemas.SubscriptionCreate,
    api_schemas.SubscriptionPatch,
    api_schemas.SubscriptionTransition,
    api_schemas.EventIn,
    api_schemas.EventBatchIn,
    api_schemas.RolloutCreate,
    api_schemas.RolloutAdvance,
    api_schemas.RecoverIn,
    api_schemas.EventTypeIn,
    api_schemas.ConsumerCreate,
    api_schemas.ConsumerPatch,
    api_schemas.ConsumerDisable,
    api_schemas.PortalSessionCreate,
    api_schemas.TenantCreate,
    api_schemas.TestEventIn,
    api_schemas.PortalBrandingIn,
]
#: response bodies described by a msgspec type (the others: ``{"type": "object"}``)
_RESPONSE_TYPES: list[Any] = [
    api_schemas.AttemptStats,
    api_schemas.AttemptStatsBatch,
    api_schemas.PortalSessionPage,
    api_schemas.PortalSessionsEnded,
    api_schemas.DeliveryLogPage,
    api_schemas.AttemptResponseView,
    api_schemas.PortalBranding,
]

_PROBLEM = {
    "type": "object",
    "required": ["type", "title", "status", "code"],
    "properties": {
        "type": {"type": "string"},
        "title": {"type": "string"},
        "status": {"type": "integer"},
        "detail": {"type": "string"},
        "code": {"type": "string"},
        "field": {"type": "string"},
    },
}

# (method, path) -> (summary, request schema name or None, success status, authenticated, extra)
OPERATIONS: dict[tuple[str, str], dict[str, Any]] = {
    ("post", "/v1/subscriptions"): {
        "summary": "Register a subscription",
        "body": "SubscriptionCreate",
        "status": 201,
    },
    ("get", "/v1/subscriptions"): {
        "summary": "List subscriptions (paged; one consumer's with consumerId)",
        "paged": True,
        "query": {"consumerId": {"type": "string", "maxLength": 64}},
    },
    ("get", "/v1/subscriptions/{id}"): {"summary": "Read a subscription (ETag: generation)"},
    ("patch", "/v1/subscriptions/{id}"): {
        "summary": "Change a subscription (If-Match)",
        "body": "SubscriptionPatch",
        "ifMatch": True,
    },
    ("post", "/v1/subscriptions/{id}/revoke"): {
        "summary": "Revoke (raises the generation)",
        "body": "SubscriptionTransition",
        "optionalBody": True,
    },
    ("post", "/v1/subscriptions/{id}/suspend"): {
        "summary": "Suspend",
        "body": "SubscriptionTransition",
        "optionalBody": True,
    },
    ("post", "/v1/subscriptions/{id}/resume"): {
        "summary": "Resume (through a new challenge)",
        "body": "SubscriptionTransition",
        "optionalBody": True,
    },
    ("post", "/v1/subscriptions/{id}/challenge"): {"summary": "Challenge the endpoint now"},
    ("get", "/v1/subscriptions/{id}/history"): {
        "summary": "The subscription's events, in order (paged)",
        "paged": True,
    },
    ("post", "/v1/subscriptions/{id}/secret/rotate"): {
        "summary": "Rotate the shared secret (shown once)"
    },
    ("post", "/v1/subscriptions/{id}/recover"): {
        "summary": "Recover deliveries by time range (back to RETRYABLE, same ids)",
        "body": "RecoverIn",
        "status": 202,
    },
    ("get", "/v1/subscriptions/{id}/attempt-stats"): {
        "summary": "Attempts of the last 24 hours by hour and outcome (the console's chart; "
        "kept by the projector, at most HOOKPROOF_STATS_INTERVAL_S behind)",
        "response": "AttemptStats",
    },
    ("get", "/v1/attempt-stats"): {
        "summary": "attempt-stats of up to 100 of the caller's subscriptions in one call "
        "(subscriptionId repeated; any id not the caller's: 404 subscription_not_found)",
        "query": {
            "subscriptionId": {
                "type": "array",
                "items": {"type": "string", "pattern": "^sub_[0-9a-f]{24}$"},
                "minItems": 1,
                "maxItems": 100,
            },
            "window": {"type": "string", "enum": ["24h", "7d"]},
        },
        "requiredQuery": ["subscriptionId"],
        "response": "AttemptStatsBatch",
    },
    ("post", "/v1/events"): {
        "summary": "Ingest a business event",
        "body": "EventIn",
        "status": 202,
    },
    ("post", "/v1/events/batch"): {
        "summary": "Ingest up to 1,000 events; one result per event, in order (202, 409 or 400)",
        "body": "EventBatchIn",
        "status": 200,
    },
    ("get", "/v1/events/{eventId}"): {"summary": "An event and its deliveries"},
    ("put", "/v1/event-types/{topic}"): {
        "summary": "Define an event type: JSON Schema 2020-12 and an example per major version "
        "(If-Match: version, optional)",
        "body": "EventTypeIn",
    },
    ("get", "/v1/event-types/{topic}"): {"summary": "An event type (ETag: version)"},
    ("get", "/v1/event-types"): {"summary": "The event catalogue, by topic (paged)", "paged": True},
    ("get", "/v1/event-types/openapi.json"): {
        "summary": "The catalogue as OpenAPI 3.1: one webhooks entry per (topic, major version)"
    },
    ("get", "/v1/deliveries/{id}"): {
        "summary": "A delivery: state, evidence, attempts (each with its outcome, status, code "
        "and bodyTruncated: the answer's body ended with the connection, without TLS "
        "close_notify)"
    },
    ("post", "/v1/deliveries/{id}/replay"): {
        "summary": "Replay a delivery (new attempt, same identity)",
        "status": 202,
    },
    ("post", "/v1/deliveries/{id}/skip"): {
        "summary": "Give a dead letter up: it releases its aggregate (ordered delivery)"
    },
    ("get", "/v1/dead-letters"): {
        "summary": "Dead letters with their owners (paged)",
        "paged": True,
    },
    ("post", "/v1/subscriptions/{id}/test-events"): {
        "summary": "Send the catalogue's example to this endpoint as a test event",
        "body": "TestEventIn",
        "status": 202,
    },
    ("put", "/v1/portal/branding"): {
        "summary": "Set the portal's branding and frame-ancestors (replaced whole)",
        "body": "PortalBrandingIn",
        "response": "PortalBranding",
    },
    ("get", "/v1/portal/branding"): {
        "summary": "The portal's branding (the tenant or its consumers' portal sessions)",
        "response": "PortalBranding",
    },
    ("get", "/v1/deliveries"): {
        "summary": "The delivery log, newest first: filtered, searched, paged",
        "response": "DeliveryLogPage",
        "query": {
            "subscriptionId": {"type": "string", "pattern": "^sub_[0-9a-f]{24}$"},
            "eventType": {"type": "string", "maxLength": 200},
            "state": {"type": "string", "enum": sorted(LEDGER_STATES)},
            "evidence": {"type": "string", "enum": sorted(EVIDENCE_FILTERS)},
            "since": {"type": "string", "format": "date-time"},
            "until": {"type": "string", "format": "date-time"},
            "eventId": {"type": "string", "maxLength": 200},
            "deliveryId": {"type": "string", "pattern": "^dlv_[0-9a-f]{28}$"},
            "limit": {"type": "integer", "minimum": 1, "maximum": 1000},
            "cursor": {"type": "string"},
        },
    },
    ("get", "/v1/deliveries/{id}/timeline"): {
        "summary": "A delivery's timeline from the log (optionally as of a time; paged)",
        "query": {"asOf": {"type": "string", "format": "date-time"}},
        "paged": True,
    },
    ("get", "/v1/subscriptions/{id}/timeline"): {
        "summary": "A subscription's timeline from the log (optionally as of a time; paged)",
        "query": {"asOf": {"type": "string", "format": "date-time"}},
        "paged": True,
    },
    ("get", "/v1/whoami"): {
        "summary": "Whose token this is: a tenant, the operator or a portal session"
    },
    ("post", "/v1/consumers"): {
        "summary": "Create a consumer (one of the tenant's own customers)",
        "body": "ConsumerCreate",
        "status": 201,
    },
    ("get", "/v1/consumers"): {"summary": "List consumers (paged)", "paged": True},
    ("get", "/v1/consumers/{id}"): {"summary": "Read a consumer"},
    ("patch", "/v1/consumers/{id}"): {
        "summary": "Change a consumer's name or metadata",
        "body": "ConsumerPatch",
    },
    ("post", "/v1/consumers/{id}/disable"): {
        "summary": "Disable a consumer: nothing new is planned for it; its portal sessions end",
        "body": "ConsumerDisable",
        "optionalBody": True,
    },
    ("post", "/v1/consumers/{id}/portal-sessions"): {
        "summary": "Start a portal session for a consumer (token and console link, once)",
        "body": "PortalSessionCreate",
        "optionalBody": True,
        "status": 201,
    },
    ("get", "/v1/consumers/{id}/portal-sessions"): {
        "summary": "A consumer's live portal sessions, oldest first (paged; id, capabilities, "
        "creator, createdAt, expiresAt; never a token)",
        "paged": True,
        "response": "PortalSessionPage",
    },
    ("delete", "/v1/consumers/{id}/portal-sessions"): {
        "summary": "End every live portal session of a consumer (how many ended)",
        "response": "PortalSessionsEnded",
    },
    ("delete", "/v1/portal-sessions/{id}"): {"summary": "End a portal session", "status": 204},
    ("post", "/v1/tenants"): {
        "summary": "Provision a tenant (operator token); its token is shown once",
        "body": "TenantCreate",
        "status": 201,
    },
    ("get", "/v1/gates"): {
        "summary": "Release gates from the log (operator token)",
        "query": {"since": {"type": "string", "format": "date-time"}},
    },
    ("get", "/console"): {
        "summary": "The console (HTML page)",
        "public": True,
        "mime": "text/html",
    },
    ("get", "/console/console.js"): {
        "summary": "The console's script",
        "public": True,
        "mime": "text/javascript",
    },
    ("get", "/console/portal.js"): {
        "summary": "The console's portal view (script)",
        "public": True,
        "mime": "text/javascript",
    },
    ("get", "/console/views.js"): {
        "summary": "The console's views and their addresses (script)",
        "public": True,
        "mime": "text/javascript",
    },
    ("get", "/portal/{tenantId}"): {
        "summary": "The portal page under the tenant's policy (frame-ancestors, logo origin)",
        "public": True,
        "mime": "text/html",
    },
    ("get", "/console/console.css"): {
        "summary": "The console's style sheet",
        "public": True,
        "mime": "text/css",
    },
    ("post", "/v1/receipts"): {
        "summary": "Submit a signed applicationReceipt.v1",
        "public": True,
        "rawBody": True,
    },
    ("post", "/v1/keys/rotate"): {"summary": "Rotate the engine signing key"},
    ("post", "/v1/rollouts"): {
        "summary": "Start a rollout of a signing change at SHADOW (operator token)",
        "body": "RolloutCreate",
        "status": 201,
    },
    ("get", "/v1/rollouts"): {
        "summary": "Rollouts, oldest first (operator token; paged)",
        "paged": True,
    },
    ("get", "/v1/rollouts/{id}"): {
        "summary": "A rollout: stage, percent, state, figures per stage (operator token)"
    },
    ("post", "/v1/rollouts/{id}/advance"): {
        "summary": "Advance: INTERNAL, CUTOVER with a growing percent, COMPLETE (operator token)",
        "body": "RolloutAdvance",
    },
    ("post", "/v1/rollouts/{id}/pause"): {"summary": "Pause a rollout (operator token)"},
    ("post", "/v1/rollouts/{id}/resume"): {"summary": "Resume a paused rollout (operator token)"},
    ("post", "/v1/rollouts/{id}/rollback"): {
        "summary": "Roll back while the previous key is ACTIVE or VERIFY_ONLY, else "
        "rollback_refused and PAUSED (operator token)"
    },
    ("get", "/.well-known/hookproof/jwks.json"): {
        "summary": "Public signing keys (JWKS)",
        "public": True,
    },
    ("get", "/healthz"): {"summary": "Liveness", "public": True},
    ("get", "/readyz"): {
        "summary": "Readiness (database reachable, schema current)",
        "public": True,
    },
    ("get", "/openapi.json"): {"summary": "This document", "public": True},
    ("get", "/metrics"): {
        "summary": "Prometheus metrics (HOOKPROOF_METRICS_TOKEN or the operator token)",
        "text": True,
    },
}


def _registered(app: web.Application) -> set[tuple[str, str]]:
    out = set()
    for route in app.router.routes():
        info = route.resource.get_info() if route.resource else {}
        path = info.get("path") or info.get("formatter")
        if path and route.method != "HEAD":
            out.add((route.method.lower(), path))
    return out


def openapi_document(app: web.Application | None = None) -> dict[str, Any]:
    """Only operations the running app actually routes are described."""
    _, components = msgspec.json.schema_components(
        _REQUEST_TYPES + _RESPONSE_TYPES, ref_template="#/components/schemas/{name}"
    )
    components["Problem"] = _PROBLEM
    live = _registered(app) if app is not None else set(OPERATIONS)
    paths: dict[str, Any] = {}
    for (method, path), op in OPERATIONS.items():
        if (method, path) not in live:
            continue
        params: list[dict[str, Any]] = [
            {
                "name": name,
                "in": "path",
                "required": True,
                "schema": {"type": "string", "pattern": "^[A-Za-z0-9_.:-]{1,100}$"},
            }
            for name in ("id", "eventId", "topic")
            if "{" + name + "}" in path
        ]
        required = set(op.get("requiredQuery", ()))
        params += [
            {"name": name, "in": "query", "required": name in required, "schema": schema}
            for name, schema in op.get("query", {}).items()
        ]
        if op.get("paged"):
            params += [
                {"name": "limit", "in": "query", "schema": {"type": "integer", "minimum": 1}},
                {"name": "cursor", "in": "query", "schema": {"type": "string"}},
            ]
        if op.get("ifMatch"):
            params.append(
                {"name": "If-Match", "in": "header", "required": True, "schema": {"type": "string"}}
            )
        problem = {
            "description": "Problem",
            "content": {
                "application/problem+json": {"schema": {"$ref": "#/components/schemas/Problem"}}
            },
        }
        mime = op.get("mime") or ("text/plain" if op.get("text") else None)
        ok_schema = (
            {"$ref": f"#/components/schemas/{op['response']}"}
            if "response" in op
            else {"type": "object"}
        )
        ok_content = (
            {mime: {"schema": {"type": "string"}}}
            if mime
            else {"application/json": {"schema": ok_schema}}
        )
        entry: dict[str, Any] = {
            "summary": op["summary"],
            "operationId": method + "_" + re.sub(r"[^A-Za-z0-9]+", "_", path).strip("_"),
            "parameters": params,
            "responses": {
                str(op.get("status", 200)): {"description": "Success", "content": ok_content},
                "400": problem,
                "401": problem,
                "404": problem,
                "409": problem,
                "403": problem,
                "412": problem,
                "413": problem,
                "422": problem,
            },
        }
        if not op.get("public"):
            entry["security"] = [{"bearer": []}]
        if "body" in op or op.get("rawBody"):  # a body read too slowly, or in another coding
            entry["responses"]["408"] = problem
            entry["responses"]["415"] = problem
        if "body" in op:
            entry["requestBody"] = {
                "required": not op.get("optionalBody"),
                "content": {
                    "application/json": {"schema": {"$ref": f"#/components/schemas/{op['body']}"}}
                },
            }
        elif op.get("rawBody"):
            entry["requestBody"] = {
                "required": True,
                "content": {"application/json": {"schema": {"type": "object"}}},
            }
        paths.setdefault(path, {})[method] = entry
    return {
        "openapi": "3.1.0",
        "info": {"title": "hookproof", "version": "0.1.0"},
        "paths": paths,
        "components": {
            "schemas": components,
            "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}},
        },
    }
