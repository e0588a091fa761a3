/**
 * How old a broker message may be (DESIGN.md section 13, "Freshness"), as the Python SDK's
 * `freshness` module: a message that waited in a queue is not a replay. Its age is measured from
 * the broker's own enqueue time where the broker gives one (the AMQP `timestamp` property,
 * JetStream message metadata), else from the signature's creation, and must stay within a window
 * the consumer sets (default 7 days), never the HTTP profile's 300 s. Replay protection for
 * broker messages is the delivery id (the consumer dedupes by `message_id` / `Nats-Msg-Id`), so
 * no nonce is checked: a redelivered message carries the same one.
 */

/** The default freshness window of a broker message: 7 days, in seconds. */
export const DEFAULT_MAX_AGE = 7 * 24 * 3600;

/** The age rule of one broker message (seconds). */
export interface Freshness {
  maxAge: number;
  /** The broker's enqueue time, Unix seconds. */
  enqueuedAt?: number;
}

/** Whole Unix seconds of an enqueue time given as a `Date` or as Unix seconds. */
export function epochSeconds(value: Date | number | undefined): number | undefined {
  if (value === undefined) return undefined;
  const seconds = value instanceof Date ? value.getTime() / 1000 : value;
  if (typeof seconds !== "number" || !Number.isFinite(seconds)) throw new TypeError("an enqueue time is a Date or Unix seconds");
  return Math.trunc(seconds);
}

/**
 * `[problem, at]`: `problem` is `[reason, detail]` or undefined; `at` the instant the message
 * is judged at (the enqueue time, else `created`; keys are checked there).
 */
export function judgeFreshness(
  rule: Freshness,
  created: number,
  expires: number,
  now: number,
  skew: number,
): [["expired" | "not_yet_valid", string] | undefined, number] {
  const at = rule.enqueuedAt ?? created;
  if (rule.enqueuedAt !== undefined) {
    if (created > at + skew) return [["not_yet_valid", "signed after the broker's enqueue time"], at];
    if (expires < at - skew) return [["expired", "the signature had expired when the broker took it"], at];
  }
  if (at > now + skew) return [["not_yet_valid", "the message is dated in the future"], at];
  if (now - at > rule.maxAge) return [["expired", `older than the freshness window (${rule.maxAge} s)`], at];
  return [undefined, at];
}
