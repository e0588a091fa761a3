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
