/**
 * `HookproofClient`: thin conveniences over the generated, typed openapi-fetch client
 * (`client.api`, every operation of the document): publishing with a stable `eventId` and
 * retries, cursor-paged lists as async iterators, typed problems, portal links.
 */
import createClient, { type Client } from "openapi-fetch";

import type { paths } from "./generated/openapi.js";
import { newEventId } from "./ids.js";
import { items, pages } from "./pages.js";
import { HookproofNetworkError, problemFrom } from "./problem.js";
import { backoffMs, retryableStatus, retryPolicy, sleep, type RetryOptions, type RetryPolicy } from "./retry.js";
import type {
  AttemptStats,
  Consumer,
  ConsumerCreate,
  ConsumerDisable,
  ConsumerItem,
  ConsumerPatch,
  DeadLetter,
  Delivery,
  DeliveryLogItem,
  DeliveryLogQuery,
  EventAccepted,
  EventBatchResults,
  EventIn,
  EventType,
  EventTypeIn,
  EventTypeItem,
  EventView,
  HistoryEvent,
  Page,
  PortalBranding,
  PortalBrandingIn,
  PortalSessionCreate,
  PortalSessionItem,
  PortalSessionStarted,
  RecoverIn,
  Recovered,
  ReplayedDelivery,
  SecretRotated,
  Subscription,
  SubscriptionCreate,
  SubscriptionCreated,
  SubscriptionItem,
  SubscriptionPatch,
  SubscriptionTransition as SubscriptionTransitionIn,
  TestEventIn,
  TestEventSent,
  Timeline,
  TimelineEntry,
  Whoami,
} from "./types.js";

export interface HookproofClientOptions {
  /** The API's address, for example `https://hooks.example.com` (no `/v1`). */
  baseUrl: string;
  /** A tenant token (or a portal or operator token, for what those may do). */
  token: string;
  /** A fetch to use instead of `globalThis.fetch`. */
  fetch?: (input: Request) => Promise<Response>;
  /** Retries of publishing (network errors, 503, 429). */
  retry?: RetryOptions;
  /** Each try of a request is abandoned after this many milliseconds (default 30000). */
  timeoutMs?: number;
}

/** How one event is published; everything but the payload has a default. */
export interface PublishOptions {
  /** Stable id of the event (default: a new `evt_<uuid>`, fixed before the first try). */
  eventId?: string;
  /** `"MAJOR.MINOR"` of the event type's schema (default `"1.0"`). */
  version?: string;
  /** Default: the event id. */
  aggregateId?: string;
  /** Default: 1. */
  aggregateVersion?: number;
  /** Default: not sent; the engine records when it first accepted the event, and the same
   * `eventId` and payload published again without one (from any process) is recognised. */
  occurredAt?: string | Date;
  /** Publish to one consumer's subscriptions only. */
  consumerId?: string;
}

export interface BatchEvent extends PublishOptions {
  eventType: string;
  payload: unknown;
}

export interface CallOptions {
  signal?: AbortSignal;
}

export interface PublishCallOptions extends CallOptions {
  retry?: RetryOptions;
}

/** The portal session's answer: the token (once), `url` and `embedUrl` (the links to hand over). */
export type PortalLink = PortalSessionStarted & { url: string; embedUrl?: string };

type Outcome<T> = { data?: T; error?: unknown; response: Response };

/** The optional body of revoke, suspend and resume: a `reason` kept in the history. */
export type SubscriptionTransitionBody = NonNullable<SubscriptionTransitionIn>;

/** How many subscriptions' last ETags a client keeps (the newest). */
const ETAG_LIMIT = 4096;

/** Options of a read of a timeline: its page size and the time it is read as of. */
export interface TimelineQuery {
  limit?: number;
  /** RFC 3339: the timeline as it stood then. */
  asOf?: string | Date;
}

/** Options of `updateSubscription`: the `If-Match` to send instead of the last ETag seen. */
export interface UpdateOptions extends CallOptions {
  ifMatch?: string;
}

function withCursor<Q extends object>(query: Q, cursor: string | undefined): Q & { cursor?: string } {
  return cursor ? { ...query, cursor } : query;
}

function timelineQuery(q: TimelineQuery): { limit?: number; asOf?: string } {
  const out: { limit?: number; asOf?: string } = {};
  if (q.limit !== undefined) out.limit = q.limit;
  if (q.asOf !== undefined) out.asOf = typeof q.asOf === "string" ? q.asOf : q.asOf.toISOString();
  return out;
}

function entriesOf(t: Timeline): Page<TimelineEntry> {
  return { items: t.entries, nextCursor: t.nextCursor };
}

export class HookproofClient {
  /** The generated client: every operation of the API document, typed. */
  readonly api: Client<paths>;
  private readonly retry: RetryPolicy;
  private readonly timeoutMs: number;
  private readonly etags = new Map<string, string>();

  constructor(options: HookproofClientOptions) {
    if (!options.baseUrl) throw new TypeError("baseUrl is required");
    if (!options.token) throw new TypeError("token is required");
    this.retry = retryPolicy(options.retry);
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.api = createClient<paths>({
      baseUrl: options.baseUrl.replace(/\/+$/, ""),
      headers: { Authorization: `Bearer ${options.token}` },
      ...(options.fetch ? { fetch: options.fetch } : {}),
    });
  }

  // -- publishing ---------------------------------------------------------------------------

  /**
   * Publish one event. Its `eventId` is fixed before the first try, so a retry after a network
   * error or a 503 is the same event: the engine accepts it once (`created: false` the second
   * time); the same id with another payload is the problem `event_payload_conflict`.
   */
  async publish(
    eventType: string,
    payload: unknown,
    options: PublishOptions & PublishCallOptions = {},
  ): Promise<EventAccepted> {
    const body = await buildEvent(eventType, payload, options);
    return this.idempotent(
      (signal) => this.api.POST("/v1/events", { body, signal }),
      options,
    );
  }

  /**
   * Publish up to 1,000 events in one request; each is answered on its own, in order (`status`
   * 202, or 400/409 with its `problem`). Ids are fixed before the first try, as for `publish`.
   */
  async publishBatch(events: BatchEvent[], options: PublishCallOptions = {}): Promise<EventBatchResults> {
    const built = await Promise.all(events.map((e) => buildEvent(e.eventType, e.payload, e)));
    return this.idempotent(
      (signal) => this.api.POST("/v1/events/batch", { body: { events: built }, signal }),
      options,
    );
  }

  async getEvent(eventId: string, options: CallOptions = {}): Promise<EventView> {
    return this.once(
      (signal) => this.api.GET("/v1/events/{eventId}", { params: { path: { eventId } }, signal }),
      options,
    );
  }

  /** Who this client's token is (`tenant`, `portal` or `operator`). */
  async whoami(options: CallOptions = {}): Promise<Whoami> {
    return this.once((signal) => this.api.GET("/v1/whoami", { signal }), options);
  }

  // -- consumers, event types, subscriptions --------------------------------------------------

  async createConsumer(body: ConsumerCreate, options: CallOptions = {}): Promise<Consumer> {
    return this.once((signal) => this.api.POST("/v1/consumers", { body, signal }), options);
  }

  async getConsumer(id: string, options: CallOptions = {}): Promise<Consumer> {
    return this.once((signal) => this.api.GET("/v1/consumers/{id}", { params: { path: { id } }, signal }), options);
  }

  /** Rename a consumer or replace its metadata (what is left out stays as it is). */
  async updateConsumer(id: string, body: ConsumerPatch, options: CallOptions = {}): Promise<Consumer> {
    return this.once(
      (signal) => this.api.PATCH("/v1/consumers/{id}", { params: { path: { id } }, body, signal }),
      options,
    );
  }

  /** Disable a consumer: its subscriptions stop, its portal sessions end. */
  async disableConsumer(id: string, body: ConsumerDisable = {}, options: CallOptions = {}): Promise<Consumer> {
    return this.once(
      (signal) => this.api.POST("/v1/consumers/{id}/disable", { params: { path: { id } }, body, signal }),
      options,
    );
  }

  async getEventType(topic: string, options: CallOptions = {}): Promise<EventType> {
    return this.once(
      (signal) => this.api.GET("/v1/event-types/{topic}", { params: { path: { topic } }, signal }),
      options,
    );
  }

  /** Define (or replace) an event type of the catalogue: `PUT /v1/event-types/{topic}`. */
  async putEventType(topic: string, body: EventTypeIn, options: CallOptions = {}): Promise<EventType> {
    return this.once(
      (signal) => this.api.PUT("/v1/event-types/{topic}", { params: { path: { topic } }, body, signal }),
      options,
    );
  }

  /** Register an endpoint; the answer holds an hmac `secret` this one time only. */
  async createSubscription(body: SubscriptionCreate, options: CallOptions = {}): Promise<SubscriptionCreated> {
    return this.once((signal) => this.api.POST("/v1/subscriptions", { body, signal }), options, {
      etagOf: (s) => s.id,
    });
  }

  /** The subscription now; its `ETag` is kept for `updateSubscription`. */
  async getSubscription(id: string, options: CallOptions = {}): Promise<Subscription> {
    return this.once(
      (signal) => this.api.GET("/v1/subscriptions/{id}", { params: { path: { id } }, signal }),
      options,
      { etagOf: () => id },
    );
  }

  /** The last `ETag` this client was answered for a subscription (`"<generation>"`), if any. */
  etag(subscriptionId: string): string | undefined {
    return this.etags.get(subscriptionId);
  }

  /**
   * Change a subscription (`PATCH`). `If-Match` is `options.ifMatch`, or the `ETag` of this
   * client's last answer about it (create, get, update, a transition); with none, it is read
   * first. Changed meanwhile by someone else: `PreconditionFailed` (412 `generation_mismatch`,
   * with the current `etag`): read it again and decide again.
   */
  async updateSubscription(id: string, changes: SubscriptionPatch, options: UpdateOptions = {}): Promise<Subscription> {
    let tag = options.ifMatch ?? this.etags.get(id);
    if (tag === undefined) {
      await this.getSubscription(id, options);
      tag = this.etags.get(id) ?? "";
    }
    const ifMatch = tag;
    return this.once(
      (signal) =>
        this.api.PATCH("/v1/subscriptions/{id}", {
          params: { path: { id }, header: { "If-Match": ifMatch } },
          body: changes,
          signal,
        }),
      options,
      { etagOf: () => id },
    );
  }

  /** Revoke a subscription for good: nothing more is delivered to it. */
  revokeSubscription(id: string, body: SubscriptionTransitionBody = {}, options: CallOptions = {}): Promise<Subscription> {
    return this.transition("/v1/subscriptions/{id}/revoke", id, body, options);
  }

  suspendSubscription(id: string, body: SubscriptionTransitionBody = {}, options: CallOptions = {}): Promise<Subscription> {
    return this.transition("/v1/subscriptions/{id}/suspend", id, body, options);
  }

  /** Resume a suspended subscription (the engine challenges the endpoint again). */
  resumeSubscription(id: string, body: SubscriptionTransitionBody = {}, options: CallOptions = {}): Promise<Subscription> {
    return this.transition("/v1/subscriptions/{id}/resume", id, body, options);
  }

  /** Challenge the endpoint again now. */
  async challengeSubscription(id: string, options: CallOptions = {}): Promise<Subscription> {
    return this.once(
      (signal) => this.api.POST("/v1/subscriptions/{id}/challenge", { params: { path: { id } }, signal }),
      options,
      { etagOf: () => id },
    );
  }

  /** The subscription's recorded events, oldest first, across pages. */
  history(id: string, query: { limit?: number } = {}, options: CallOptions = {}): AsyncGenerator<HistoryEvent> {
    return items((cursor) =>
      this.once(
        (signal) =>
          this.api.GET("/v1/subscriptions/{id}/history", {
            params: { path: { id }, query: withCursor(query, cursor) },
            signal,
          }),
        options,
      ),
    );
  }

  /** What happened to the subscription, entry by entry, across pages. */
  subscriptionTimeline(id: string, query: TimelineQuery = {}, options: CallOptions = {}): AsyncGenerator<TimelineEntry> {
    return items(async (cursor) =>
      entriesOf(
        await this.once(
          (signal) =>
            this.api.GET("/v1/subscriptions/{id}/timeline", {
              params: { path: { id }, query: withCursor(timelineQuery(query), cursor) },
              signal,
            }),
          options,
        ),
      ),
    );
  }

  async attemptStats(id: string, options: CallOptions = {}): Promise<AttemptStats> {
    return this.once(
      (signal) => this.api.GET("/v1/subscriptions/{id}/attempt-stats", { params: { path: { id } }, signal }),
      options,
    );
  }

  /**
   * Send again the deliveries in `states` (default the dead letters) whose state last changed in
   * `[since, until)`: they go back to RETRYABLE (`202`, which and how many).
   */
  async recover(id: string, body: RecoverIn, options: CallOptions = {}): Promise<Recovered> {
    return this.once(
      (signal) => this.api.POST("/v1/subscriptions/{id}/recover", { params: { path: { id } }, body, signal }),
      options,
    );
  }

  /** A new hmac secret (in this answer only); the old one keeps verifying for a while. */
  async rotateSecret(id: string, options: CallOptions = {}): Promise<SecretRotated> {
    return this.once(
      (signal) => this.api.POST("/v1/subscriptions/{id}/secret/rotate", { params: { path: { id } }, signal }),
      options,
    );
  }

  /** The catalogue's example of `topic` to this one endpoint, marked as a test. */
  async sendTestEvent(id: string, body: TestEventIn = {}, options: CallOptions = {}): Promise<TestEventSent> {
    return this.once(
      (signal) => this.api.POST("/v1/subscriptions/{id}/test-events", { params: { path: { id } }, body, signal }),
      options,
    );
  }

  // -- deliveries -----------------------------------------------------------------------------

  async getDelivery(id: string, options: CallOptions = {}): Promise<Delivery> {
    return this.once(
      (signal) => this.api.GET("/v1/deliveries/{id}", { params: { path: { id } }, signal }),
      options,
    );
  }

  /** Send a delivery again (a dead letter, or any delivery of yours): `202` with the delivery. */
  async replayDelivery(id: string, options: CallOptions = {}): Promise<ReplayedDelivery> {
    return this.once(
      (signal) => this.api.POST("/v1/deliveries/{id}/replay", { params: { path: { id } }, signal }),
      options,
    );
  }

  /** Give up a waiting delivery (its aggregate's later events go on). */
  async skipDelivery(id: string, options: CallOptions = {}): Promise<Delivery> {
    return this.once(
      (signal) => this.api.POST("/v1/deliveries/{id}/skip", { params: { path: { id } }, signal }),
      options,
    );
  }

  /** The delivery's attempts and state changes, entry by entry, across pages. */
  deliveryTimeline(id: string, query: TimelineQuery = {}, options: CallOptions = {}): AsyncGenerator<TimelineEntry> {
    return items(async (cursor) =>
      entriesOf(
        await this.once(
          (signal) =>
            this.api.GET("/v1/deliveries/{id}/timeline", {
              params: { path: { id }, query: withCursor(timelineQuery(query), cursor) },
              signal,
            }),
          options,
        ),
      ),
    );
  }

  /** The same as `replayDelivery`, named for the dead-letter list's items. */
  replayDeadLetter(deliveryId: string, options: CallOptions = {}): Promise<ReplayedDelivery> {
    return this.replayDelivery(deliveryId, options);
  }

  /** The delivery log (newest first) across pages; filters as `GET /v1/deliveries`. */
  deliveries(query: Omit<DeliveryLogQuery, "cursor"> = {}, options: CallOptions = {}): AsyncGenerator<DeliveryLogItem> {
    return items((cursor) => this.deliveryPage(query, cursor, options));
  }

  /** The delivery log page by page (for a UI that shows pages). */
  deliveryPages(query: Omit<DeliveryLogQuery, "cursor"> = {}, options: CallOptions = {}): AsyncGenerator<Page<DeliveryLogItem>> {
    return pages((cursor) => this.deliveryPage(query, cursor, options));
  }

  deadLetters(query: { limit?: number } = {}, options: CallOptions = {}): AsyncGenerator<DeadLetter> {
    return items((cursor) =>
      this.once(
        (signal) =>
          this.api.GET("/v1/dead-letters", { params: { query: { ...query, ...(cursor ? { cursor } : {}) } }, signal }),
        options,
      ),
    );
  }

  subscriptions(
    query: { limit?: number; consumerId?: string } = {},
    options: CallOptions = {},
  ): AsyncGenerator<SubscriptionItem> {
    return items((cursor) =>
      this.once(
        (signal) =>
          this.api.GET("/v1/subscriptions", { params: { query: { ...query, ...(cursor ? { cursor } : {}) } }, signal }),
        options,
      ),
    );
  }

  consumers(query: { limit?: number } = {}, options: CallOptions = {}): AsyncGenerator<ConsumerItem> {
    return items((cursor) =>
      this.once(
        (signal) =>
          this.api.GET("/v1/consumers", { params: { query: { ...query, ...(cursor ? { cursor } : {}) } }, signal }),
        options,
      ),
    );
  }

  eventTypes(query: { limit?: number } = {}, options: CallOptions = {}): AsyncGenerator<EventTypeItem> {
    return items((cursor) =>
      this.once(
        (signal) =>
          this.api.GET("/v1/event-types", { params: { query: { ...query, ...(cursor ? { cursor } : {}) } }, signal }),
        options,
      ),
    );
  }

  // -- portal sessions ------------------------------------------------------------------------

  /**
   * Start a portal session for one of your consumers; hand over `url` (the console) or
   * `embedUrl` (the portal under your branding). The token is in this answer only.
   */
  async createPortalSession(
    consumerId: string,
    body: PortalSessionCreate = {},
    options: CallOptions = {},
  ): Promise<PortalLink> {
    return this.once(
      (signal) =>
        this.api.POST("/v1/consumers/{id}/portal-sessions", { params: { path: { id: consumerId } }, body, signal }),
      options,
    ) as Promise<PortalLink>;
  }

  /** End a portal session now (204); its token answers 401 `portal_session_expired` after. */
  async endPortalSession(sessionId: string, options: CallOptions = {}): Promise<void> {
    await this.once(
      (signal) => this.api.DELETE("/v1/portal-sessions/{id}", { params: { path: { id: sessionId } }, signal }),
      options,
      { empty: true },
    );
  }

  /** A consumer's live portal sessions (never their tokens), across pages. */
  portalSessions(consumerId: string, query: { limit?: number } = {}, options: CallOptions = {}): AsyncGenerator<PortalSessionItem> {
    return items((cursor) =>
      this.once(
        (signal) =>
          this.api.GET("/v1/consumers/{id}/portal-sessions", {
            params: { path: { id: consumerId }, query: withCursor(query, cursor) },
            signal,
          }),
        options,
      ),
    );
  }

  /** End every portal session of a consumer; how many there were. */
  async endPortalSessions(consumerId: string, options: CallOptions = {}): Promise<number> {
    const ended = await this.once(
      (signal) => this.api.DELETE("/v1/consumers/{id}/portal-sessions", { params: { path: { id: consumerId } }, signal }),
      options,
    );
    return ended.ended;
  }

  async getBranding(options: CallOptions = {}): Promise<PortalBranding> {
    return this.once((signal) => this.api.GET("/v1/portal/branding", { signal }), options);
  }

  /** Replace the portal's branding whole (what is left out is unset). */
  async setBranding(body: PortalBrandingIn, options: CallOptions = {}): Promise<PortalBranding> {
    return this.once((signal) => this.api.PUT("/v1/portal/branding", { body, signal }), options);
  }

  // -- plumbing -------------------------------------------------------------------------------

  private transition(
    path: "/v1/subscriptions/{id}/revoke" | "/v1/subscriptions/{id}/suspend" | "/v1/subscriptions/{id}/resume",
    id: string,
    body: SubscriptionTransitionBody,
    options: CallOptions,
  ): Promise<Subscription> {
    return this.once((signal) => this.api.POST(path, { params: { path: { id } }, body, signal }), options, {
      etagOf: () => id,
    });
  }

  private remember(id: string, tag: string | null): void {
    if (!tag) return;
    this.etags.delete(id);
    this.etags.set(id, tag);
    if (this.etags.size > ETAG_LIMIT) {
      const oldest = this.etags.keys().next();
      if (!oldest.done) this.etags.delete(oldest.value);
    }
  }

  private deliveryPage(
    query: Omit<DeliveryLogQuery, "cursor">,
    cursor: string | undefined,
    options: CallOptions,
  ): Promise<Page<DeliveryLogItem>> {
    return this.once(
      (signal) =>
        this.api.GET("/v1/deliveries", { params: { query: { ...query, ...(cursor ? { cursor } : {}) } }, signal }),
      options,
    );
  }

  /**
   * One try; a non-2xx answer becomes a `HookproofProblem` (its typed subclass). `empty`: a
   * 204 is the answer; `etagOf`: the subscription whose `ETag` the answer carries.
   */
  private async once<T>(
    send: (signal: AbortSignal) => Promise<Outcome<T>>,
    options: CallOptions,
    how: { empty?: boolean; etagOf?: (data: T) => string } = {},
  ): Promise<T> {
    const outcome = await this.withTimeout(send, options.signal);
    if (!outcome.response.ok) throw problemFrom(outcome.response, outcome.error);
    if (outcome.data === undefined && !how.empty) {
      throw problemFrom(outcome.response, { code: "empty_response", title: "The API answered without a body" });
    }
    const data = outcome.data as T;
    if (how.etagOf) this.remember(how.etagOf(data), outcome.response.headers.get("ETag"));
    return data;
  }

  /** Tries until an answer that is not "try again later", under the retry policy. */
  private async idempotent<T>(
    send: (signal: AbortSignal) => Promise<Outcome<T>>,
    options: PublishCallOptions,
  ): Promise<T> {
    const policy = options.retry ? retryPolicy({ ...this.retry, ...options.retry }) : this.retry;
    for (let attempt = 0; ; attempt++) {
      let outcome: Outcome<T>;
      try {
        outcome = await this.withTimeout(send, options.signal);
      } catch (err) {
        if (options.signal?.aborted) throw err;
        if (attempt >= policy.retries) throw new HookproofNetworkError(attempt + 1, err);
        await sleep(backoffMs(policy, attempt, null), options.signal);
        continue;
      }
      const { response } = outcome;
      if (response.ok && outcome.data !== undefined) return outcome.data;
      if (retryableStatus(response.status) && attempt < policy.retries) {
        await sleep(backoffMs(policy, attempt, response.headers.get("Retry-After")), options.signal);
        continue;
      }
      throw problemFrom(response, response.ok ? { code: "empty_response" } : outcome.error);
    }
  }

  /** One try under `timeoutMs`, also abandoned when the caller's signal aborts. */
  private async withTimeout<T>(
    send: (signal: AbortSignal) => Promise<Outcome<T>>,
    outer: AbortSignal | undefined,
  ): Promise<Outcome<T>> {
    const controller = new AbortController();
    const onAbort = (): void => controller.abort(outer?.reason);
    if (outer?.aborted) onAbort();
    outer?.addEventListener("abort", onAbort, { once: true });
    const timer = setTimeout(
      () => controller.abort(new Error(`no answer within ${this.timeoutMs} ms`)),
      this.timeoutMs,
    );
    try {
      return await send(controller.signal);
    } finally {
      clearTimeout(timer);
      outer?.removeEventListener("abort", onAbort);
    }
  }
}

/** The wire form of one event, every field fixed now (so every try sends the same bytes). */
export async function buildEvent(eventType: string, payload: unknown, options: PublishOptions = {}): Promise<EventIn> {
  const eventId = options.eventId ?? (await newEventId());
  const occurredAt = options.occurredAt;
  const event: EventIn = {
    eventId,
    topic: eventType,
    version: options.version ?? "1.0",
    aggregateId: options.aggregateId ?? eventId,
    aggregateVersion: options.aggregateVersion ?? 1,
    payload,
  };
  if (occurredAt !== undefined) {
    event.occurredAt = typeof occurredAt === "string" ? occurredAt : occurredAt.toISOString();
  }
  if (options.consumerId !== undefined) event.consumerId = options.consumerId;
  return event;
}
