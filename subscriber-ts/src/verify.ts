/**
 * `verifyDelivery(request, options)`: verify every accepted signature a delivery carries
 * (`hookproof.sig.v1` under label `hookproof` and, during a key rollout, `hookproof-next`;
 * `standard-webhooks.v1`), accept it when one verifies (as the Python SDK's `averify_any`), and
 * return the event with its ids; otherwise throw `VerificationError` with the reason code of
 * the first signature that failed.
 */
import { contentDigest } from "./digest.js";
import { normalizeHeaders, type HeadersLike } from "./headers.js";
import { JwksCache } from "./jwks.js";
import { decodeSecret, HMAC_SHA256, parseJwks, type Jwks, type VerificationKey } from "./keys.js";
import { NonceCache } from "./nonce.js";
import { VerificationError, type Reason } from "./reasons.js";
import { NEXT_LABEL, SIG_V1, SIG_V1_NEXT, verifyRequest, type VerifyResult } from "./sigv1.js";
import { STANDARD_WEBHOOKS_V1, verifyStandard } from "./stdwebhooks.js";
import { parseSignature } from "./rfc9421.js";

/** The profiles a subscriber accepts by default. */
export const PROFILES = [SIG_V1.name, STANDARD_WEBHOOKS_V1] as const;
export const CHALLENGE_TYPE = "hookproof.challenge.v1";

/** A request as every Node framework can give it: `url` absolute (or set `options.endpoint`). */
export interface WebhookRequest {
  method: string;
  url: string;
  headers: HeadersLike;
  body: Uint8Array;
}

/** Where keys come from and what the receiver pins. */
export interface VerifyOptions {
  /** A JWK Set object (the engine's keys, with `state`, `nbf`, `exp`). */
  jwks?: Jwks;
  /** The engine's JWKS URL: fetched and cached (one shared `JwksCache` per URL). */
  jwksUrl?: string;
  /** A `JwksCache` of your own. */
  jwksCache?: JwksCache;
  /** The subscription's shared secret: standard base64 or `whsec_...`. */
  secret?: string;
  /** The verification time (default: now). */
  now?: Date;
  /** Replay cache (default: one shared by the process); `null` turns replay checks off. */
  nonceCache?: NonceCache | null;
  /** The public URL registered with hookproof (the signed `@target-uri`); default `request.url`. */
  endpoint?: string;
  /** Refuse deliveries signed for another subscription (`bad_signature`). */
  subscriptionId?: string;
  /** Refuse deliveries signed for another generation (`bad_signature`). */
  generation?: number;
  /** Profiles accepted (default both). */
  accept?: readonly string[];
}

/** A verified delivery: the event and its ids. */
export interface VerifiedDelivery {
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
  /** The Content-Digest value of the body (what a receipt's `payloadDigest` carries). */
  payloadDigest: string;
  /** The first profile that verified. */
  profile: string;
  /** Every profile that verified. */
  verified: string[];
  traceparent: string | undefined;
}

/** Per-profile results of one request (`result` is the first success, else the first failure). */
export interface ProfileVerification {
  ok: boolean;
  reason: Reason;
  verified: string[];
  results: Map<string, VerifyResult>;
  result: VerifyResult;
}

const DEFAULT_NONCES = new NonceCache();
const PARSED_JWKS = new WeakMap<Jwks, Map<string, VerificationKey>>();

function parsedJwks(jwks: Jwks): Map<string, VerificationKey> {
  let keys = PARSED_JWKS.get(jwks);
  if (keys === undefined) {
    keys = parseJwks(jwks);
    PARSED_JWKS.set(jwks, keys);
  }
  return keys;
}
const SHARED_CACHES = new Map<string, JwksCache>();

/** The process-wide replay cache used when no `nonceCache` option is given. */
export function defaultNonceCache(): NonceCache {
  return DEFAULT_NONCES;
}

function cacheFor(url: string): JwksCache {
  let cache = SHARED_CACHES.get(url);
  if (cache === undefined) {
    if (SHARED_CACHES.size >= 64) SHARED_CACHES.clear();
    cache = new JwksCache(url);
    SHARED_CACHES.set(url, cache);
  }
  return cache;
}

/** The key sources of one set of options. */
export class Keys {
  readonly cache: JwksCache | undefined;
  readonly fixed: Map<string, VerificationKey> | undefined;
  readonly secret: Buffer | undefined;

  constructor(options: VerifyOptions) {
    this.cache = options.jwksCache ?? (options.jwksUrl !== undefined ? cacheFor(options.jwksUrl) : undefined);
    this.fixed = options.jwks !== undefined ? parsedJwks(options.jwks) : undefined;
    this.secret = options.secret !== undefined ? decodeSecret(options.secret) : undefined;
    if (this.cache === undefined && this.fixed === undefined && this.secret === undefined) {
      throw new TypeError("verification needs jwks, jwksUrl, jwksCache or secret");
    }
  }

  private secretKey(keyId: string): VerificationKey {
    return { keyId, alg: HMAC_SHA256, secret: this.secret!, state: "ACTIVE" };
  }

  /** The key a `hookproof.sig.v1` signature names (fetching the JWKS if needed). */
  async lookup(keyId: string | undefined, alg: unknown): Promise<VerificationKey | undefined> {
    if (keyId === undefined) return undefined;
    const known = this.fixed?.get(keyId) ?? (this.cache !== undefined ? await this.cache.get(keyId) : undefined);
    if (known !== undefined) return known;
    // the registration response names no key id for a secret: every key id resolves to it
    const publicSource = this.fixed !== undefined || this.cache !== undefined;
    if (this.secret !== undefined && (!publicSource || alg === HMAC_SHA256)) return this.secretKey(keyId);
    return undefined;
  }

  /** Every key (a Standard Webhooks signature names none). */
  async all(refresh: boolean): Promise<VerificationKey[]> {
    const out = [...(this.fixed?.values() ?? [])];
    if (this.cache !== undefined) {
      if (refresh) await this.cache.refresh();
      out.push(...(await this.cache.all()));
    }
    if (this.secret !== undefined) out.push(this.secretKey("secret"));
    return out;
  }

  mayRefresh(): boolean {
    return this.cache !== undefined && this.cache.mayRefresh();
  }

  /** Why the keys could not be downloaded (the JWKS cache's last fetch failed), or undefined. */
  unavailable(): string | undefined {
    const error = this.cache?.lastError;
    return error !== undefined ? `JWKS fetch failed: ${error}` : undefined;
  }
}

/**
 * `res` with `keys_unavailable` for `unknown_key` when the keys could not be downloaded (the key
 * may well exist: we could not look); every other outcome unchanged.
 */
export function markUnavailable(res: VerifyResult, keys: Keys, failed?: string): VerifyResult {
  const why = failed ?? keys.unavailable();
  if (res.reason !== "unknown_key" || why === undefined) return res;
  return { ...res, reason: "keys_unavailable", detail: `the verification keys could not be downloaded (${why}); try again later` };
}

/** Which signatures a request carries (by header presence; nothing verified). */
export function presentProfiles(headers: HeadersLike): string[] {
  return profilesIn(headers);
}

function profilesIn(headers: HeadersLike, normalized?: Map<string, string>): string[] {
  let hdrs: Map<string, string>;
  try {
    hdrs = normalized ?? normalizeHeaders(headers);
  } catch {
    return [];
  }
  const out: string[] = [];
  const sigInput = hdrs.get("signature-input") ?? "";
  if (sigInput.includes(`${SIG_V1.label}=`)) out.push(SIG_V1.name);
  if (sigInput.includes(`${NEXT_LABEL}=`)) out.push(`${SIG_V1.name}#${NEXT_LABEL}`);
  if (hdrs.has("webhook-signature")) out.push(STANDARD_WEBHOOKS_V1);
  return out;
}

const REFRESH_ON: readonly Reason[] = ["unknown_key", "bad_signature", "key_not_yet_valid"];

/** The key id and alg a labelled signature names (nothing verified). */
function peek(headers: Map<string, string> | undefined, label: string): { keyId?: string; alg?: unknown } {
  if (headers === undefined) return {};
  try {
    const parsed = parseSignature(headers, label);
    return { ...(parsed.keyId !== undefined ? { keyId: parsed.keyId } : {}), alg: parsed.params.get("alg") };
  } catch {
    return {};
  }
}

/** Internal options of `verifyAny`. */
export interface VerifyAnyOptions extends VerifyOptions {
  acceptNotBefore?: boolean;
}

/** Verify every accepted signature the request carries (never throws for bad input). */
export async function verifyAny(request: WebhookRequest, options: VerifyAnyOptions): Promise<ProfileVerification> {
  const keys = new Keys(options);
  const wanted = new Set(options.accept ?? PROFILES);
  const now = Math.trunc((options.now?.getTime() ?? Date.now()) / 1000);
  const nonceCache = options.nonceCache === null ? undefined : (options.nonceCache ?? DEFAULT_NONCES);
  const url = options.endpoint ?? request.url;
  const acceptNotBefore = options.acceptNotBefore ?? false;
  const expected: Record<string, string> = {};
  if (options.subscriptionId !== undefined) expected["webhook-subscription"] = options.subscriptionId;
  if (options.generation !== undefined) expected["webhook-generation"] = String(options.generation);
  const results = new Map<string, VerifyResult>();
  let normalized: Map<string, string> | undefined;
  try {
    normalized = normalizeHeaders(request.headers);
  } catch {
    normalized = undefined;
  }
  for (const name of profilesIn(request.headers, normalized)) {
    const base = name.split("#", 1)[0]!;
    if (!wanted.has(base)) continue;
    let res: VerifyResult;
    if (base === STANDARD_WEBHOOKS_V1) {
      const std = async (refresh: boolean): Promise<VerifyResult> =>
        verifyStandard(request.headers, request.body, {
          keys: await keys.all(refresh),
          now,
          ...(nonceCache ? { nonceCache } : {}),
          acceptNotBefore,
        });
      res = await std(false);
      if (!res.ok && REFRESH_ON.includes(res.reason) && keys.mayRefresh()) res = await std(true);
      res = markUnavailable(res, keys);
    } else {
      const profile = name.endsWith(NEXT_LABEL) ? SIG_V1_NEXT : SIG_V1;
      const { keyId: kid, alg } = peek(normalized, profile.label);
      let key: VerificationKey | undefined;
      let failed: string | undefined;
      try {
        key = await keys.lookup(kid, alg);
      } catch (err) {
        key = undefined;
        failed = err instanceof Error ? err.name : "Error";
      }
      res = verifyRequest(request.method, url, request.headers, request.body, {
        keys: (id) => (id === kid ? key : undefined),
        now,
        profile,
        acceptNotBefore,
        ...(nonceCache ? { nonceCache } : {}),
        ...(Object.keys(expected).length > 0 ? { expected } : {}),
      });
      res = markUnavailable(res, keys, failed);
    }
    results.set(name, res);
  }
  if (results.size === 0) {
    const none: VerifyResult = { ok: false, reason: "malformed", detail: "no accepted signature" };
    return { ok: false, reason: "malformed", verified: [], results, result: none };
  }
  const verified = [...new Set([...results].filter(([, r]) => r.ok).map(([n]) => n.split("#", 1)[0]!))];
  const all = [...results.values()];
  const chosen = all.find((r) => r.ok) ?? all[0]!;
  return { ok: chosen.ok, reason: chosen.reason, verified, results, result: chosen };
}

function header(hdrs: Map<string, string>, name: string): string | undefined {
  return hdrs.get(name);
}

function asInt(text: string | undefined): number | undefined {
  return text !== undefined && /^[0-9]{1,15}$/.test(text) ? Number(text) : undefined;
}

/** Whether a body is a `hookproof.challenge.v1` (answer it with `answerChallenge`). */
export function isChallenge(body: Uint8Array): boolean {
  try {
    const doc = JSON.parse(Buffer.from(body).toString("utf8")) as unknown;
    return doc !== null && typeof doc === "object" && (doc as { type?: unknown }).type === CHALLENGE_TYPE;
  } catch {
    return false;
  }
}

/**
 * Verify a delivery and return the event with its ids; throws `VerificationError` (its `code`
 * one of the Python SDK's reason codes) when no accepted signature verifies or the verified
 * body is not a delivery (`malformed`).
 */
export async function verifyDelivery(request: WebhookRequest, options: VerifyOptions): Promise<VerifiedDelivery> {
  const res = await verifyAny(request, { ...options, acceptNotBefore: false });
  if (!res.ok) {
    const profile = [...res.results].find(([, r]) => r === res.result)?.[0]?.split("#", 1)[0];
    throw new VerificationError(res.reason as Exclude<Reason, "ok">, res.result.detail, res.result.keyId, profile);
  }
  const hdrs = normalizeHeaders(request.headers);
  let doc: Record<string, unknown>;
  try {
    doc = JSON.parse(Buffer.from(request.body).toString("utf8")) as Record<string, unknown>;
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
  const webhookId = header(hdrs, "webhook-id");
  if (webhookId !== undefined && webhookId !== doc.eventId) {
    throw new VerificationError("malformed", "Webhook-Id differs from the body's eventId", res.result.keyId);
  }
  return {
    eventId: doc.eventId as string,
    deliveryId: header(hdrs, "webhook-delivery-id") ?? "",
    subscriptionId: header(hdrs, "webhook-subscription") ?? "",
    generation: asInt(header(hdrs, "webhook-generation")),
    attempt: asInt(header(hdrs, "webhook-attempt")),
    topic: doc.type as string,
    version: String(doc.version ?? ""),
    aggregateId: doc.aggregateId as string,
    aggregateVersion: version,
    occurredAt: String(doc.occurredAt ?? ""),
    payload: doc.payload,
    keyId: res.result.keyId,
    payloadDigest: contentDigest(request.body),
    profile: res.verified[0]!,
    verified: res.verified,
    traceparent: header(hdrs, "traceparent"),
  };
}
