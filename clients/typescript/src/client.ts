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
  Consumer,
  ConsumerCreate,
  ConsumerItem,
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
  Page,
  PortalSessionCreate,
  PortalSessionStarted,
  ReplayedDelivery,
  Subscription,
  SubscriptionCreate,
  SubscriptionCreated,
  SubscriptionItem,
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

export class HookproofClient {
  /** The generated client: every operation of the API document, typed. */
  readonly api: Client<paths>;
  private readonly retry: RetryPolicy;
  private readonly timeoutMs: number;

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

  // -- consumers, event types, subscriptions --------------------------------------------------

  async createConsumer(body: ConsumerCreate, options: CallOptions = {}): Promise<Consumer> {
    return this.once((signal) => this.api.POST("/v1/consumers", { body, signal }), options);
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
    return this.once((signal) => this.api.POST("/v1/subscriptions", { body, signal }), options);
  }

  async getSubscription(id: string, options: CallOptions = {}): Promise<Subscription> {
    return this.once(
      (signal) => this.api.GET("/v1/subscriptions/{id}", { params: { path: { id } }, signal }),
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
      true,
    );
  }

  // -- plumbing -------------------------------------------------------------------------------

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

  /** One try; a non-2xx answer becomes a `HookproofProblem`. */
  private async once<T>(
    send: (signal: AbortSignal) => Promise<Outcome<T>>,
    options: CallOptions,
    empty = false,
  ): Promise<T> {
    const outcome = await this.withTimeout(send, options.signal);
    if (!outcome.response.ok) throw problemFrom(outcome.response, outcome.error);
    if (outcome.data === undefined && !empty) {
      throw problemFrom(outcome.response, { code: "empty_response", title: "The API answered without a body" });
    }
    return outcome.data as T;
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
