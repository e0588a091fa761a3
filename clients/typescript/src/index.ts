/**
 * hookproof-client: the sender SDK (publish, consumers, event types, subscriptions changed with
 * If-Match, deliveries, timelines, recovery, test events, portal sessions and branding).
 */
export { HookproofClient, buildEvent } from "./client.js";
export type {
  BatchEvent,
  CallOptions,
  HookproofClientOptions,
  PortalLink,
  PublishCallOptions,
  PublishOptions,
  SubscriptionTransitionBody,
  TimelineQuery,
  UpdateOptions,
} from "./client.js";
export {
  Conflict,
  Forbidden,
  HookproofNetworkError,
  HookproofProblem,
  InvalidRequest,
  NotFound,
  PayloadConflict,
  PreconditionFailed,
  RateLimited,
  Unauthorized,
  Unavailable,
  problemFrom,
  typedProblem,
} from "./problem.js";
export type { ProblemBody } from "./problem.js";
export { DEFAULT_RETRY, backoffMs, retryableStatus } from "./retry.js";
export type { RetryOptions, RetryPolicy } from "./retry.js";
export { items, pages } from "./pages.js";
export type { PageFetcher } from "./pages.js";
export type * from "./types.js";
export type { components, operations, paths } from "./generated/openapi.js";
