/**
 * Broker messages (DESIGN.md section 13), as the Python SDK's `messages` module: verify a
 * delivery read from RabbitMQ or NATS JetStream from its headers, body and the destination it
 * was read from, and answer a challenge that arrived the same way.
 *
 * `hookproof.sig.v1` on a message covers `"@destination"` (the destination URI without
 * credentials, e.g. `amqps://host:5671/%2F/<exchange>/<routingKey>` or
 * `tls://host:4222/<subject>`) instead of the HTTP components, and the `hookproof-*` ids;
 * `standard-webhooks.v1` is exactly as on HTTP. Reason codes are the HTTP ones. A broker
 * challenge's answer is POSTed to `POST /v1/challenges/{challengeId}/response`.
 */
import { createHash, randomBytes } from "node:crypto";

import { buildChallengeResponse, CHALLENGE_FIELDS } from "./challenge.js";
import { contentDigest } from "./digest.js";
import { b64Encode } from "./encoding.js";
import { normalizeHeaders } from "./headers.js";
import { HMAC_SHA256, type Jwk, type SigningKey, type VerificationKey } from "./keys.js";
import { NonceCache } from "./nonce.js";
import { FormatError, VerificationError, type Reason } from "./reasons.js";
import { buildMessageBase, parseSignature, serializeSignatureParams, signBytes } from "./rfc9421.js";
import { NEXT_LABEL, SIG_V1, verifyRequest, type Profile, type VerifyResult } from "./sigv1.js";
import { STANDARD_WEBHOOKS_V1, verifyStandard } from "./stdwebhooks.js";
import { CHALLENGE_TYPE, defaultNonceCache, Keys, markUnavailable, PROFILES, type VerifyOptions } from "./verify.js";
import { DEFAULT_MAX_AGE, epochSeconds, type Freshness } from "./freshness.js";

/**
 * How old a broker message may be: its age counts from `enqueuedAt`, the broker's enqueue time
 * (amqplib `msg.properties.timestamp`, nats.js `msg.info.timestampNanos`; a `Date` or Unix
 * seconds), else from the signature's creation, and may be at most `maxAge` seconds (default 7
 * days). No nonce is checked for a delivery: dedupe by delivery id.
 */
export interface FreshnessOptions {
  enqueuedAt?: Date | number;
  maxAge?: number;
}

function freshnessOf(options: FreshnessOptions): Freshness {
  const maxAge = options.maxAge ?? DEFAULT_MAX_AGE;
  if (!Number.isInteger(maxAge) || maxAge <= 0) throw new FormatError("malformed", "maxAge must be a positive whole number of seconds");
  let enqueuedAt: number | undefined;
  try {
    enqueuedAt = epochSeconds(options.enqueuedAt);
  } catch (err) {
    throw new FormatError("malformed", err instanceof Error ? err.message : "bad enqueue time");
  }
  return enqueuedAt !== undefined ? { maxAge, enqueuedAt } : { maxAge };
}

export const EVENT_ID_HEADER = "hookproof-event-id";
export const DELIVERY_ID_HEADER = "hookproof-delivery-id";
export const SUBSCRIPTION_HEADER = "hookproof-subscription-id";
export const GENERATION_HEADER = "hookproof-generation";
export const ATTEMPT_HEADER = "hookproof-attempt";

/** `hookproof.sig.v1` on a broker message: `"@destination"` instead of the HTTP components. */
export const MESSAGE_COMPONENTS = [
  "@destination",
  "content-digest",
  "content-type",
  EVENT_ID_HEADER,
  DELIVERY_ID_HEADER,
  SUBSCRIPTION_HEADER,
  GENERATION_HEADER,
] as const;
export const SIG_V1_MESSAGE: Profile = { ...SIG_V1, components: MESSAGE_COMPONENTS };
export const SIG_V1_MESSAGE_NEXT: Profile = { ...SIG_V1_MESSAGE, label: NEXT_LABEL };

/**
 * Message headers as amqplib (`msg.properties.headers`: strings, Buffers, numbers), nats.js
 * (`msg.headers`: iterable of `[name, values[]]`) or a plain object give them.
 */
export type MessageHeaders =
  | Record<string, unknown>
  | Iterable<readonly [string, unknown]>
  | { keys(): Iterable<string>; values?(k: string): string[]; get(k: string): string };

/** A broker message: headers, body and the destination URI it was read from. */
export interface BrokerMessage {
  headers: MessageHeaders;
  body: Uint8Array;
  destination: string;
}

/** A verified broker delivery. */
export interface VerifiedBrokerDelivery {
  eventId: string;
  deliveryId: string;
  subscriptionId: string;
  generation: number | undefined;
  attempt: number | undefined;
  topic: string;
  version: string;
  aggregateId: string;
  aggregateVersion: number;
  occurredAt: string;
  payload: unknown;
  keyId: string | undefined;
  payloadDigest: string;
  profile: string;
  verified: string[];
  traceparent: string | undefined;
}

const MAX_HEADERS = 64;

function text(value: unknown): string {
  if (typeof value === "string") return value;
  if (value instanceof Uint8Array) {
    const s = Buffer.from(value).toString("latin1");
    if (!/^[\x00-\x7f]*$/.test(s)) throw new FormatError("malformed", "a header value is not ASCII");
    return s;
  }
  if (typeof value === "number" && Number.isInteger(value)) return String(value);
  if (typeof value === "bigint") return value.toString();
  throw new FormatError("malformed", "a message header value must be text");
}

/** A message's headers as lower-case text (`malformed` for anything else). */
export function messageHeaders(headers: MessageHeaders): Map<string, string> {
  const pairs: Array<[string, string]> = [];
  const push = (name: unknown, value: unknown): void => {
    if (typeof name !== "string") throw new FormatError("malformed", "header names must be strings");
    for (const v of Array.isArray(value) ? value : [value]) pairs.push([name, text(v)]);
    if (pairs.length > MAX_HEADERS) throw new FormatError("malformed", "too many headers");
  };
  if (headers === null || typeof headers !== "object") throw new FormatError("malformed", "headers are not name/value pairs");
  const h = headers as { keys?: unknown; get?: unknown; values?: unknown };
  if (typeof h.keys === "function" && typeof h.get === "function" && !(headers instanceof Map)) {
    // nats.js MsgHdrs
    const hdrs = headers as { keys(): Iterable<string>; values?(k: string): string[]; get(k: string): string };
    for (const name of hdrs.keys()) push(name, typeof hdrs.values === "function" ? hdrs.values(name) : hdrs.get(name));
  } else if (headers instanceof Map || typeof (headers as Iterable<unknown>)[Symbol.iterator] === "function") {
    for (const entry of headers as Iterable<unknown>) {
      if (!Array.isArray(entry) || entry.length !== 2) throw new FormatError("malformed", "headers are not name/value pairs");
      push(entry[0], entry[1]);
    }
  } else {
    for (const [name, value] of Object.entries(headers as Record<string, unknown>)) push(name, value);
  }
  return normalizeHeaders(pairs);
}

/** Percent-encode every UTF-8 byte outside RFC 3986 unreserved (`/` too): one URI segment. */
export function encodeSegment(value: string): string {
  return encodeURIComponent(value).replace(/[!'()*]/g, (c) => "%" + c.charCodeAt(0).toString(16).toUpperCase());
}

function authority(host: string, port: number): string {
  const h = host.toLowerCase();
  return h.includes(":") ? `[${h}]:${port}` : `${h}:${port}`;
}

/** `amqps://host:5671/<vhost>/<exchange>/<routingKey>`, each segment percent-encoded. */
export function amqpDestinationUri(
  scheme: string,
  host: string,
  port: number,
  vhost: string,
  exchange: string,
  routingKey: string,
): string {
  return `${scheme.toLowerCase()}://${authority(host, port)}/${encodeSegment(vhost)}/${encodeSegment(exchange)}/${encodeSegment(routingKey)}`;
}

/** `tls://host:4222/<subject>`. */
export function natsDestinationUri(scheme: string, host: string, port: number, subject: string): string {
  return `${scheme.toLowerCase()}://${authority(host, port)}/${encodeSegment(subject)}`;
}

/** Lowercase hex SHA-256 of the destination URI: a broker challenge's `endpointDigest`. */
export function destinationDigest(destinationUri: string): string {
  return createHash("sha256").update(destinationUri, "utf8").digest("hex");
}

/** Sign a message under `hookproof.sig.v1` (as the engine does): content-digest and the signature. */
export function signMessage(
  headers: MessageHeaders,
  body: Uint8Array,
  destination: string,
  options: { key: SigningKey; created?: number; lifetime?: number; nonce?: string; label?: string },
): Record<string, string> {
  const hdrs = messageHeaders(headers);
  const digest = contentDigest(body);
  hdrs.set("content-digest", digest);
  const created = options.created ?? Math.trunc(Date.now() / 1000);
  const params: Array<[string, number | string]> = [
    ["created", created],
    ["expires", created + (options.lifetime ?? 300)],
    ["keyid", options.key.keyId],
    ["alg", options.key.alg],
    ["nonce", options.nonce ?? randomBytes(16).toString("base64url")],
    ["tag", SIG_V1_MESSAGE.tag],
  ];
  const sigParams = serializeSignatureParams(MESSAGE_COMPONENTS, params);
  const base = buildMessageBase(destination, hdrs, MESSAGE_COMPONENTS, sigParams);
  const label = options.label ?? SIG_V1_MESSAGE.label;
  return {
    "content-digest": digest,
    "signature-input": `${label}=${sigParams}`,
    signature: `${label}=:${b64Encode(signBytes(options.key, base))}:`,
  };
}

const REFRESH_ON: readonly Reason[] = ["unknown_key", "bad_signature", "key_not_yet_valid"];

interface MessageVerification {
  ok: boolean;
  reason: Reason;
  verified: string[];
  result: VerifyResult;
}

/** Every accepted signature of a message, each verified on its own (never throws). */
export async function verifyMessageAny(
  message: BrokerMessage,
  options: VerifyOptions & FreshnessOptions & { acceptNotBefore?: boolean },
): Promise<MessageVerification> {
  let hdrs: Map<string, string>;
  let freshness: Freshness;
  try {
    freshness = freshnessOf(options);
    hdrs = messageHeaders(message.headers);
  } catch (err) {
    const detail = err instanceof Error ? err.message : "bad headers";
    const bad: VerifyResult = { ok: false, reason: "malformed", detail };
    return { ok: false, reason: "malformed", verified: [], result: bad };
  }
  const keys = new Keys(options);
  const wanted = new Set(options.accept ?? PROFILES);
  const now = Math.trunc((options.now?.getTime() ?? Date.now()) / 1000);
  const acceptNotBefore = options.acceptNotBefore ?? false;
  const expected: Record<string, string> = {};
  if (options.subscriptionId !== undefined) expected[SUBSCRIPTION_HEADER] = options.subscriptionId;
  if (options.generation !== undefined) expected[GENERATION_HEADER] = String(options.generation);
  const sigInput = hdrs.get("signature-input") ?? "";
  const present: Array<[string, Profile | undefined]> = [];
  if (sigInput.includes(`${SIG_V1_MESSAGE.label}=`)) present.push([SIG_V1.name, SIG_V1_MESSAGE]);
  if (sigInput.includes(`${NEXT_LABEL}=`)) present.push([`${SIG_V1.name}#${NEXT_LABEL}`, SIG_V1_MESSAGE_NEXT]);
  if (hdrs.has("webhook-signature")) present.push([STANDARD_WEBHOOKS_V1, undefined]);
  const results = new Map<string, VerifyResult>();
  for (const [name, profile] of present) {
    if (!wanted.has(name.split("#", 1)[0]!)) continue;
    let res: VerifyResult;
    if (profile === undefined) {
      const std = async (refresh: boolean): Promise<VerifyResult> =>
        verifyStandard(hdrs, message.body, { keys: await keys.all(refresh), now, acceptNotBefore, freshness });
      res = await std(false);
      if (!res.ok && REFRESH_ON.includes(res.reason) && keys.mayRefresh()) res = await std(true);
      res = markUnavailable(res, keys);
    } else {
      let kid: string | undefined;
      let alg: unknown;
      try {
        const parsed = parseSignature(hdrs, profile.label);
        kid = parsed.keyId;
        alg = parsed.params.get("alg");
      } catch {
        kid = undefined;
      }
      let key: VerificationKey | undefined;
      let failed: string | undefined;
      try {
        key = await keys.lookup(kid, alg);
      } catch (err) {
        key = undefined;
        failed = err instanceof Error ? err.name : "Error";
      }
      res = verifyRequest("POST", "", hdrs, message.body, {
        keys: (id) => (id === kid ? key : undefined),
        now,
        profile,
        acceptNotBefore,
        destination: message.destination,
        freshness,
        ...(Object.keys(expected).length > 0 ? { expected } : {}),
      });
      res = markUnavailable(res, keys, failed);
    }
    results.set(name, res);
  }
  if (results.size === 0) {
    const none: VerifyResult = { ok: false, reason: "malformed", detail: "no accepted signature" };
    return { ok: false, reason: "malformed", verified: [], result: none };
  }
  const verified = [...new Set([...results].filter(([, r]) => r.ok).map(([n]) => n.split("#", 1)[0]!))];
  const all = [...results.values()];
  const chosen = all.find((r) => r.ok) ?? all[0]!;
  return { ok: chosen.ok, reason: chosen.reason, verified, result: chosen };
}

function asInt(value: string | undefined): number | undefined {
  return value !== undefined && /^[0-9]{1,15}$/.test(value) ? Number(value) : undefined;
}

/**
 * Verify a message read from `message.destination` and return the delivery; throws
 * `VerificationError` with the Python SDK's reason code otherwise (its `transient`: leave the
 * message for redelivery, never drop it). `subscriptionId` pins the subscription. The message's
 * age is judged by `enqueuedAt` / `maxAge` (see `FreshnessOptions`), never the HTTP 300 s; no
 * nonce is checked (`nonceCache` is not consulted): dedupe by delivery id.
 */
export async function verifyBrokerMessage(
  message: BrokerMessage,
  options: VerifyOptions & FreshnessOptions,
): Promise<VerifiedBrokerDelivery> {
  const res = await verifyMessageAny(message, { ...options, acceptNotBefore: false });
  if (!res.ok) throw new VerificationError(res.reason as Exclude<Reason, "ok">, res.result.detail, res.result.keyId);
  const hdrs = messageHeaders(message.headers);
  if (options.subscriptionId !== undefined && hdrs.get(SUBSCRIPTION_HEADER) !== options.subscriptionId) {
    throw new VerificationError("bad_signature", "message is for another subscription", res.result.keyId);
  }
  let doc: Record<string, unknown>;
  try {
    doc = JSON.parse(Buffer.from(message.body).toString("utf8")) as Record<string, unknown>;
  } catch {
    throw new VerificationError("malformed", "delivery body is not JSON", res.result.keyId);
  }
  if (doc === null || typeof doc !== "object" || Array.isArray(doc)) {
    throw new VerificationError("malformed", "delivery body is not a JSON object", res.result.keyId);
  }
  const version = doc.aggregateVersion;
  if (typeof version !== "number" || !Number.isInteger(version) || version < 0) {
    throw new VerificationError("malformed", "aggregateVersion must be a non-negative integer", res.result.keyId);
  }
  for (const name of ["eventId", "aggregateId", "type"]) {
    if (typeof doc[name] !== "string" || doc[name] === "") {
      throw new VerificationError("malformed", `${name} must be a non-empty string`, res.result.keyId);
    }
  }
  for (const name of [EVENT_ID_HEADER, "webhook-id"]) {
    const v = hdrs.get(name);
    if (v !== undefined && v !== doc.eventId) {
      throw new VerificationError("malformed", `${name} differs from the body's eventId`, res.result.keyId);
    }
  }
  return {
    eventId: doc.eventId as string,
    deliveryId: hdrs.get(DELIVERY_ID_HEADER) ?? "",
    subscriptionId: hdrs.get(SUBSCRIPTION_HEADER) ?? "",
    generation: asInt(hdrs.get(GENERATION_HEADER)),
    attempt: asInt(hdrs.get(ATTEMPT_HEADER)),
    topic: doc.type as string,
    version: String(doc.version ?? ""),
    aggregateId: doc.aggregateId as string,
    aggregateVersion: version,
    occurredAt: String(doc.occurredAt ?? ""),
    payload: doc.payload,
    keyId: res.result.keyId,
    payloadDigest: contentDigest(message.body),
    profile: res.verified[0]!,
    verified: res.verified,
    traceparent: hdrs.get("traceparent"),
  };
}

/** `ok` with the response `body` to POST for `challengeId`, or the refusal `reason`. */
export interface BrokerChallengeAnswer {
  ok: boolean;
  reason: string;
  challengeId?: string;
  body?: Buffer;
}

const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:[Zz]|[+-]\d{2}:\d{2})$/;

/** Whether a message body is a `hookproof.challenge.v1`. */
export function isChallengeMessage(body: Uint8Array): boolean {
  try {
    const doc = JSON.parse(Buffer.from(body).toString("utf8")) as { type?: unknown } | null;
    return doc !== null && typeof doc === "object" && doc.type === CHALLENGE_TYPE;
  } catch {
    return false;
  }
}

/**
 * Verify a challenge read from `message.destination` and build the
 * `hookproof.challenge-response.v1` body (never throws). The proof is the HMAC under the secret
 * that verified the challenge, else an Ed25519 signature under `receiptPrivateKey`. A challenge
 * id is answered once per nonce cache.
 */
export async function answerBrokerChallenge(
  message: BrokerMessage,
  options: VerifyOptions & { receiptPrivateKey?: Jwk },
): Promise<BrokerChallengeAnswer> {
  const verifyOptions: VerifyOptions = { ...options };
  delete verifyOptions.subscriptionId;
  delete verifyOptions.generation;
  const res = await verifyMessageAny(message, { ...verifyOptions, acceptNotBefore: true });
  if (!res.ok) return { ok: false, reason: res.reason };
  const namedKey = !(res.verified.length === 1 && res.verified[0] === STANDARD_WEBHOOKS_V1);
  let challengeId: string | undefined;
  const refuse = (reason: string): BrokerChallengeAnswer => ({ ok: false, reason, ...(challengeId !== undefined ? { challengeId } : {}) });
  let doc: Record<string, unknown>;
  try {
    doc = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(message.body)) as Record<string, unknown>;
  } catch {
    return refuse("malformed");
  }
  if (doc === null || typeof doc !== "object" || doc.type !== CHALLENGE_TYPE) return refuse("malformed");
  for (const name of CHALLENGE_FIELDS) if (!(name in doc)) return refuse("malformed");
  if (typeof doc.challengeId !== "string" || typeof doc.expiresAt !== "string" || !RFC3339.test(doc.expiresAt)) return refuse("malformed");
  challengeId = doc.challengeId;
  const hdrs = messageHeaders(message.headers);
  for (const name of [EVENT_ID_HEADER, DELIVERY_ID_HEADER, "webhook-id"]) {
    if (hdrs.get(name) !== challengeId) return refuse("mismatch");
  }
  if (hdrs.get(SUBSCRIPTION_HEADER) !== doc.subscriptionId) return refuse("mismatch");
  if (hdrs.get(GENERATION_HEADER) !== String(doc.generation)) return refuse("mismatch");
  if (namedKey && doc.keyId !== res.result.keyId) return refuse("mismatch");
  if (options.subscriptionId !== undefined && doc.subscriptionId !== options.subscriptionId) return refuse("wrong_subscription");
  if (doc.endpointDigest !== destinationDigest(message.destination)) return refuse("wrong_endpoint");
  const now = (options.now?.getTime() ?? Date.now()) / 1000;
  const expiresAt = Date.parse((doc.expiresAt as string).replace(" ", "T")) / 1000;
  if (Number.isNaN(expiresAt)) return refuse("malformed");
  if (expiresAt < now) return refuse("expired");
  const secret = res.result.alg === HMAC_SHA256 ? res.result.key?.secret : undefined;
  let body: Buffer;
  try {
    body = buildChallengeResponse(
      message.body,
      secret !== undefined ? { secret } : options.receiptPrivateKey !== undefined ? { receiptPrivateKey: options.receiptPrivateKey } : {},
    );
  } catch {
    return refuse("malformed");
  }
  const cache: NonceCache | undefined = options.nonceCache === null ? undefined : (options.nonceCache ?? defaultNonceCache());
  if (cache !== undefined && !cache.checkAndAdd("hookproof.challenge", challengeId, Math.ceil(expiresAt), Math.trunc(now))) {
    return refuse("replayed");
  }
  return { ok: true, reason: "ok", challengeId, body };
}

/** `{engine}/v1/challenges/{challengeId}/response`. */
export function challengeResponseUrl(engineUrl: string, challengeId: string): string {
  return `${engineUrl.replace(/\/+$/, "")}/v1/challenges/${encodeSegment(challengeId)}/response`;
}

/** POST an `ok` answer to the engine (no token: the proof inside authenticates it). */
export async function sendChallengeResponse(
  engineUrl: string,
  answer: BrokerChallengeAnswer,
  options: { fetch?: typeof fetch } = {},
): Promise<{ status: number; body: string }> {
  if (!answer.ok || answer.challengeId === undefined || answer.body === undefined) {
    throw new TypeError(`a refused challenge is not answered (${answer.reason})`);
  }
  const doFetch = options.fetch ?? fetch;
  const resp = await doFetch(challengeResponseUrl(engineUrl, answer.challengeId), {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: answer.body,
    redirect: "manual",
  });
  return { status: resp.status, body: await resp.text() };
}
