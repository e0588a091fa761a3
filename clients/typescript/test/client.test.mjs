// The client against a real loopback HTTP server (no mocked transport): retries keep one
// eventId and one body, problems are typed, pages are followed, 204 is empty.
import assert from "node:assert/strict";
import { test } from "node:test";

import { HookproofClient, HookproofNetworkError, HookproofProblem, PayloadConflict } from "../dist/index.js";
import { accepted, cut, json, problem, scriptedServer } from "./helpers.mjs";

const fast = { retries: 4, initialDelayMs: 5, maxDelayMs: 20 };

function client(baseUrl, extra = {}) {
  return new HookproofClient({ baseUrl, token: "tok-123", retry: fast, ...extra });
}

test("publish retries a cut connection and a 503 with the same eventId and the same bytes", async () => {
  const srv = await scriptedServer([
    cut(),
    problem(503, "database_unavailable", "The event store is unavailable"),
    (req, res, body) => accepted(body)(req, res),
  ]);
  try {
    const out = await client(srv.baseUrl).publish("invoice.paid", { amount: 1200 });
    assert.equal(srv.requests.length, 3);
    const ids = srv.requests.map((r) => r.body.eventId);
    assert.match(ids[0], /^evt_[0-9a-f-]{36}$/);
    assert.deepEqual(new Set(ids).size, 1);
    assert.equal(new Set(srv.requests.map((r) => r.raw)).size, 1, "every try sends the same body");
    assert.equal(out.eventId, ids[0]);
    const first = srv.requests[0];
    assert.equal(first.method, "POST");
    assert.equal(first.url, "/v1/events");
    assert.equal(first.headers.authorization, "Bearer tok-123");
    assert.equal(first.body.topic, "invoice.paid");
    assert.deepEqual(first.body.payload, { amount: 1200 });
    assert.equal(first.body.version, "1.0");
    assert.equal(first.body.aggregateId, ids[0]);
    assert.equal(first.body.aggregateVersion, 1);
    // none pinned, none sent: the engine records the time, so a repost is the same event
    assert.equal(first.body.occurredAt, undefined);
  } finally {
    await srv.close();
  }
});

test("publish keeps a caller's eventId and gives up after the retries with a network error", async () => {
  const srv = await scriptedServer([cut()]);
  try {
    const c = client(srv.baseUrl, { retry: { retries: 2, initialDelayMs: 1, maxDelayMs: 2 } });
    await assert.rejects(c.publish("t", {}, { eventId: "evt-fixed" }), (err) => {
      assert.ok(err instanceof HookproofNetworkError);
      assert.equal(err.attempts, 3);
      return true;
    });
    assert.deepEqual(
      srv.requests.map((r) => r.body.eventId),
      ["evt-fixed", "evt-fixed", "evt-fixed"],
    );
  } finally {
    await srv.close();
  }
});

test("a 503 on every try ends in its typed problem; Retry-After is honoured", async () => {
  const srv = await scriptedServer([problem(503, "database_unavailable", "Unavailable", undefined, { "Retry-After": "0" })]);
  try {
    const c = client(srv.baseUrl, { retry: { retries: 1, initialDelayMs: 1, maxDelayMs: 50 } });
    await assert.rejects(c.publish("t", {}), (err) => {
      assert.ok(err instanceof HookproofProblem);
      assert.equal(err.status, 503);
      assert.equal(err.code, "database_unavailable");
      return true;
    });
    assert.equal(srv.requests.length, 2);
  } finally {
    await srv.close();
  }
});

test("a conflict is a typed problem and is not retried", async () => {
  const srv = await scriptedServer([
    problem(409, "event_payload_conflict", "Event id reused with another payload", "evt-1 was accepted with another payload"),
  ]);
  try {
    await assert.rejects(client(srv.baseUrl).publish("t", { a: 2 }, { eventId: "evt-1" }), (err) => {
      assert.ok(err instanceof HookproofProblem);
      assert.ok(err instanceof Error);
      assert.ok(err instanceof PayloadConflict);
      assert.equal(err.name, "PayloadConflict");
      assert.equal(err.status, 409);
      assert.equal(err.code, "event_payload_conflict");
      assert.equal(err.title, "Event id reused with another payload");
      assert.equal(err.detail, "evt-1 was accepted with another payload");
      assert.equal(err.type, "https://hookproof.dev/problems/event_payload_conflict");
      assert.match(err.message, /^409 event_payload_conflict: /);
      return true;
    });
    assert.equal(srv.requests.length, 1);
  } finally {
    await srv.close();
  }
});

test("an answer that is not problem+json still becomes a problem with code http_<status>", async () => {
  const srv = await scriptedServer([
    (_req, res) => {
      res.writeHead(502, { "Content-Type": "text/plain" });
      res.end("bad gateway from a proxy");
    },
  ]);
  try {
    await assert.rejects(client(srv.baseUrl).getDelivery("dlv_" + "1".repeat(28)), (err) => {
      assert.ok(err instanceof HookproofProblem);
      assert.equal(err.status, 502);
      assert.equal(err.code, "http_502");
      assert.equal(err.detail, "bad gateway from a proxy");
      return true;
    });
  } finally {
    await srv.close();
  }
});

test("publishBatch fixes every id before the first try and resends the same batch", async () => {
  const srv = await scriptedServer([
    cut(),
    (_req, res, body) =>
      json(200, { results: body.events.map((e) => ({ eventId: e.eventId, status: 202, created: true, deliveries: [], payloadDigest: "x" })) })(_req, res),
  ]);
  try {
    const out = await client(srv.baseUrl).publishBatch([
      { eventType: "a", payload: { n: 1 } },
      { eventType: "b", payload: { n: 2 }, eventId: "evt-b", consumerId: "cust-1" },
    ]);
    assert.equal(srv.requests.length, 2);
    assert.equal(srv.requests[0].url, "/v1/events/batch");
    assert.equal(srv.requests[0].raw, srv.requests[1].raw);
    const [a, b] = srv.requests[0].body.events;
    assert.match(a.eventId, /^evt_/);
    assert.equal(b.eventId, "evt-b");
    assert.equal(b.consumerId, "cust-1");
    assert.equal("consumerId" in a, false);
    assert.deepEqual(out.results.map((r) => r.eventId), [a.eventId, "evt-b"]);
  } finally {
    await srv.close();
  }
});

test("deliveries() follows nextCursor across pages and passes the filters", async () => {
  const item = (n) => ({ deliveryId: `dlv_${String(n).padStart(28, "0")}` });
  const srv = await scriptedServer([
    json(200, { items: [item(1), item(2)], nextCursor: "c1" }),
    json(200, { items: [item(3)], nextCursor: "c2" }),
    json(200, { items: [], nextCursor: null }),
  ]);
  try {
    const seen = [];
    for await (const d of client(srv.baseUrl).deliveries({ limit: 2, state: "DEAD_LETTER" })) seen.push(d.deliveryId);
    assert.deepEqual(seen, [item(1), item(2), item(3)].map((i) => i.deliveryId));
    const urls = srv.requests.map((r) => new URL(r.url, "http://x"));
    assert.deepEqual(urls.map((u) => u.searchParams.get("cursor")), [null, "c1", "c2"]);
    assert.ok(urls.every((u) => u.pathname === "/v1/deliveries"));
    assert.ok(urls.every((u) => u.searchParams.get("limit") === "2" && u.searchParams.get("state") === "DEAD_LETTER"));
  } finally {
    await srv.close();
  }
});

test("a list stops after the page the loop breaks on", async () => {
  const srv = await scriptedServer([json(200, { items: [{ deliveryId: "dlv_1" }, { deliveryId: "dlv_2" }], nextCursor: "more" })]);
  try {
    for await (const d of client(srv.baseUrl).deadLetters()) {
      assert.equal(d.deliveryId, "dlv_1");
      break;
    }
    assert.equal(srv.requests.length, 1);
    assert.equal(new URL(srv.requests[0].url, "http://x").pathname, "/v1/dead-letters");
  } finally {
    await srv.close();
  }
});

test("portal sessions: the link comes back, ending one is a 204 without a body", async () => {
  const started = {
    sessionId: "ps_" + "a".repeat(24),
    consumerId: "cust-42",
    capabilities: ["read"],
    token: "hpp_x",
    url: "http://127.0.0.1:1/console#portal=hpp_x",
    embedUrl: "http://127.0.0.1:1/portal/t1#portal=hpp_x",
    expiresAt: "2026-12-02T12:00:00Z",
  };
  const srv = await scriptedServer([
    json(201, started),
    (_req, res) => {
      res.writeHead(204);
      res.end();
    },
  ]);
  try {
    const c = client(srv.baseUrl);
    const link = await c.createPortalSession("cust-42", { ttlSeconds: 600, capabilities: ["read"] });
    assert.equal(link.embedUrl, started.embedUrl);
    assert.equal(link.url, started.url);
    assert.deepEqual(srv.requests[0].body, { ttlSeconds: 600, capabilities: ["read"] });
    assert.equal(srv.requests[0].url, "/v1/consumers/cust-42/portal-sessions");
    assert.equal(await c.endPortalSession(started.sessionId), undefined);
    assert.equal(srv.requests[1].method, "DELETE");
    assert.equal(srv.requests[1].url, `/v1/portal-sessions/${started.sessionId}`);
  } finally {
    await srv.close();
  }
});

test("a try without an answer is abandoned after timeoutMs and retried", async () => {
  const srv = await scriptedServer([
    () => {}, // never answers
    (req, res, body) => accepted(body)(req, res),
  ]);
  try {
    const out = await client(srv.baseUrl, { timeoutMs: 100 }).publish("t", { n: 1 }, { eventId: "evt-slow" });
    assert.equal(out.eventId, "evt-slow");
    assert.equal(srv.requests.length, 2);
  } finally {
    await srv.close();
  }
});

test("the constructor refuses a missing baseUrl or token", () => {
  assert.throws(() => new HookproofClient({ baseUrl: "", token: "t" }), TypeError);
  assert.throws(() => new HookproofClient({ baseUrl: "http://x", token: "" }), TypeError);
});

test("the caller's signal stops the retries of a publish", async () => {
  const srv = await scriptedServer([problem(503, "database_unavailable", "Unavailable")]);
  try {
    const c = client(srv.baseUrl, { retry: { retries: 50, initialDelayMs: 40, maxDelayMs: 40 } });
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error("caller gave up")), 150);
    await assert.rejects(c.publish("t", {}, { eventId: "evt-abort", signal: controller.signal }), /caller gave up/);
    // A try already on the wire when the abort fires may reach the server just after the
    // rejection: let it land, then count; a client that kept retrying (every 40 ms) would add
    // several more tries in the next 240 ms.
    await new Promise((r) => setTimeout(r, 60));
    const n = srv.requests.length;
    assert.ok(n >= 1 && n < 50, `tries before the abort: ${n}`);
    await new Promise((r) => setTimeout(r, 240));
    assert.equal(srv.requests.length, n, "no try after the abort");
  } finally {
    await srv.close();
  }
});

test("a Retry-After in seconds sets the wait, capped by maxDelayMs", async () => {
  const srv = await scriptedServer([
    problem(503, "database_unavailable", "Unavailable", undefined, { "Retry-After": "60" }),
    (req, res, body) => accepted(body)(req, res),
  ]);
  try {
    const c = client(srv.baseUrl, { retry: { retries: 1, initialDelayMs: 0, maxDelayMs: 200 } });
    const t0 = Date.now();
    await c.publish("t", {}, { eventId: "evt-ra" });
    const waited = Date.now() - t0;
    // initialDelayMs 0 would not wait at all: the wait is Retry-After's, cut to maxDelayMs
    assert.ok(waited >= 180, `waited ${waited} ms (Retry-After 60 s capped at 200 ms)`);
    assert.ok(waited < 30_000, `waited ${waited} ms: the cap was not applied`);
  } finally {
    await srv.close();
  }
});
