/** hookproof-client: the sender SDK (publish, consumers, event types, subscriptions, portal). */
export { HookproofClient, buildEvent } from "./client.js";
export type {
  BatchEvent,
  CallOptions,
  HookproofClientOptions,
  PortalLink,
  PublishCallOptions,
  PublishOptions,
} from "./client.js";
export { HookproofNetworkError, HookproofProblem, problemFrom } from "./problem.js";
export type { ProblemBody } from "./problem.js";
export { DEFAULT_RETRY, backoffMs, retryableStatus } from "./retry.js";
export type { RetryOptions, RetryPolicy } from "./retry.js";
export { items, pages } from "./pages.js";
export type { PageFetcher } from "./pages.js";
export type * from "./types.js";
export type { components, operations, paths } from "./generated/openapi.js";
