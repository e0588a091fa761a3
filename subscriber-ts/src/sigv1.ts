/**
 * The `hookproof.sig.v1` and `hookproof.receipt.v1` RFC 9421 profiles: `signRequest` and
 * `verifyRequest`, check for check in the Python SDK's order (parse, parameters, tag, coverage,
 * time window, key, body digest, signature, pinned fields, nonce replay).
 */
import { randomBytes } from "node:crypto";

import { contentDigest, DigestError, verifyContentDigest } from "./digest.js";
import { b64Encode } from "./encoding.js";
import { judgeFreshness, type Freshness } from "./freshness.js";
import { normalizeHeaders, type HeadersLike } from "./headers.js";
import { ED25519, HMAC_SHA256, type SigningKey, type VerificationKey } from "./keys.js";
import { NonceCache } from "./nonce.js";
import { FormatError, type Reason } from "./reasons.js";
import {
  buildMessageBase,
  buildSignatureBase,
  parseSignature,
  parseTarget,
  serializeSignatureParams,
  signBytes,
  verifyBytes,
  type ParsedSignature,
  type Target,
} from "./rfc9421.js";

export const PROFILE_COMPONENTS = [
  "@method",
  "@target-uri",
  "content-digest",
  "content-type",
  "webhook-id",
  "webhook-delivery-id",
  "webhook-subscription",
  "webhook-generation",
] as const;
export const RECEIPT_COMPONENTS = ["@method", "@target-uri", "content-digest", "content-type"] as const;
const PARAM_ORDER = ["created", "expires", "keyid", "alg", "nonce", "tag"];
const MAX_TEXT_PARAM = 256;

/** A signature profile: label, tag, exact covered components and parameter rules. */
export interface Profile {
  name: string;
  label: string;
  tag: string;
  components: readonly string[];
  algorithms: readonly string[];
  requireNonce: boolean;
  /** seconds */
  maxLifetime: number;
  /** seconds */
  clockSkew: number;
}

export const SIG_V1: Profile = {
  name: "hookproof.sig.v1",
  label: "hookproof",
  tag: "hookproof.sig.v1",
  components: PROFILE_COMPONENTS,
  algorithms: [ED25519, HMAC_SHA256],
  requireNonce: true,
  maxLifetime: 3600,
  clockSkew: 60,
};
/** The second label a key rollout uses for the target key. */
export const NEXT_LABEL = "hookproof-next";
export const SIG_V1_NEXT: Profile = { ...SIG_V1, label: NEXT_LABEL };
export const RECEIPT_V1: Profile = {
  name: "hookproof.receipt.v1",
  label: "receipt",
  tag: "hookproof.receipt.v1",
  components: RECEIPT_COMPONENTS,
  algorithms: [ED25519],
  requireNonce: false,
  maxLifetime: 3600,
  clockSkew: 60,
};

/** Outcome of one verification; safe to log (no secret, no body). */
export interface VerifyResult {
  ok: boolean;
  reason: Reason;
  detail: string;
  keyId?: string;
  digest?: string;
  created?: number;
  expires?: number;
  alg?: string;
  nonce?: string;
  key?: VerificationKey;
}

/** Maps a key id to a key (undefined when unknown). */
export type KeyLookup = (keyId: string) => VerificationKey | undefined;

export interface VerifyRequestOptions {
  keys: KeyLookup;
  /** epoch seconds (default: now) */
  now?: number;
  nonceCache?: NonceCache;
  profile?: Profile;
  clockSkew?: number;
  /** Admit a key still in state NOT_BEFORE (challenges signed with the next key). */
  acceptNotBefore?: boolean;
  /** Covered fields this receiver requires (lower-case names): anything else is `bad_signature`. */
  expected?: Record<string, string>;
  /** A broker message: `"@destination"` is this URI (method and URL are not used). */
  destination?: string;
  /** A broker message's age rule: replaces the signature's time window; no nonce is checked. */
  freshness?: Freshness;
}

function fail(reason: Reason, detail: string, info: Partial<VerifyResult> = {}): VerifyResult {
  return { ...info, ok: false, reason, detail };
}

/** The `keyid` of the profile's signature, or undefined (nothing verified). */
export function peekKeyId(headers: HeadersLike, profile: Profile = SIG_V1): string | undefined {
  try {
    return parseSignature(normalizeHeaders(headers), profile.label).keyId;
  } catch {
    return undefined;
  }
}

/** Verify `profile`'s signature on a request. Never throws: anything unexpected is `malformed`. */
export function verifyRequest(
  method: string,
  url: string,
  headers: HeadersLike,
  body: Uint8Array,
  options: VerifyRequestOptions,
): VerifyResult {
  try {
    return verify(method, url, headers, body, options);
  } catch (err) {
    return fail("malformed", `unexpected input (${err instanceof Error ? err.name : typeof err})`);
  }
}

function verify(
  method: string,
  url: string,
  headers: HeadersLike,
  body: Uint8Array,
  options: VerifyRequestOptions,
): VerifyResult {
  const profile = options.profile ?? SIG_V1;
  const now = Math.trunc(options.now ?? Date.now() / 1000);
  const skew = options.clockSkew ?? profile.clockSkew;
  if (!(body instanceof Uint8Array)) return fail("malformed", "body must be bytes");
  const digest = contentDigest(body);
  let hdrs: Map<string, string>;
  let parsed: ParsedSignature;
  let target: Target | undefined;
  try {
    hdrs = normalizeHeaders(headers);
    parsed = parseSignature(hdrs, profile.label);
    target = options.destination === undefined ? parseTarget(url) : undefined;
  } catch (err) {
    if (err instanceof FormatError) return fail(err.reason, err.message, { digest });
    throw err;
  }
  const p = parsed.params;
  const keyId = parsed.keyId;
  const created = p.get("created");
  const expires = p.get("expires");
  const alg = p.get("alg");
  const info: Partial<VerifyResult> = { digest };
  if (keyId !== undefined) info.keyId = keyId;
  if (typeof created === "number") info.created = created;
  if (typeof expires === "number") info.expires = expires;
  if (typeof alg === "string") info.alg = alg;
  const required = ["created", "expires", "keyid", "alg", "tag", ...(profile.requireNonce ? ["nonce"] : [])];
  const unknown = [...p.keys()].filter((k) => !PARAM_ORDER.includes(k)).sort();
  if (unknown.length > 0) return fail("malformed", `unexpected parameters: ${unknown.join(", ")}`, info);
  const absent = required.filter((k) => !p.has(k)).sort();
  if (absent.length > 0) return fail("malformed", `missing parameters: ${absent.join(", ")}`, info);
  if (p.get("tag") !== profile.tag) return fail("wrong_tag", "tag parameter differs from the profile", info);
  const covered = new Set(parsed.components);
  const missing = profile.components.filter((c) => !covered.has(c));
  if (missing.length > 0) return fail("component_missing", `not covered: ${missing.join(", ")}`, info);
  if (parsed.components.length !== profile.components.length) {
    return fail("malformed", "covers components outside the profile", info);
  }
  const c = created as number;
  const e = expires as number;
  const kid = keyId as string;
  const nonce = p.get("nonce");
  if (nonce !== undefined) {
    const n = String(nonce);
    if (!(n.length > 0 && n.length <= MAX_TEXT_PARAM)) return fail("malformed", "nonce length out of range", info);
    info.nonce = n;
  }
  if (!(kid.length > 0 && kid.length <= MAX_TEXT_PARAM)) return fail("malformed", "keyid length out of range", info);
  if (e < c) return fail("malformed", "expires precedes created", info);
  if (e - c > profile.maxLifetime) return fail("malformed", "signature lifetime exceeds the profile maximum", info);
  let at = now;
  let nonceCache = options.nonceCache;
  if (options.freshness !== undefined) {
    const [problem, when] = judgeFreshness(options.freshness, c, e, now, skew);
    if (problem !== undefined) return fail(problem[0], problem[1], info);
    at = when;
    nonceCache = undefined; // a broker consumer dedupes by delivery id
  } else {
    if (c > now + skew) return fail("not_yet_valid", "created is in the future", info);
    if (e < now - skew) return fail("expired", "signature expired", info);
  }
  if (!profile.algorithms.includes(alg as string)) {
    return fail("alg_mismatch", `algorithm '${String(alg)}' not allowed by the profile`, info);
  }

  const key = options.keys(kid);
  if (key === undefined) return fail("unknown_key", "key id not known", info);
  if (key.state === "REVOKED") return fail("revoked_key", "key is revoked", info);
  if (!options.acceptNotBefore && (key.state === "NOT_BEFORE" || (key.notBefore !== undefined && key.notBefore > at + skew))) {
    return fail("key_not_yet_valid", "key is not valid yet", info);
  }
  if (key.notAfter !== undefined && key.notAfter < at - skew) return fail("expired", "key validity ended", info);
  if (key.alg !== alg) return fail("alg_mismatch", "alg parameter differs from the key's algorithm", info);

  let base: Buffer;
  try {
    base =
      target !== undefined
        ? buildSignatureBase(method, target, hdrs, parsed.components, parsed.signatureParams)
        : buildMessageBase(options.destination as string, hdrs, parsed.components, parsed.signatureParams);
  } catch (err) {
    if (err instanceof FormatError) return fail(err.reason, err.message, info);
    throw err;
  }
  const sent = hdrs.get("content-digest");
  if (covered.has("content-digest") && sent !== digest) {
    try {
      if (!verifyContentDigest(sent as string, body)) {
        return fail("digest_mismatch", "body does not match Content-Digest", info);
      }
    } catch (err) {
      if (err instanceof DigestError) return fail("malformed", err.message, info);
      throw err;
    }
  }
  if (!parsed.labelsMatch || !verifyBytes(key, base, parsed.signature)) return fail("bad_signature", "signature does not verify", info);
  for (const [name, want] of Object.entries(options.expected ?? {})) {
    const lname = name.toLowerCase();
    if (!covered.has(lname) || hdrs.get(lname) !== want) {
      return fail("bad_signature", `signed ${lname} is not this receiver's`, info);
    }
  }
  if (nonceCache !== undefined && info.nonce !== undefined && !nonceCache.checkAndAdd(kid, info.nonce, e, now)) {
    return fail("replayed_nonce", "nonce already seen", info);
  }
  return { ...info, ok: true, reason: "ok", detail: "", key };
}

export interface SignRequestOptions {
  key: SigningKey;
  created?: number;
  expires?: number;
  nonce?: string;
  profile?: Profile;
  label?: string;
  tag?: string;
  components?: readonly string[];
  /** seconds (default 300) */
  lifetime?: number;
}

/**
 * Sign a request; return the headers to add: Content-Digest, Signature-Input, Signature.
 * `headers` must already hold the covered fields other than Content-Digest.
 */
export function signRequest(
  method: string,
  url: string,
  headers: HeadersLike,
  body: Uint8Array,
  options: SignRequestOptions,
): Record<string, string> {
  const profile = options.profile ?? SIG_V1;
  const key = options.key;
  if (!profile.algorithms.includes(key.alg)) throw new TypeError(`profile ${profile.name} does not allow ${key.alg}`);
  const label = options.label ?? profile.label;
  const tag = options.tag ?? profile.tag;
  const comps = options.components ?? profile.components;
  const created = options.created ?? Math.trunc(Date.now() / 1000);
  const expires = options.expires ?? created + (options.lifetime ?? 300);
  let nonce = options.nonce;
  if (nonce === undefined && profile.requireNonce) nonce = randomBytes(16).toString("base64url");
  const hdrs = normalizeHeaders(headers);
  const digest = contentDigest(body);
  const existing = hdrs.get("content-digest");
  if (existing !== undefined && existing !== digest) throw new TypeError("existing Content-Digest does not match the body");
  hdrs.set("content-digest", digest);
  const params: Array<[string, number | string]> = [
    ["created", created],
    ["expires", expires],
    ["keyid", key.keyId],
    ["alg", key.alg],
  ];
  if (nonce !== undefined) params.push(["nonce", nonce]);
  params.push(["tag", tag]);
  const sigParams = serializeSignatureParams(comps, params);
  const base = buildSignatureBase(method, url, hdrs, comps, sigParams);
  return {
    "Content-Digest": digest,
    "Signature-Input": `${label}=${sigParams}`,
    Signature: `${label}=:${b64Encode(signBytes(key, base))}:`,
  };
}
