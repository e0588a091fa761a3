"""The API's operations: one table (summary, request and response types, success status,
media types, links), read by ``openapi.py``. Parameters are ``params.QUERY``'s; request and
response schemas are the msgspec types' (``schemas.api``, ``schemas.api_out``)."""

from __future__ import annotations

from typing import Any

from hookproof.projections.ledger import LedgerState as S

__all__ = ["DELIVERY_LINKS", "EXAMPLES", "OPERATIONS", "SUBSCRIPTION_LINKS"]

#: a created subscription's id, to the operations on it (OpenAPI links)
SUBSCRIPTION_LINKS = {
    name: {"operationId": op, "parameters": {"id": "$response.body#/id"}}
    for name, op in (
        ("GetSubscription", "get_v1_subscriptions_id"),
        ("PatchSubscription", "patch_v1_subscriptions_id"),
        ("ChallengeSubscription", "post_v1_subscriptions_id_challenge"),
        ("SubscriptionHistory", "get_v1_subscriptions_id_history"),
    )
}
#: an accepted event's first delivery, to its read and its replay
DELIVERY_LINKS = {
    name: {"operationId": op, "parameters": {"id": "$response.body#/deliveries/0/deliveryId"}}
    for name, op in (
        ("GetDelivery", "get_v1_deliveries_id"),
        ("ReplayDelivery", "post_v1_deliveries_id_replay"),
    )
}

#: one request example per operation with a body (the others have no body to show)
EXAMPLES: dict[str, Any] = {
    "SubscriptionCreate": {
        "endpoint": "https://hooks.example.com/hookproof",
        "topics": ["invoice.paid"],
        "eventVersions": [1],
        "region": "eu",
        "signatureAlgorithm": "ed25519",
        "owner": "billing-team",
    },
    "SubscriptionPatch": {"topics": ["invoice.paid", "invoice.voided"]},
    "SubscriptionTransition": {"reason": "maintenance window"},
    "EventIn": {
        "eventId": "evt-2026-0001",
        "topic": "invoice.paid",
        "version": "1.0",
        "aggregateId": "inv-42",
        "aggregateVersion": 1,
        "occurredAt": "2026-12-02T06:00:00Z",
        "payload": {"invoiceId": "inv-42", "amount": 1200},
    },
    "EventTypeIn": {
        "description": "An invoice was paid",
        "versions": {"1": {"schema": {"type": "object"}, "example": {"invoiceId": "inv-42"}}},
    },
    "RecoverIn": {"since": "2026-12-01T00:00:00Z"},
    "SearchIn": {
        "filters": [{"match": {"data": {"customer": "c-42"}}}],
        "statusCode": 500,
        "since": "2026-12-01T00:00:00Z",
    },
    "ReplayIn": {
        "filters": [{"exact": {"type": "invoice.paid"}}],
        "state": S.DEAD_LETTER.value,
        "dryRun": True,
    },
    "FiltersEvaluate": {
        "filters": [{"exact": {"type": "invoice.paid"}}, {"sql": "subject LIKE 'inv-%'"}],
        "event": {
            "eventId": "evt-2026-0001",
            "topic": "invoice.paid",
            "version": "1.0",
            "aggregateId": "inv-42",
            "aggregateVersion": 1,
            "payload": {"amount": 1200},
        },
    },
    "ConsumerCreate": {"id": "acme-corp", "name": "Acme Corp"},
    "ConsumerPatch": {"name": "Acme Corporation"},
    "ConsumerDisable": {"reason": "contract ended"},
    "PortalSessionCreate": {"ttlSeconds": 900, "capabilities": ["read"]},
    "TenantCreate": {"name": "acme"},
    "RolloutCreate": {
        "target": {"signatureProfile": "standard-webhooks.v1"},
        "subscriptions": "all",
    },
    "RolloutAdvance": {"stage": "INTERNAL"},
}
EXAMPLES["EventBatchIn"] = {"events": [EXAMPLES["EventIn"]]}

#: (method, path) -> summary, body (request type), response (type), status, ifMatch, public,
#: mime (a success that is not JSON), links, document (a free-form JSON document: what it is)
OPERATIONS: dict[tuple[str, str], dict[str, Any]] = {
    ("post", "/v1/subscriptions"): {
        "summary": "Register a subscription",
        "body": "SubscriptionCreate",
        "status": 201,
        "response": "SubscriptionCreated",
        "headers": ("ETag", "Location"),
        "links": SUBSCRIPTION_LINKS,
    },
    ("get", "/v1/subscriptions"): {
        "summary": "List subscriptions (paged; one consumer's with consumerId)",
        "response": "SubscriptionPage",
    },
    ("get", "/v1/subscriptions/{id}"): {
        "summary": "Read a subscription (ETag: generation)",
        "response": "Subscription",
        "headers": ("ETag",),
    },
    ("patch", "/v1/subscriptions/{id}"): {
        "summary": "Change a subscription (If-Match)",
        "body": "SubscriptionPatch",
        "ifMatch": True,
        "response": "Subscription",
        "headers": ("ETag",),
    },
    ("post", "/v1/subscriptions/{id}/revoke"): {
        "summary": "Revoke (raises the generation)",
        "body": "SubscriptionTransition",
        "optionalBody": True,
        "response": "Subscription",
        "headers": ("ETag",),
    },
    ("post", "/v1/subscriptions/{id}/suspend"): {
        "summary": "Suspend",
        "body": "SubscriptionTransition",
        "optionalBody": True,
        "response": "Subscription",
        "headers": ("ETag",),
    },
    ("post", "/v1/subscriptions/{id}/resume"): {
        "summary": "Resume (through a new challenge)",
        "body": "SubscriptionTransition",
        "optionalBody": True,
        "response": "Subscription",
        "headers": ("ETag",),
    },
    ("post", "/v1/subscriptions/{id}/challenge"): {
        "summary": "Challenge the endpoint now",
        "response": "SubscriptionChallenged",
        "headers": ("ETag",),
    },
    ("get", "/v1/subscriptions/{id}/history"): {
        "summary": "The subscription's events, in order (paged)",
        "response": "HistoryPage",
    },
    ("post", "/v1/subscriptions/{id}/secret/rotate"): {
        "summary": "Rotate the shared secret (shown once)",
        "status": 201,
        "response": "SecretRotated",
    },
    ("post", "/v1/subscriptions/{id}/recover"): {
        "summary": "Recover deliveries by time range (back to RETRYABLE, same ids)",
        "body": "RecoverIn",
        "status": 202,
        "response": "Recovered",
    },
    ("post", "/v1/deliveries/search"): {
        "summary": "Search deliveries: filters (the subscriptions' dialects) over the event, "
        "and the delivery's subscription, consumer, state, evidence, status and reason code "
        "(paged, newest first; search_too_broad past its scan budget)",
        "body": "SearchIn",
        "response": "DeliverySearchPage",
    },
    ("post", "/v1/events/search"): {
        "summary": "Search events: filters over the event, and conditions on its deliveries "
        "(paged, newest first; search_too_broad past its scan budget)",
        "body": "SearchIn",
        "response": "EventSearchPage",
    },
    ("post", "/v1/replays"): {
        "summary": "Replay every delivery a search finds, as a job at ratePerSecond "
        "(dryRun: 200 with the count and a sample)",
        "body": "ReplayIn",
        "status": 202,
        "response": "ReplayView",
        "otherSuccess": {200: "ReplayDryRun"},
    },
    ("get", "/v1/replays/{id}"): {
        "summary": "A replay job: state and progress",
        "response": "ReplayView",
    },
    ("post", "/v1/replays/{id}/cancel"): {
        "summary": "Cancel a running replay: the deliveries it had not reached stay untouched",
        "response": "ReplayView",
    },
    ("get", "/v1/subscriptions/{id}/attempt-stats"): {
        "summary": "Attempts of the last 24 hours by hour and outcome, with latency p50/p90/p99 "
        "per hour and over the window (the console's chart; kept by the projector, at most "
        "HOOKPROOF_STATS_INTERVAL_S behind)",
        "response": "AttemptStats",
    },
    ("get", "/v1/attempt-stats"): {
        "summary": "attempt-stats of up to 100 of the caller's subscriptions in one call "
        "(subscriptionId repeated; any id not the caller's: 404 subscription_not_found; "
        "window 24h|7d, interval hour|day: buckets per hour or per UTC day, each with its "
        "latency percentiles)",
        "response": "AttemptStatsBatch",
    },
    ("post", "/v1/challenges/{challengeId}/response"): {
        "summary": "Answer a broker destination's challenge (hookproof.challenge-response.v1; "
        "no token: the nonce and proof authenticate it; at most 8 KiB)",
        "public": True,
        "rawBody": "challenge-response.v1.schema.json",
        "status": 200,
        "response": "ChallengeAnswered",
        "refusals": (409,),
    },
    ("get", "/v1/relay/{id}"): {
        "summary": "The relay session of a subscription with destination {type: relay}, as a "
        "WebSocket (hookproof listen; the tenant's or its consumer's portal token; another "
        "caller gets 404; a second attach replaces the first, closed with 4409)",
        "status": 101,
        "websocket": True,
        "refusals": (409,),  # not_a_relay, subscription_closed
    },
    ("post", "/v1/filters/evaluate"): {
        "summary": "Try a filters array on one event (a hookproof event or a CloudEvent): each"
        " expression's value or error kind, whether all held, the digest; nothing is stored",
        "body": "FiltersEvaluate",
        "response": "FiltersEvaluated",
    },
    ("post", "/v1/events"): {
        "summary": "Ingest a business event (planned for no subscription: deliveries [] and"
        " reasons, one per cause: reason, detail, subscriptions)",
        "body": "EventIn",
        "status": 202,
        "response": "EventAccepted",
        "links": DELIVERY_LINKS,
        # the CloudEvents HTTP binding (schemas/cloudevents.md)
        # other media types of the body, described beside the content map: openapi-python-client
        # 0.29 cannot generate several bodies of one operation (an undefined Unset, and an
        # isinstance against list[...]), and the binary mode is headers no schema can show;
        # the batch mode's 200 is here too
        "bodyExtension": {
            "x-cloudevents": {
                "application/cloudevents+json": {"$ref": "#/components/schemas/CloudEventIn"},
                "application/cloudevents-batch+json": {
                    "type": "array",
                    "maxItems": 1000,
                    "items": {"$ref": "#/components/schemas/CloudEventIn"},
                },
                "binary": "the attributes as ce-<name> headers (percent-encoded), the data "
                "as the body, its Content-Type the datacontenttype (a JSON media type)",
                # not a second success in responses: the generated clients would type every
                # publish as either answer
                "batchAnswer": {
                    "status": 200,
                    "schema": {"$ref": "#/components/schemas/EventBatchResults"},
                },
            }
        },
        "bodyDescription": "A plain event (application/json); a CloudEvent 1.0 in structured "
        "mode (application/cloudevents+json) or binary mode (ce-specversion, ce-id, ce-source, "
        "ce-type, ce-time... headers, percent-encoded, with the data as a JSON body); or a "
        "CloudEvents batch (application/cloudevents-batch+json), answered 200 as "
        "POST /v1/events/batch answers. A refused CloudEvent: 400 cloudevent_invalid or "
        "cloudevent_unsupported with the attribute named (member attribute).",
    },
    ("post", "/v1/events/batch"): {
        "summary": "Ingest up to 1,000 events; one result per event, in order (202, 409 or 400)",
        "body": "EventBatchIn",
        "status": 200,
        "response": "EventBatchResults",
    },
    ("get", "/v1/events/{eventId}"): {
        "summary": "An event and its deliveries",
        "response": "EventView",
    },
    ("put", "/v1/event-types/{topic}"): {
        "summary": "Define an event type: JSON Schema 2020-12 and an example per major version "
        "(If-Match: version, optional)",
        "body": "EventTypeIn",
        "ifMatch": "optional",
        "response": "EventType",
        "headers": ("ETag",),
    },
    ("get", "/v1/event-types/{topic}"): {
        "summary": "An event type (ETag: version)",
        "response": "EventType",
        "headers": ("ETag",),
    },
    ("get", "/v1/event-types"): {
        "summary": "The event catalogue, by topic (paged)",
        "response": "EventTypePage",
    },
    ("get", "/v1/event-types/openapi.json"): {
        "summary": "The catalogue as OpenAPI 3.1: one webhooks entry per (topic, major version)",
        "document": "an OpenAPI 3.1 document (its own format: any JSON object)",
    },
    ("get", "/v1/deliveries/{id}"): {
        "summary": "A delivery: state, evidence, attempts (each with its outcome, status, code, "
        "bodyTruncated: the answer's body ended with the connection, without TLS "
        "close_notify; request: what was sent, signatures redacted; response: what came "
        "back) and requestBody (the event's canonical body, once)",
        "response": "Delivery",
    },
    ("post", "/v1/deliveries/{id}/replay"): {
        "summary": "Replay a delivery (new attempt, same identity)",
        "status": 202,
        "response": "Delivery",
    },
    ("post", "/v1/deliveries/{id}/skip"): {
        "summary": "Give a dead letter up: it releases its aggregate (ordered delivery)",
        "response": "Delivery",
    },
    ("get", "/v1/dead-letters"): {
        "summary": "Dead letters with their owners (paged)",
        "response": "DeadLetterPage",
    },
    ("get", "/v1/deliveries"): {
        "summary": "The delivery log, newest first: filtered, searched, paged",
        "response": "DeliveryLogPage",
    },
    ("post", "/v1/subscriptions/{id}/test-events"): {
        "summary": "Send the catalogue's example to this endpoint as a test event",
        "body": "TestEventIn",
        "status": 202,
        "response": "TestEventSent",
        "refusals": (429,),
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
    ("get", "/v1/deliveries/{id}/timeline"): {
        "summary": "A delivery's timeline from the log (optionally as of a time; paged)",
        "response": "Timeline",
    },
    ("get", "/v1/subscriptions/{id}/timeline"): {
        "summary": "A subscription's timeline from the log (optionally as of a time; paged)",
        "response": "Timeline",
    },
    ("get", "/v1/whoami"): {
        "summary": "Whose token this is: a tenant, the operator or a portal session",
        "response": "Whoami",
    },
    ("post", "/v1/consumers"): {
        "summary": "Create a consumer (one of the tenant's own customers)",
        "body": "ConsumerCreate",
        "status": 201,
        "response": "Consumer",
        "headers": ("Location",),
    },
    ("get", "/v1/consumers"): {"summary": "List consumers (paged)", "response": "ConsumerPage"},
    ("get", "/v1/consumers/{id}"): {"summary": "Read a consumer", "response": "Consumer"},
    ("patch", "/v1/consumers/{id}"): {
        "summary": "Change a consumer's name or metadata",
        "body": "ConsumerPatch",
        "response": "Consumer",
    },
    ("post", "/v1/consumers/{id}/disable"): {
        "summary": "Disable a consumer: nothing new is planned for it; its portal sessions end",
        "body": "ConsumerDisable",
        "optionalBody": True,
        "response": "Consumer",
    },
    ("post", "/v1/consumers/{id}/portal-sessions"): {
        "summary": "Start a portal session for a consumer (token and console link, once)",
        "body": "PortalSessionCreate",
        "optionalBody": True,
        "status": 201,
        "response": "PortalSessionStarted",
        "headers": ("Location",),
    },
    ("get", "/v1/consumers/{id}/portal-sessions"): {
        "summary": "A consumer's live portal sessions, oldest first (paged; id, capabilities, "
        "creator, createdAt, expiresAt; never a token)",
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
        "response": "TenantCreated",
    },
    ("get", "/v1/gates"): {
        "summary": "Release gates from the log (operator token)",
        "response": "GateReport",
    },
    ("get", "/console"): {
        "summary": "The console (HTML page)",
        "public": True,
        "mime": "text/html",
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
    ("get", "/console/console.css"): {
        "summary": "The console's style sheet",
        "public": True,
        "mime": "text/css",
    },
    ("get", "/console/verify"): {
        "summary": "How to verify a webhook's signature (HTML page, linked from the portal)",
        "public": True,
        "mime": "text/html",
    },
    ("post", "/v1/receipts"): {
        "summary": "Submit a signed applicationReceipt.v1",
        "public": True,
        "rawBody": True,
        "status": 201,
        "also": [200],
        "response": "ReceiptConfirmed",
        # receipts.decide.REASONS' statuses (compared by tests/subscriptions/
        # test_openapi_contract.py; importing it here would close an import circle)
        "refusals": [400, 401, 404, 409, 413, 422],
    },
    ("post", "/v1/keys/rotate"): {
        "summary": "Rotate the engine signing key",
        "response": "EngineKeyRotated",
    },
    ("post", "/v1/rollouts"): {
        "summary": "Start a rollout of a signing change at SHADOW (operator token)",
        "body": "RolloutCreate",
        "status": 201,
        "response": "Rollout",
    },
    ("get", "/v1/rollouts"): {
        "summary": "Rollouts, oldest first (operator token; paged)",
        "response": "RolloutPage",
    },
    ("get", "/v1/rollouts/{id}"): {
        "summary": "A rollout: stage, percent, state, figures per stage (operator token)",
        "response": "Rollout",
    },
    ("post", "/v1/rollouts/{id}/advance"): {
        "summary": "Advance: INTERNAL, CUTOVER with a growing percent, COMPLETE (operator token)",
        "body": "RolloutAdvance",
        "response": "Rollout",
    },
    ("post", "/v1/rollouts/{id}/pause"): {
        "summary": "Pause a rollout (operator token)",
        "response": "Rollout",
    },
    ("post", "/v1/rollouts/{id}/resume"): {
        "summary": "Resume a paused rollout (operator token)",
        "response": "Rollout",
    },
    ("post", "/v1/rollouts/{id}/rollback"): {
        "summary": "Roll back while the previous key is ACTIVE or VERIFY_ONLY, else "
        "rollback_refused and PAUSED (operator token)",
        "response": "Rollout",
    },
    ("get", "/.well-known/hookproof/jwks.json"): {
        "summary": "Public signing keys (JWKS)",
        "public": True,
        "response": "Jwks",
        "headers": ("ETag", "Cache-Control"),
        "mime": "application/jwk-set+json",
    },
    ("get", "/healthz"): {"summary": "Liveness", "public": True, "response": "Health"},
    ("get", "/readyz"): {
        "summary": "Readiness (database reachable, schema current, master key right)",
        "public": True,
        "response": "Readiness",
    },
    ("get", "/openapi.json"): {
        "summary": "This document",
        "public": True,
        "document": "this OpenAPI 3.1 document (its own format: any JSON object)",
    },
    ("get", "/metrics"): {
        "summary": "Prometheus metrics (HOOKPROOF_METRICS_TOKEN or the operator token)",
        "text": True,
    },
}
