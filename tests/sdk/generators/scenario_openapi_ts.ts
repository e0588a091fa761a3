// Issue 49's sender scenario as a user of openapi-typescript 7.13 (default options) and
// openapi-fetch writes it: the types generated from /openapi.json (./openapi.ts, by
// tests/sdk/test_generators.py) and nothing else. Environment: HOOKPROOF_URL, HOOKPROOF_TOKEN,
// OK_ENDPOINT, FLAKY_ENDPOINT (refuses each event's first delivery). Prints one JSON report
// line, the same as scenario_opc.py's.
import createClient from "openapi-fetch";

import type { components, paths } from "./openapi.js";

type EventIn = components["schemas"]["EventIn"];

// the few Node.js globals used (no @types/node installed)
declare const process: {
  env: Record<string, string | undefined>;
  stdout: { write(text: string): void };
  stderr: { write(text: string): void };
  exit(code: number): never;
};

const env = (name: string): string => {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is not set`);
  return v;
};
const api = createClient<paths>({
  baseUrl: env("HOOKPROOF_URL"),
  headers: { Authorization: `Bearer ${env("HOOKPROOF_TOKEN")}` },
});
const ONE_TRY = { initialDelayS: 0.1, maxDelayS: 0.1, maxAttempts: 1 };
const CONSUMER = process.env.CONSUMER_ID ?? "cust-g";

interface Problem {
  status: number;
  code: string;
  field: string | null;
}

function problem(response: Response, error: unknown): Problem {
  const body = (error ?? {}) as { code?: string; field?: string };
  return { status: response.status, code: body.code ?? "", field: body.field ?? null };
}

function must<T>(out: { data?: T; error?: unknown; response: Response }): T {
  if (out.data === undefined) throw new Error(`${out.response.status}: ${JSON.stringify(out.error)}`);
  return out.data;
}

async function until<T>(what: string, probe: () => Promise<T | null>): Promise<T> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const value = await probe();
    if (value !== null) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function stateOf(id: string): Promise<string> {
  return must(await api.GET("/v1/subscriptions/{id}", { params: { path: { id } } })).state;
}

async function deliveryState(id: string): Promise<string> {
  return must(await api.GET("/v1/deliveries/{id}", { params: { path: { id } } })).state;
}

let serial = 0;
function event(n: number, topic = "order.created", eventId = ""): EventIn {
  const id = eventId || `evt-${topic}-${n}-${Date.now()}-${serial++}`;
  return { eventId: id, topic, version: "1.0", aggregateId: id, aggregateVersion: 1, payload: { orderId: `o-${n}` } };
}

async function subscribe(endpoint: string, topic: string): Promise<string> {
  const made = must(
    await api.POST("/v1/subscriptions", {
      body: {
        endpoint,
        topics: [topic],
        eventVersions: [1],
        region: "eu",
        signatureAlgorithm: "ed25519",
        owner: "team-shop",
        retryPolicy: ONE_TRY,
      },
    }),
  );
  await until(`${made.id} ACTIVE`, async () => ((await stateOf(made.id)) === "ACTIVE" ? true : null));
  return made.id;
}

async function main(): Promise<Record<string, unknown>> {
  const report: Record<string, unknown> = {};
  const since = new Date(Date.now() - 60_000).toISOString();
  const versions = { "1": { schema: { type: "object" }, example: { orderId: "o-0" } } };
  for (const topic of ["order.created", "order.failed"]) {
    must(await api.PUT("/v1/event-types/{topic}", { params: { path: { topic } }, body: { description: topic, versions } }));
  }
  report.eventTypes = must(await api.GET("/v1/event-types", {})).items.map((t) => t.topic);
  report.consumer = must(await api.POST("/v1/consumers", { body: { id: CONSUMER, name: "Customer G" } })).id;

  const sid = await subscribe(env("OK_ENDPOINT"), "order.created");
  const read = await api.GET("/v1/subscriptions/{id}", { params: { path: { id: sid } } });
  const etag = read.response.headers.get("ETag") ?? "";
  const patch = { topics: ["order.created", "order.shipped"] };
  const changed = await api.PATCH("/v1/subscriptions/{id}", {
    params: { path: { id: sid }, header: { "If-Match": etag } },
    body: patch,
  });
  const stale = await api.PATCH("/v1/subscriptions/{id}", {
    params: { path: { id: sid }, header: { "If-Match": etag } },
    body: patch,
  });
  report.patch = {
    before: must(read).generation,
    after: must(changed).generation,
    etagBefore: etag,
    etagAfter: changed.response.headers.get("ETag"),
    stale: problem(stale.response, stale.error),
  };
  await until(`${sid} ACTIVE again`, async () => ((await stateOf(sid)) === "ACTIVE" ? true : null));

  const one = event(1);
  const single = must(await api.POST("/v1/events", { body: one }));
  const again = must(await api.POST("/v1/events", { body: one }));
  const batch = must(await api.POST("/v1/events/batch", { body: { events: [event(2), event(3)] } }));
  report.published = [single.eventId, ...batch.results.map((r) => String(r.eventId))];
  report.again = again.created;

  report.logPages = await until("three accepted deliveries", async () => {
    const pages: string[][] = [];
    let cursor: string | undefined;
    for (;;) {
      const page = must(
        await api.GET("/v1/deliveries", {
          params: {
            query: { limit: 1, subscriptionId: sid, state: "ENDPOINT_ACCEPTED", since, ...(cursor ? { cursor } : {}) },
          },
        }),
      );
      pages.push(page.items.map((d) => d.eventId));
      if (!page.nextCursor) return pages.flat().length === 3 ? pages : null;
      cursor = page.nextCursor;
    }
  });
  const first = single.deliveries[0];
  if (!first) throw new Error("the event was planned for no subscription");
  const delivery = must(await api.GET("/v1/deliveries/{id}", { params: { path: { id: first.deliveryId } } }));
  report.delivery = { state: delivery.state, attempts: delivery.attempts.length };
  const started = must(
    await api.POST("/v1/consumers/{id}/portal-sessions", {
      params: { path: { id: CONSUMER } },
      body: { capabilities: ["read"] },
    }),
  );
  report.portalSession = started.sessionId;

  const failing = await subscribe(env("FLAKY_ENDPOINT"), "order.failed");
  const dead: string[] = [];
  for (const n of [1, 2]) {
    const accepted = must(await api.POST("/v1/events", { body: event(n, "order.failed") }));
    const did = accepted.deliveries[0]?.deliveryId ?? "";
    await until(`${did} dead`, async () => ((await deliveryState(did)) === "DEAD_LETTER" ? true : null));
    dead.push(did);
  }
  const [replayId = "", recoverId = ""] = dead;
  must(await api.POST("/v1/deliveries/{id}/replay", { params: { path: { id: replayId } } }));
  await until("the replay", async () => ((await deliveryState(replayId)) === "ENDPOINT_ACCEPTED" ? true : null));
  const recovered = must(
    await api.POST("/v1/subscriptions/{id}/recover", {
      params: { path: { id: failing } },
      body: { since, states: ["DEAD_LETTER"] },
    }),
  );
  await until("the recovery", async () => ((await deliveryState(recoverId)) === "ENDPOINT_ACCEPTED" ? true : null));
  report.dead = { ids: dead, recovered: recovered.deliveryIds };

  const conflict = await api.POST("/v1/events", { body: { ...event(9, "order.created", single.eventId), payload: { x: 1 } } });
  const missing = await api.GET("/v1/deliveries/{id}", { params: { path: { id: "dlv_" + "0".repeat(28) } } });
  const invalid = await api.POST("/v1/consumers", { body: { id: "not an id!", name: "B" } });
  report.problems = {
    conflict: problem(conflict.response, conflict.error),
    notFound: problem(missing.response, missing.error),
    invalid: problem(invalid.response, invalid.error),
  };
  return report;
}

main().then(
  (report) => process.stdout.write(JSON.stringify(report) + "\n"),
  (err: unknown) => {
    process.stderr.write(String((err as Error)?.stack ?? err) + "\n");
    process.exit(1);
  },
);
