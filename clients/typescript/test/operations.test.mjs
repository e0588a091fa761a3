// The tenant operations beyond publishing, against a real loopback HTTP server: If-Match from the
// last ETag, typed problems per status, timelines and portal sessions across pages.
import assert from "node:assert/strict";
import { test } from "node:test";

import {
  Conflict,
  HookproofClient,
  HookproofProblem,
  InvalidRequest,
  NotFound,
  PayloadConflict,
  PreconditionFailed,
  RateLimited,
} from "../dist/index.js";
import { json, scriptedServer } from "./helpers.mjs";

const SUB = "sub_" + "a".repeat(24);

function client(baseUrl) {
  return new HookproofClient({ baseUrl, token: "tok-1", retry: { retries: 0 } });
}

function subscription(generation) {
  return json(200, { id: SUB, generation, state: "ACTIVE", topics: ["t"] }, { ETag: `"${generation}"` });
}

function problemWith(status, body) {
  return (_req, res) => {
    res.writeHead(status, { "Content-Type": "application/problem+json" });
    res.end(JSON.stringify({ type: `https://hookproof.dev/problems/${body.code}`, title: "t", status, ...body }));
  };
}

test("updateSubscription sends the ETag of the last answer as If-Match, and the new one next", async () => {
  const srv = await scriptedServer([subscription(3), subscription(4), subscription(5)]);
  try {
    const c = client(srv.baseUrl);
    await c.getSubscription(SUB);
    assert.equal(c.etag(SUB), '"3"');
    const changed = await c.updateSubscription(SUB, { topics: ["t", "u"] });
    assert.equal(changed.generation, 4);
    await c.updateSubscription(SUB, { topics: ["t"] });
    const [, first, second] = srv.requests;
    assert.equal(first.method, "PATCH");
    assert.equal(first.url, `/v1/subscriptions/${SUB}`);
    assert.equal(first.headers["if-match"], '"3"');
    assert.deepEqual(first.body, { topics: ["t", "u"] });
    assert.equal(second.headers["if-match"], '"4"');
    assert.equal(c.etag(SUB), '"5"');
  } finally {
    await srv.close();
  }
});

test("updateSubscription without an ETag seen reads the subscription first; ifMatch wins", async () => {
  const srv = await scriptedServer([subscription(7), subscription(8), subscription(9)]);
  try {
    const c = client(srv.baseUrl);
    await c.updateSubscription(SUB, { topics: ["t"] });
    assert.deepEqual(
      srv.requests.map((r) => [r.method, r.headers["if-match"]]),
      [
        ["GET", undefined],
        ["PATCH", '"7"'],
      ],
    );
    await c.updateSubscription(SUB, { topics: ["t"] }, { ifMatch: '"1"' });
    assert.equal(srv.requests[2].headers["if-match"], '"1"');
  } finally {
    await srv.close();
  }
});

test("each problem status is its typed subclass, carrying its code and members", async () => {
  const srv = await scriptedServer([
    problemWith(412, { code: "generation_mismatch", etag: '"6"', currentGeneration: 6 }),
    problemWith(404, { code: "subscription_not_found" }),
    problemWith(400, { code: "invalid_request", field: "topics" }),
    problemWith(409, { code: "event_payload_conflict", eventId: "evt-1", payloadDigest: "sha-256=:x:" }),
    problemWith(409, { code: "consumer_exists" }),
    problemWith(429, { code: "rate_limited", retryAfterS: 2 }),
  ]);
  try {
    const c = client(srv.baseUrl);
    const caught = async (p) => p.then(() => assert.fail("no problem"), (e) => e);
    const stale = await caught(c.updateSubscription(SUB, { topics: ["t"] }, { ifMatch: '"5"' }));
    assert.ok(stale instanceof PreconditionFailed && stale instanceof HookproofProblem);
    assert.equal(stale.code, "generation_mismatch");
    assert.equal(stale.etag, '"6"');
    assert.equal(stale.currentGeneration, 6);
    const missing = await caught(c.getSubscription(SUB));
    assert.ok(missing instanceof NotFound);
    assert.equal(missing.code, "subscription_not_found");
    const bad = await caught(c.getSubscription(SUB));
    assert.ok(bad instanceof InvalidRequest);
    assert.equal(bad.field, "topics");
    const conflict = await caught(c.publish("t", {}, { eventId: "evt-1" }));
    assert.ok(conflict instanceof PayloadConflict && conflict instanceof Conflict);
    assert.equal(conflict.payloadDigest, "sha-256=:x:");
    assert.equal(conflict.eventId, "evt-1");
    const exists = await caught(c.createConsumer({ id: "c", name: "c" }));
    assert.ok(exists instanceof Conflict && !(exists instanceof PayloadConflict));
    const limited = await caught(c.sendTestEvent(SUB));
    assert.ok(limited instanceof RateLimited);
    assert.equal(limited.retryAfterS, 2);
  } finally {
    await srv.close();
  }
});

test("timelines follow nextCursor over their entries; asOf is sent as RFC 3339", async () => {
  const srv = await scriptedServer([
    json(200, { kind: "delivery", id: "d", asOf: null, state: null, entries: [{ n: 1 }], nextCursor: "c1" }),
    json(200, { kind: "delivery", id: "d", asOf: null, state: null, entries: [{ n: 2 }], nextCursor: null }),
  ]);
  try {
    const out = [];
    const at = new Date("2026-12-01T00:00:00Z");
    for await (const e of client(srv.baseUrl).deliveryTimeline("dlv_1", { limit: 1, asOf: at })) out.push(e.n);
    assert.deepEqual(out, [1, 2]);
    assert.equal(srv.requests[0].url, "/v1/deliveries/dlv_1/timeline?limit=1&asOf=2026-12-01T00%3A00%3A00.000Z");
    assert.match(srv.requests[1].url, /cursor=c1/);
  } finally {
    await srv.close();
  }
});

test("recover, test events, branding and ending a consumer's portal sessions send their bodies", async () => {
  const srv = await scriptedServer([
    json(202, { recovered: 1, deliveryIds: ["dlv_1"] }),
    json(202, { eventId: "hookproof-test-1", payloadDigest: "d", deliveries: [], test: true }),
    json(200, { displayName: "Acme", logoUrl: null, accentColour: null, frameAncestors: [] }),
    json(200, { ended: 2 }),
  ]);
  try {
    const c = client(srv.baseUrl);
    assert.equal((await c.recover(SUB, { since: "2026-12-01T00:00:00Z", states: ["DEAD_LETTER"] })).recovered, 1);
    assert.equal((await c.sendTestEvent(SUB, { topic: "t" })).test, true);
    assert.equal((await c.setBranding({ displayName: "Acme" })).displayName, "Acme");
    assert.equal(await c.endPortalSessions("cust-1"), 2);
    assert.deepEqual(
      srv.requests.map((r) => [r.method, r.url, r.body]),
      [
        ["POST", `/v1/subscriptions/${SUB}/recover`, { since: "2026-12-01T00:00:00Z", states: ["DEAD_LETTER"] }],
        ["POST", `/v1/subscriptions/${SUB}/test-events`, { topic: "t" }],
        ["PUT", "/v1/portal/branding", { displayName: "Acme" }],
        ["DELETE", "/v1/consumers/cust-1/portal-sessions", undefined],
      ],
    );
  } finally {
    await srv.close();
  }
});
