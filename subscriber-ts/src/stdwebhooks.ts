/**
 * The `standard-webhooks.v1` profile (the Standard Webhooks specification): `webhook-id`,
 * `webhook-timestamp` and `webhook-signature` (space-separated `v1,<base64 HMAC-SHA256>` and
 * `v1a,<base64 Ed25519>` over `{id}.{timestamp}.{body}`), verified as the Python SDK's
 * `verify_standard` does, with the same reason codes.
 */
import { contentDigest } from "./digest.js";
import { b64Encode, decodeBase64Strict } from "./encoding.js";
import { judgeFreshness, type Freshness } from "./freshness.js";
import { normalizeHeaders, type HeadersLike } from "./headers.js";
import { ED25519, HMAC_SHA256, type SigningKey, type VerificationKey } from "./keys.js";
import type { NonceCache } from "./nonce.js";
import type { Reason } from "./reasons.js";
import { signBytes, verifyBytes } from "./rfc9421.js";
import type { VerifyResult } from "./sigv1.js";

export const STANDARD_WEBHOOKS_V1 = "standard-webhooks.v1";
/** The reference libraries' window: five minutes either way (seconds). */
export const TOLERANCE_S = 300;
/** A broker message's clock skew, as `hookproof.sig.v1`'s. */
const SKEW = 60;
const MAX_ID = 256;
const MAX_SIGNATURES = 16;
const VERSION: Record<string, string> = { [HMAC_SHA256]: "v1", [ED25519]: "v1a" };

/** The exact bytes signed: `{id}.{timestamp}.{body}`. */
export function signedContent(msgId: string, timestamp: number | string, body: Uint8Array): Buffer {
  return Buffer.concat([Buffer.from(`${msgId}.${timestamp}.`, "utf8"), body]);
}

/** The `webhook-id`, `webhook-timestamp` and `webhook-signature` headers (one entry per key). */
export function signStandard(
  msgId: string,
  body: Uint8Array,
  keys: SigningKey | readonly SigningKey[],
  timestamp?: number,
): Record<string, string> {
  if (!msgId || !/^[\x00-\x7f]*$/.test(msgId) || msgId.includes(" ") || msgId.includes(".")) {
    throw new TypeError("webhook-id must be ASCII without spaces or dots");
  }
  const ts = Math.trunc(timestamp ?? Date.now() / 1000);
  const content = signedContent(msgId, ts, body);
  const seq = Array.isArray(keys) ? keys : [keys as SigningKey];
  if (seq.length === 0) throw new TypeError("at least one key is needed");
  return {
    "webhook-id": msgId,
    "webhook-timestamp": String(ts),
    "webhook-signature": seq.map((k) => `${VERSION[k.alg]},${b64Encode(signBytes(k, content))}`).join(" "),
  };
}

export interface VerifyStandardOptions {
  /** Every key the subscriber holds (the spec carries no key id): each is tried. */
  keys: readonly VerificationKey[];
  now?: number;
  tolerance?: number;
  nonceCache?: NonceCache;
  acceptNotBefore?: boolean;
  /** A broker message's age rule: replaces `tolerance` for the timestamp; no replay cache. */
  freshness?: Freshness;
}

function fail(reason: Reason, detail: string, info: Partial<VerifyResult> = {}): VerifyResult {
  return { ...info, ok: false, reason, detail };
}

function usable(key: VerificationKey, now: number, skew: number, acceptNotBefore: boolean): Reason | undefined {
  if (key.state === "REVOKED") return "revoked_key";
  if (!acceptNotBefore && (key.state === "NOT_BEFORE" || (key.notBefore !== undefined && key.notBefore > now + skew))) {
    return "key_not_yet_valid";
  }
  if (key.notAfter !== undefined && key.notAfter < now - skew) return "expired";
  return undefined;
}

/** Verify `webhook-signature`. Never throws. */
export function verifyStandard(headers: HeadersLike, body: Uint8Array, options: VerifyStandardOptions): VerifyResult {
  try {
    return verify(headers, body, options);
  } catch (err) {
    return fail("malformed", `unexpected input (${err instanceof Error ? err.name : typeof err})`);
  }
}

function verify(headers: HeadersLike, body: Uint8Array, options: VerifyStandardOptions): VerifyResult {
  if (!(body instanceof Uint8Array)) return fail("malformed", "body must be bytes");
  const digest = contentDigest(body);
  const now = Math.trunc(options.now ?? Date.now() / 1000);
  const tolerance = options.tolerance ?? TOLERANCE_S;
  const hdrs = normalizeHeaders(headers);
  const msgId = hdrs.get("webhook-id");
  const rawTs = hdrs.get("webhook-timestamp");
  const rawSig = hdrs.get("webhook-signature");
  if (!msgId || !rawTs || !rawSig) return fail("malformed", "webhook-id, -timestamp and -signature are required");
  if (msgId.length > MAX_ID) return fail("malformed", "webhook-id too long", { digest });
  if (!/^[0-9]{1,12}$/.test(rawTs)) return fail("malformed", "webhook-timestamp is not Unix seconds", { digest });
  const ts = Number(rawTs);
  const info: Partial<VerifyResult> = { digest, created: ts };
  let at = now;
  let nonceCache = options.nonceCache;
  if (options.freshness !== undefined) {
    const [problem, when] = judgeFreshness(options.freshness, ts, ts + tolerance, now, SKEW);
    if (problem !== undefined) return fail(problem[0], problem[1], info);
    at = when;
    nonceCache = undefined; // a broker consumer dedupes by delivery id
  } else {
    if (ts > now + tolerance) return fail("not_yet_valid", "webhook-timestamp is in the future", info);
    if (ts < now - tolerance) return fail("expired", "webhook-timestamp too old", info);
  }
  const sigs: Array<[string, Buffer]> = [];
  for (const item of rawSig.split(" ").slice(0, MAX_SIGNATURES)) {
    const comma = item.indexOf(",");
    if (comma < 0) continue;
    const version = item.slice(0, comma);
    if (version !== "v1" && version !== "v1a") continue; // other versions are ignored
    const raw = decodeBase64Strict(item.slice(comma + 1));
    if (raw !== null) sigs.push([version, raw]);
  }
  if (sigs.length === 0) return fail("malformed", "no v1 or v1a signature", info);
  const content = signedContent(msgId, rawTs, body);
  const wanted = new Set(sigs.map(([v]) => (v === "v1a" ? ED25519 : HMAC_SHA256)));
  const pool = options.keys.filter((k) => wanted.has(k.alg));
  if (pool.length === 0) return fail("unknown_key", "no key for the signature's algorithm", info);
  let refused: Reason | undefined;
  for (const key of pool) {
    for (const [version, sig] of sigs) {
      if (VERSION[key.alg] !== version || !verifyBytes(key, content, sig)) continue;
      const problem = usable(key, at, tolerance, options.acceptNotBefore ?? false);
      if (problem !== undefined) {
        refused ??= problem;
        continue;
      }
      Object.assign(info, { keyId: key.keyId, alg: key.alg, expires: ts + tolerance });
      if (nonceCache !== undefined && !nonceCache.checkAndAdd("standard-webhooks", `${msgId}.${rawTs}`, ts + tolerance, now)) {
        return fail("replayed_nonce", "webhook-id and timestamp seen", info);
      }
      return { ...info, ok: true, reason: "ok", detail: "", key };
    }
  }
  if (refused !== undefined) return fail(refused, "only an unusable key matches", info);
  return fail("bad_signature", "no signature verifies", info);
}
