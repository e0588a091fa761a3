// Issue 49's sender scenario as a user of an OpenAPI Generator 7.26 `typescript-fetch` client
// writes it (./client, generated from /openapi.json by tests/sdk/test_generators.py), with
// nothing but the generated APIs and models. Environment: HOOKPROOF_URL, HOOKPROOF_TOKEN,
// OK_ENDPOINT, FLAKY_ENDPOINT (refuses each event's first delivery). Prints one JSON report
// line, the same as scenario_opc.py's.
import {
  Configuration,
  ConsumersApi,
  DeliveriesApi,
  EventTypesApi,
  EventsApi,
  GetV1DeliveriesStateEnum,
  ResponseError,
  SubscriptionsApi,
  type EventIn,
} from "./client/index.js";

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
const config = new Configuration({ basePath: env("HOOKPROOF_URL"), accessToken: env("HOOKPROOF_TOKEN") });
const consumers = new ConsumersApi(config);
const deliveries = new DeliveriesApi(config);
const eventTypes = new EventTypesApi(config);
const events = new EventsApi(config);
const subscriptions = new SubscriptionsApi(config);
const ONE_TRY = { initialDelayS: 0.1, maxDelayS: 0.1, maxAttempts: 1 };
const CONSUMER = process.env.CONSUMER_ID ?? "cust-g";

interface Problem {
  status: number;
  code: string;
  field: string | null;
}

async function problem(call: Promise<unknown>): Promise<Problem> {
  try {
    await call;
  } catch (err) {
    if (!(err instanceof ResponseError)) throw err;
    const body = (await err.response.json()) as { code?: string; field?: string };
    return { status: err.response.status, code: body.code ?? "", field: body.field ?? null };
  }
  throw new Error("expected a problem, the call succeeded");
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

const stateOf = async (id: string): Promise<string> => (await subscriptions.getV1SubscriptionsId({ id })).state;
const deliveryState = async (id: string): Promise<string> => (await deliveries.getV1DeliveriesId({ id })).state;

let serial = 0;
function event(n: number, topic = "order.created", eventId = ""): EventIn {
  const id = eventId || `evt-${topic}-${n}-${Date.now()}-${serial++}`;
  return { eventId: id, topic, version: "1.0", aggregateId: id, aggregateVersion: 1, payload: { orderId: `o-${n}` } };
}

async function subscribe(endpoint: string, topic: string): Promise<string> {
  const made = await subscriptions.postV1Subscriptions({
    subscriptionCreate: {
      endpoint,
      topics: [topic],
      eventVersions: [1],
      region: "eu",
      signatureAlgorithm: "ed25519",
      owner: "team-shop",
      retryPolicy: ONE_TRY,
    },
  });
  await until(`${made.id} ACTIVE`, async () => ((await stateOf(made.id)) === "ACTIVE" ? true : null));
  return made.id;
}

async function main(): Promise<Record<string, unknown>> {
  const report: Record<string, unknown> = {};
  const sinceDate = new Date(Date.now() - 60_000);
  const versions = { "1": { schema: { type: "object" }, example: { orderId: "o-0" } } };
  for (const topic of ["order.created", "order.failed"]) {
    await eventTypes.putV1EventTypesTopic({ topic, eventTypeIn: { description: topic, versions } });
  }
  report.eventTypes = (await eventTypes.getV1EventTypes()).items.map((t) => t.topic);
  report.consumer = (await consumers.postV1Consumers({ consumerCreate: { id: CONSUMER, name: "Customer G" } })).id;

  const sid = await subscribe(env("OK_ENDPOINT"), "order.created");
  const read = await subscriptions.getV1SubscriptionsIdRaw({ id: sid });
  const etag = read.raw.headers.get("ETag") ?? "";
  const patch = { topics: ["order.created", "order.shipped"] };
  const changed = await subscriptions.patchV1SubscriptionsIdRaw({ id: sid, ifMatch: etag, subscriptionPatch: patch });
  report.patch = {
    before: (await read.value()).generation,
    after: (await changed.value()).generation,
    etagBefore: etag,
    etagAfter: changed.raw.headers.get("ETag"),
    stale: await problem(subscriptions.patchV1SubscriptionsId({ id: sid, ifMatch: etag, subscriptionPatch: patch })),
  };
  await until(`${sid} ACTIVE again`, async () => ((await stateOf(sid)) === "ACTIVE" ? true : null));

  const one = event(1);
  const single = await events.postV1Events({ eventIn: one });
  const again = await events.postV1Events({ eventIn: one });
  const batch = await events.postV1EventsBatch({ eventBatchIn: { events: [event(2), event(3)] } });
  report.published = [single.eventId, ...batch.results.map((r) => String(r.eventId))];
  report.again = again.created;

  report.logPages = await until("three accepted deliveries", async () => {
    const pages: string[][] = [];
    let cursor: string | undefined;
    for (;;) {
      const page = await deliveries.getV1Deliveries({
        limit: 1,
        subscriptionId: sid,
        state: GetV1DeliveriesStateEnum.EndpointAccepted,
        since: sinceDate,
        ...(cursor ? { cursor } : {}),
      });
      pages.push(page.items.map((d) => d.eventId));
      if (!page.nextCursor) return pages.flat().length === 3 ? pages : null;
      cursor = page.nextCursor;
    }
  });
  const firstId = single.deliveries[0]?.deliveryId ?? "";
  const delivery = await deliveries.getV1DeliveriesId({ id: firstId });
  report.delivery = { state: delivery.state, attempts: delivery.attempts.length };
  const started = await consumers.postV1ConsumersIdPortalSessions({
    id: CONSUMER,
    portalSessionCreate: { capabilities: new Set(["read"] as const) },
  });
  report.portalSession = started.sessionId;

  const failing = await subscribe(env("FLAKY_ENDPOINT"), "order.failed");
  const dead: string[] = [];
  for (const n of [1, 2]) {
    const accepted = await events.postV1Events({ eventIn: event(n, "order.failed") });
    const did = accepted.deliveries[0]?.deliveryId ?? "";
    await until(`${did} dead`, async () => ((await deliveryState(did)) === "DEAD_LETTER" ? true : null));
    dead.push(did);
  }
  const [replayId = "", recoverId = ""] = dead;
  await deliveries.postV1DeliveriesIdReplay({ id: replayId });
  await until("the replay", async () => ((await deliveryState(replayId)) === "ENDPOINT_ACCEPTED" ? true : null));
  const recovered = await subscriptions.postV1SubscriptionsIdRecover({
    id: failing,
    recoverIn: { since: sinceDate, states: ["DEAD_LETTER"] },
  });
  await until("the recovery", async () => ((await deliveryState(recoverId)) === "ENDPOINT_ACCEPTED" ? true : null));
  report.dead = { ids: dead, recovered: recovered.deliveryIds };

  report.problems = {
    conflict: await problem(
      events.postV1Events({ eventIn: { ...event(9, "order.created", single.eventId), payload: { x: 1 } } }),
    ),
    notFound: await problem(deliveries.getV1DeliveriesId({ id: "dlv_" + "0".repeat(28) })),
    invalid: await problem(consumers.postV1Consumers({ consumerCreate: { id: "not an id!", name: "B" } })),
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
