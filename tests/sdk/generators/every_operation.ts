// Every operation of /openapi.json, called as a user of openapi-typescript and openapi-fetch
// writes it: compiled by tests/sdk/test_generators.py (tsc --strict) beside the scenario, never
// run. A call the types refuse (a parameter, a body member, an answer's field) fails the build.
import type { Client } from "openapi-fetch";

import type { paths } from "./openapi.js";

const SUB = "sub_" + "0".repeat(24);
const DLV = "dlv_" + "0".repeat(28);

export async function everyOperation(api: Client<paths>): Promise<unknown[]> {
  const id = { params: { path: { id: SUB } } };
  const at = "2026-12-01T00:00:00Z";
  return [
    // the engine, public
    await api.GET("/.well-known/hookproof/jwks.json"),
    await api.GET("/console"),
    await api.GET("/console/console.css"),
    await api.GET("/console/console.js"),
    await api.GET("/console/portal.js"),
    await api.GET("/console/verify"),
    await api.GET("/console/views.js"),
    await api.GET("/healthz"),
    await api.GET("/readyz"),
    await api.GET("/metrics"),
    await api.GET("/openapi.json"),
    await api.GET("/portal/{tenantId}", { params: { path: { tenantId: "ten_1" } } }),
    await api.GET("/v1/whoami"),
    // events
    await api.POST("/v1/events", {
      body: { eventId: "evt-1", topic: "order.created", version: "1.0", aggregateId: "a", aggregateVersion: 1, payload: {} },
    }),
    await api.POST("/v1/events/batch", {
      body: { events: [{ eventId: "evt-2", topic: "t", version: "1.0", aggregateId: "a", aggregateVersion: 2, payload: null }] },
    }),
    (await api.GET("/v1/events/{eventId}", { params: { path: { eventId: "evt-1" } } })).data?.eventId,
    // the catalogue
    await api.PUT("/v1/event-types/{topic}", {
      params: { path: { topic: "order.created" } },
      body: { description: "d", versions: { "1": { schema: { type: "object" }, example: {} } } },
    }),
    (await api.GET("/v1/event-types/{topic}", { params: { path: { topic: "order.created" } } })).data?.version,
    (await api.GET("/v1/event-types", { params: { query: { limit: 10 } } })).data?.nextCursor,
    await api.GET("/v1/event-types/openapi.json"),
    // consumers and portal sessions
    await api.POST("/v1/consumers", { body: { id: "c1", name: "C 1" } }),
    (await api.GET("/v1/consumers", { params: { query: { limit: 1 } } })).data?.items,
    (await api.GET("/v1/consumers/{id}", { params: { path: { id: "c1" } } })).data?.state,
    await api.PATCH("/v1/consumers/{id}", { params: { path: { id: "c1" } }, body: { name: "C one" } }),
    await api.POST("/v1/consumers/{id}/disable", { params: { path: { id: "c1" } }, body: { reason: "gone" } }),
    (await api.POST("/v1/consumers/{id}/portal-sessions", { params: { path: { id: "c1" } }, body: {} })).data?.token,
    (await api.GET("/v1/consumers/{id}/portal-sessions", { params: { path: { id: "c1" } } })).data?.items,
    await api.DELETE("/v1/consumers/{id}/portal-sessions", { params: { path: { id: "c1" } } }),
    await api.DELETE("/v1/portal-sessions/{id}", { params: { path: { id: "ps_1" } } }),
    (await api.GET("/v1/portal/branding")).data?.displayName,
    await api.PUT("/v1/portal/branding", { body: { displayName: "Acme" } }),
    // subscriptions
    (
      await api.POST("/v1/subscriptions", {
        body: {
          endpoint: "https://hooks.example.com/h",
          topics: ["order.created"],
          eventVersions: [1],
          region: "eu",
          signatureAlgorithm: "ed25519",
          owner: "team",
        },
      })
    ).data?.id,
    (await api.GET("/v1/subscriptions", { params: { query: { consumerId: "c1" } } })).data?.items,
    (await api.GET("/v1/subscriptions/{id}", id)).data?.generation,
    await api.PATCH("/v1/subscriptions/{id}", {
      params: { path: { id: SUB }, header: { "If-Match": '"1"' } },
      body: { topics: ["order.created"] },
    }),
    await api.POST("/v1/subscriptions/{id}/revoke", { ...id, body: { reason: "r" } }),
    await api.POST("/v1/subscriptions/{id}/suspend", { ...id, body: {} }),
    await api.POST("/v1/subscriptions/{id}/resume", id),
    await api.POST("/v1/subscriptions/{id}/challenge", id),
    await api.GET("/v1/subscriptions/{id}/history", id),
    await api.GET("/v1/subscriptions/{id}/timeline", { params: { path: { id: SUB }, query: { asOf: at } } }),
    await api.GET("/v1/subscriptions/{id}/attempt-stats", id),
    await api.GET("/v1/attempt-stats", { params: { query: { subscriptionId: [SUB] } } }),
    await api.POST("/v1/subscriptions/{id}/recover", { ...id, body: { since: at } }),
    await api.POST("/v1/subscriptions/{id}/secret/rotate", id),
    await api.POST("/v1/subscriptions/{id}/test-events", { ...id, body: {} }),
    // deliveries
    (await api.GET("/v1/deliveries", { params: { query: { state: "DEAD_LETTER", since: at } } })).data?.items,
    (await api.GET("/v1/deliveries/{id}", { params: { path: { id: DLV } } })).data?.attempts,
    await api.GET("/v1/deliveries/{id}/timeline", { params: { path: { id: DLV } } }),
    await api.POST("/v1/deliveries/{id}/replay", { params: { path: { id: DLV } } }),
    await api.POST("/v1/deliveries/{id}/skip", { params: { path: { id: DLV } } }),
    (await api.GET("/v1/dead-letters")).data?.items,
    // what a subscriber sends
    await api.POST("/v1/challenges/{challengeId}/response", {
      params: { path: { challengeId: "chl_1" } },
      body: {
        type: "hookproof.challenge-response.v1",
        challengeId: "chl_1",
        nonce: "n",
        subscriptionId: SUB,
        generation: 1,
        endpointDigest: "0".repeat(64),
        expiresAt: at,
        keyId: "k1",
      },
    }),
    await api.POST("/v1/receipts", {
      body: {
        type: "applicationReceipt.v1",
        eventId: "evt-1",
        deliveryId: DLV,
        subscriptionId: SUB,
        operationId: "op-1",
        result: "applied",
        appliedAt: at,
        payloadDigest: "sha-256=:AAAA:",
        receiptKeyGeneration: 1,
      },
    }),
    await api.GET("/v1/relay/{id}", id),
    // search, replays and filters
    (await api.POST("/v1/deliveries/search", { body: { state: "DEAD_LETTER", limit: 10 } })).data?.nextCursor,
    (await api.POST("/v1/events/search", { body: { filters: [{ prefix: { type: "order." } }] } })).data?.nextCursor,
    await api.POST("/v1/filters/evaluate", {
      body: {
        filters: [{ exact: { type: "order.created" } }],
        event: { eventId: "evt-1", topic: "order.created", version: "1.0", aggregateId: "a", aggregateVersion: 1, payload: {} },
      },
    }),
    await api.POST("/v1/replays", { body: { state: "DEAD_LETTER", dryRun: true } }),
    await api.GET("/v1/replays/{id}", { params: { path: { id: "rpl_1" } } }),
    await api.POST("/v1/replays/{id}/cancel", { params: { path: { id: "rpl_1" } } }),
    // the operator's
    await api.POST("/v1/tenants", { body: { name: "acme" } }),
    await api.POST("/v1/keys/rotate"),
    await api.GET("/v1/gates", { params: { query: { since: at } } }),
    await api.POST("/v1/rollouts", { body: { subscriptions: "all", target: { signatureProfile: "standard-webhooks.v1" } } }),
    await api.GET("/v1/rollouts"),
    await api.GET("/v1/rollouts/{id}", { params: { path: { id: "ro_1" } } }),
    await api.POST("/v1/rollouts/{id}/advance", { params: { path: { id: "ro_1" } }, body: { stage: "CUTOVER" } }),
    await api.POST("/v1/rollouts/{id}/pause", { params: { path: { id: "ro_1" } } }),
    await api.POST("/v1/rollouts/{id}/resume", { params: { path: { id: "ro_1" } } }),
    await api.POST("/v1/rollouts/{id}/rollback", { params: { path: { id: "ro_1" } } }),
  ];
}
