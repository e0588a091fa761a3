/**
 * Names for the API's request and answer bodies, taken from the generated `paths` by route
 * (not by component name), so they follow the document when `make sdk-typescript` regenerates
 * `generated/openapi.ts`.
 */
import type { paths } from "./generated/openapi.js";

type Json<T> = T extends { content: { "application/json": infer B } } ? B : never;

/** The JSON request body of an operation. */
export type RequestBody<O> = O extends { requestBody?: infer R } ? Json<NonNullable<R>> : never;

/** The JSON answer of an operation for one status. */
export type Answer<O, S extends number> = O extends { responses: infer R }
  ? S extends keyof R
    ? Json<R[S]>
    : never
  : never;

export type EventIn = RequestBody<paths["/v1/events"]["post"]>;
export type EventAccepted = Answer<paths["/v1/events"]["post"], 202>;
export type EventBatchResults = Answer<paths["/v1/events/batch"]["post"], 200>;
export type ConsumerCreate = RequestBody<paths["/v1/consumers"]["post"]>;
export type Consumer = Answer<paths["/v1/consumers"]["post"], 201>;
export type EventTypeIn = RequestBody<paths["/v1/event-types/{topic}"]["put"]>;
export type EventType = Answer<paths["/v1/event-types/{topic}"]["put"], 200>;
export type SubscriptionCreate = RequestBody<paths["/v1/subscriptions"]["post"]>;
export type SubscriptionCreated = Answer<paths["/v1/subscriptions"]["post"], 201>;
export type Subscription = Answer<paths["/v1/subscriptions/{id}"]["get"], 200>;
export type Delivery = Answer<paths["/v1/deliveries/{id}"]["get"], 200>;
export type ReplayedDelivery = Answer<paths["/v1/deliveries/{id}/replay"]["post"], 202>;
export type PortalSessionCreate = RequestBody<paths["/v1/consumers/{id}/portal-sessions"]["post"]>;
export type PortalSessionStarted = Answer<paths["/v1/consumers/{id}/portal-sessions"]["post"], 201>;
export type ConsumerPatch = RequestBody<paths["/v1/consumers/{id}"]["patch"]>;
export type ConsumerDisable = RequestBody<paths["/v1/consumers/{id}/disable"]["post"]>;
export type SubscriptionPatch = RequestBody<paths["/v1/subscriptions/{id}"]["patch"]>;
export type SubscriptionTransition = RequestBody<paths["/v1/subscriptions/{id}/revoke"]["post"]>;
export type RecoverIn = RequestBody<paths["/v1/subscriptions/{id}/recover"]["post"]>;
export type Recovered = Answer<paths["/v1/subscriptions/{id}/recover"]["post"], 202>;
export type TestEventIn = RequestBody<paths["/v1/subscriptions/{id}/test-events"]["post"]>;
export type TestEventSent = Answer<paths["/v1/subscriptions/{id}/test-events"]["post"], 202>;
export type SecretRotated = Answer<paths["/v1/subscriptions/{id}/secret/rotate"]["post"], 201>;
export type AttemptStats = Answer<paths["/v1/subscriptions/{id}/attempt-stats"]["get"], 200>;
export type Timeline = Answer<paths["/v1/subscriptions/{id}/timeline"]["get"], 200>;
export type TimelineEntry = Timeline extends { entries: (infer E)[] } ? E : never;
export type HistoryEvent = ItemOf<Answer<paths["/v1/subscriptions/{id}/history"]["get"], 200>>;
export type EventView = Answer<paths["/v1/events/{eventId}"]["get"], 200>;
export type PortalBrandingIn = RequestBody<paths["/v1/portal/branding"]["put"]>;
export type PortalBranding = Answer<paths["/v1/portal/branding"]["get"], 200>;
export type PortalSessionItem = ItemOf<Answer<paths["/v1/consumers/{id}/portal-sessions"]["get"], 200>>;
export type PortalSessionsEnded = Answer<paths["/v1/consumers/{id}/portal-sessions"]["delete"], 200>;
export type Whoami = Answer<paths["/v1/whoami"]["get"], 200>;
export type DeliveryLogQuery = NonNullable<paths["/v1/deliveries"]["get"]["parameters"]["query"]>;
export type DeliveryLogItem = ItemOf<Answer<paths["/v1/deliveries"]["get"], 200>>;
export type DeadLetter = ItemOf<Answer<paths["/v1/dead-letters"]["get"], 200>>;
export type SubscriptionItem = ItemOf<Answer<paths["/v1/subscriptions"]["get"], 200>>;
export type ConsumerItem = ItemOf<Answer<paths["/v1/consumers"]["get"], 200>>;
export type EventTypeItem = ItemOf<Answer<paths["/v1/event-types"]["get"], 200>>;

/** The element type of a page's `items`. */
export type ItemOf<P> = P extends { items: (infer I)[] } ? I : never;

/** A page of any list: `nextCursor` is null on the last page. */
export interface Page<T> {
  items: T[];
  nextCursor?: string | null;
}
