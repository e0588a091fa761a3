// A sender built only on hookproof-client, run against a real engine by
// tests/sdk/test_typescript_client.py (issue 49's sender scenario). Input (environment):
// HOOKPROOF_URL, HOOKPROOF_TOKEN, OK_ENDPOINT (a receiver that accepts), FLAKY_ENDPOINT and
// LOST_ENDPOINT (each refuses its first delivery, accepts the next). Output: one JSON line with
// what it saw; a failure prints {"error": ...} and exits 1.
import { HookproofClient, HookproofProblem } from "../dist/index.js";

const env = (name) => {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is not set`);
  return v;
};
const baseUrl = env("HOOKPROOF_URL");
const client = new HookproofClient({ baseUrl, token: env("HOOKPROOF_TOKEN"), retry: { initialDelayMs: 50 } });
const CONSUMER = "cust-42";
const report = {};

async function until(what, probe, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function collect(iterable) {
  const out = [];
  for await (const x of iterable) out.push(x);
  return out;
}

async function problemOf(promise) {
  try {
    await promise;
  } catch (err) {
    if (!(err instanceof HookproofProblem)) throw err;
    return {
      name: err.name,
      status: err.status,
      code: err.code,
      title: err.title,
      detail: err.detail ?? null,
      field: err.field ?? null,
      etag: err.etag ?? null,
      currentGeneration: err.currentGeneration ?? null,
      payloadDigest: err.payloadDigest ?? null,
    };
  }
  throw new Error("expected a problem, the call succeeded");
}

async function main() {
  // 1. a consumer, an event type, two subscriptions of that consumer
  const consumer = await client.createConsumer({ id: CONSUMER, name: "Customer 42", metadata: { plan: "pro" } });
  report.consumer = { id: consumer.id, state: consumer.state };
  const eventType = await client.putEventType("order.created", {
    description: "An order was created",
    versions: {
      1: {
        schema: { type: "object", required: ["orderId"], properties: { orderId: { type: "string" } } },
        example: { orderId: "o-example" },
      },
    },
  });
  report.eventType = eventType;
  const common = {
    eventVersions: [1],
    region: "eu",
    signatureAlgorithm: "ed25519",
    owner: "team-orders",
    consumerId: CONSUMER,
  };
  const ok = await client.createSubscription({
    ...common,
    endpoint: env("OK_ENDPOINT"),
    topics: ["order.created"],
    retryPolicy: { initialDelayS: 0.2, maxDelayS: 1, maxAttempts: 8 },
  });
  // one try only: the receiver's first refusal makes a dead letter
  const flaky = await client.createSubscription({
    ...common,
    endpoint: env("FLAKY_ENDPOINT"),
    topics: ["order.failed"],
    retryPolicy: { initialDelayS: 0.1, maxDelayS: 0.1, maxAttempts: 1 },
  });
  const lost = await client.createSubscription({
    ...common,
    endpoint: env("LOST_ENDPOINT"),
    topics: ["order.lost"],
    retryPolicy: { initialDelayS: 0.1, maxDelayS: 0.1, maxAttempts: 1 },
  });
  const active = (id) => until(`${id} ACTIVE`, async () => (await client.getSubscription(id)).state === "ACTIVE");
  for (const sub of [ok, flaky, lost]) await active(sub.id);
  report.subscriptions = { ok: ok.id, flaky: flaky.id, lost: lost.id };
  report.whoami = await client.whoami();
  report.eventTypes = {
    one: (await client.getEventType("order.created")).topic,
    all: (await collect(client.eventTypes({ limit: 1 }))).map((t) => t.topic),
  };
  const renamed = await client.updateConsumer(CONSUMER, { name: "Customer 42b", metadata: { plan: "max" } });
  report.consumerRenamed = { name: renamed.name, metadata: (await client.getConsumer(CONSUMER)).metadata };

  // 1b. PATCH with If-Match from the last ETag; another client's stale one is a typed 412
  const other = new HookproofClient({ baseUrl, token: env("HOOKPROOF_TOKEN") });
  await other.getSubscription(ok.id);
  const staleTag = other.etag(ok.id);
  const patched = await client.updateSubscription(ok.id, { topics: ["order.created", "order.shipped"] });
  const stale = await problemOf(other.updateSubscription(ok.id, { topics: ["order.created"] }));
  report.patch = {
    before: ok.generation,
    after: patched.generation,
    topics: patched.topics,
    staleTag,
    etag: client.etag(ok.id),
    stale,
    topicsAfterStale: (await client.getSubscription(ok.id)).topics,
  };
  await active(ok.id);
  report.notFound = await problemOf(client.getDelivery("dlv_" + "0".repeat(28)));
  report.invalid = await problemOf(client.createConsumer({ id: "not an id!", name: "Bad" }));

  // 2. publish one event, then the same event again (accepted once), then a batch
  const occurredAt = "2026-12-02T10:00:00Z";
  const single = await client.publish("order.created", { orderId: "o-1" }, { consumerId: CONSUMER, occurredAt });
  const again = await client.publish("order.created", { orderId: "o-1" }, { eventId: single.eventId, consumerId: CONSUMER, occurredAt });
  const batch = await client.publishBatch(
    [2, 3, 4, 5].map((n) => ({ eventType: "order.created", payload: { orderId: `o-${n}` }, consumerId: CONSUMER })),
  );
  report.single = single;
  report.again = { eventId: again.eventId, created: again.created, deliveries: again.deliveries };
  report.batch = batch.results;

  // 2b. no occurredAt pinned (none is sent): the same id and payload published again by
  // another client (as a retry from another process would be) is the same event
  const unpinned = await client.publish("order.unpinned", { orderId: "o-u" });
  const repost = await other.publish("order.unpinned", { orderId: "o-u" }, { eventId: unpinned.eventId });
  report.unpinned = {
    first: { eventId: unpinned.eventId, created: unpinned.created, payloadDigest: unpinned.payloadDigest },
    again: { eventId: repost.eventId, created: repost.created, payloadDigest: repost.payloadDigest },
  };

  // 3. the same id with another payload: a typed problem
  report.conflict = await problemOf(
    client.publish("order.created", { orderId: "o-other" }, { eventId: single.eventId, consumerId: CONSUMER, occurredAt }),
  );

  // 4. the delivery log across pages (two per page), once every delivery was accepted
  const published = [single, ...batch.results].flatMap((r) => r.deliveries.map((d) => d.deliveryId));
  const listed = await until("every delivery ENDPOINT_ACCEPTED", async () => {
    const all = await collect(client.deliveries({ subscriptionId: ok.id, limit: 2 }));
    return all.length === published.length && all.every((d) => d.state === "ENDPOINT_ACCEPTED") ? all : null;
  });
  let pageCount = 0;
  for await (const page of client.deliveryPages({ subscriptionId: ok.id, limit: 2 })) {
    pageCount += 1;
    if (page.items.length > 2) throw new Error("a page longer than its limit");
  }
  report.listed = { ids: listed.map((d) => d.deliveryId), states: listed.map((d) => d.state), pages: pageCount, published };
  const filtered = await collect(
    client.deliveries({ subscriptionId: ok.id, eventType: "order.created", state: "ENDPOINT_ACCEPTED", limit: 1 }),
  );
  const first = await client.getDelivery(published[0]);
  report.read = {
    filtered: filtered.length,
    state: first.state,
    attempts: first.attempts.length,
    timeline: (await collect(client.deliveryTimeline(published[0], { limit: 1 }))).length,
    subscriptionTimeline: (await collect(client.subscriptionTimeline(ok.id, { limit: 2 }))).length,
    history: (await collect(client.history(ok.id))).map((e) => e.type),
  };

  // 4b. a test event to the one endpoint
  const test = await client.sendTestEvent(ok.id, { topic: "order.created" });
  report.testEvent = { eventId: test.eventId, test: test.test, deliveryIds: test.deliveries.map((d) => d.deliveryId) };

  // 5. a dead letter, replayed
  const failed = await client.publish("order.failed", { orderId: "o-9" }, { consumerId: CONSUMER });
  const deadId = failed.deliveries[0].deliveryId;
  const dead = await until("the dead letter", async () =>
    (await collect(client.deadLetters({ limit: 10 }))).find((d) => d.deliveryId === deadId),
  );
  const replayed = await client.replayDeadLetter(dead.deliveryId);
  const after = await until("the replay accepted", async () => {
    const d = await client.getDelivery(deadId);
    return d.state === "ENDPOINT_ACCEPTED" ? d : null;
  });
  report.deadLetter = { eventId: failed.eventId, deliveryId: deadId, listed: dead, replayed, finalState: after.state };

  // 5b. another dead letter, recovered (since a minute ago, dead letters only), then revoked
  const since = new Date(Date.now() - 60_000);
  const lostEvent = await client.publish("order.lost", { orderId: "o-10" }, { consumerId: CONSUMER });
  const lostId = lostEvent.deliveries[0].deliveryId;
  await until("the second dead letter", async () => (await client.getDelivery(lostId)).state === "DEAD_LETTER");
  const recovered = await client.recover(lost.id, { since: since.toISOString(), states: ["DEAD_LETTER"] });
  const recoveredAfter = await until("the recovered delivery accepted", async () => {
    const d = await client.getDelivery(lostId);
    return d.state === "ENDPOINT_ACCEPTED" ? d : null;
  });
  const revoked = await client.revokeSubscription(lost.id, { reason: "done" });
  report.recovered = {
    eventId: lostEvent.eventId,
    deliveryId: lostId,
    answer: recovered,
    finalState: recoveredAfter.state,
    revoked: revoked.state,
  };

  // 5c. the portal's branding
  await client.setBranding({ displayName: "Acme", accentColour: "#1a4f8b", frameAncestors: ["https://a.example"] });
  report.branding = await client.getBranding();

  // 6. a portal session: the link works, then ends
  const link = await client.createPortalSession(CONSUMER, { ttlSeconds: 600, capabilities: ["read"] });
  const portal = new HookproofClient({ baseUrl, token: link.token });
  const seenByPortal = await collect(portal.deliveries({ limit: 100 }));
  const second = await client.createPortalSession(CONSUMER, { ttlSeconds: 600, capabilities: ["read"] });
  const live = (await collect(client.portalSessions(CONSUMER, { limit: 1 }))).map((s) => s.id).sort();
  await client.endPortalSession(link.sessionId);
  const ended = await problemOf(collect(portal.deliveries({ limit: 1 })));
  const endedAll = await client.endPortalSessions(CONSUMER);
  const secondEnded = await problemOf(
    collect(new HookproofClient({ baseUrl, token: second.token }).deliveries({ limit: 1 })),
  );
  report.portal = {
    sessionId: link.sessionId,
    url: link.url,
    embedUrl: link.embedUrl ?? null,
    capabilities: link.capabilities,
    deliveriesSeen: seenByPortal.length,
    deliveriesSeenIds: seenByPortal.map((d) => d.deliveryId),
    afterEnd: ended,
    live,
    liveExpected: [link.sessionId, second.sessionId].sort(),
    endedAll,
    secondAfterEnd: secondEnded,
  };
  report.disabled = (await client.disableConsumer(CONSUMER, { reason: "left" })).state;
}

main().then(
  () => process.stdout.write(JSON.stringify(report) + "\n"),
  (err) => {
    process.stdout.write(JSON.stringify({ error: String(err?.stack ?? err), report }) + "\n");
    process.exit(1);
  },
);
