/**
 * `answerChallenge(request, options)`: verify a signed `hookproof.challenge.v1` and answer it
 * with `hookproof.challenge-response.v1` (DESIGN.md section 11), as the Python SDK's
 * `ChallengeResponder`: the seven bound fields echoed with the same values and `proof`:
 * base64url(HMAC-SHA256(secret, exact body bytes)) when the challenge was signed with the
 * subscription's shared secret, else base64url(Ed25519 signature under the receipt key over the
 * exact body bytes) when a receipt key is given, else no proof.
 */
import { createHash, createHmac, sign as edSign } from "node:crypto";

import { b64urlEncode } from "./encoding.js";
import { normalizeHeaders } from "./headers.js";
import { HMAC_SHA256, jwkToSigningKey, type Jwk } from "./keys.js";
import { NonceCache } from "./nonce.js";
import { STANDARD_WEBHOOKS_V1 } from "./stdwebhooks.js";
import { CHALLENGE_TYPE, defaultNonceCache, verifyAny, type VerifyOptions, type WebhookRequest } from "./verify.js";

export const CHALLENGE_RESPONSE_TYPE = "hookproof.challenge-response.v1";
export const CHALLENGE_FIELDS = [
  "challengeId",
  "nonce",
  "subscriptionId",
  "generation",
  "endpointDigest",
  "expiresAt",
  "keyId",
] as const;
const HEX64 = /^[0-9a-f]{64}$/;
const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:[Zz]|[+-]\d{2}:\d{2})$/;

export interface ChallengeOptions extends VerifyOptions {
  /** Ed25519 private JWK (with `kid`) of the receipt key registered with the subscription. */
  receiptPrivateKey?: Jwk;
}

/** What to send back. `reason` is `ok` or why the challenge was refused. */
export interface ChallengeAnswer {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
  reason: string;
}

/** Lowercase hex SHA-256 of the normalised endpoint (UTF-8). */
export function endpointDigest(normalisedEndpoint: string): string {
  return createHash("sha256").update(normalisedEndpoint, "utf8").digest("hex");
}

class ChallengeError extends Error {
  constructor(
    readonly reason: string,
    detail: string,
  ) {
    super(detail);
  }
}

function refuse(status: number, reason: string): ChallengeAnswer {
  const body = JSON.stringify({ type: "about:blank", title: "challenge refused", status, code: reason });
  return { status, headers: { "Content-Type": "application/problem+json" }, body: Buffer.from(body), reason };
}

function parseTime(value: string): number {
  if (!RFC3339.test(value)) throw new ChallengeError("malformed", "expiresAt is not RFC 3339");
  const t = Date.parse(value.replace(" ", "T"));
  if (Number.isNaN(t)) throw new ChallengeError("malformed", "expiresAt is not RFC 3339");
  return t / 1000;
}

/** Parse and type-check a challenge body; throws a ChallengeError (`malformed`). */
function parseChallenge(body: Uint8Array): Record<string, unknown> {
  let doc: unknown;
  try {
    doc = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(body));
  } catch {
    throw new ChallengeError("malformed", "challenge body is not JSON");
  }
  if (doc === null || typeof doc !== "object" || Array.isArray(doc) || (doc as Record<string, unknown>).type !== CHALLENGE_TYPE) {
    throw new ChallengeError("malformed", "not a hookproof.challenge.v1 body");
  }
  const d = doc as Record<string, unknown>;
  for (const name of CHALLENGE_FIELDS) {
    if (!(name in d)) throw new ChallengeError("malformed", `challenge lacks ${name}`);
  }
  for (const name of ["challengeId", "nonce", "subscriptionId", "endpointDigest", "expiresAt", "keyId"]) {
    if (typeof d[name] !== "string" || d[name] === "") throw new ChallengeError("malformed", `${name} must be a non-empty string`);
  }
  const gen = d.generation;
  if (typeof gen !== "number" || !Number.isInteger(gen) || gen < 0) {
    throw new ChallengeError("malformed", "generation must be a non-negative integer");
  }
  if (!HEX64.test(d.endpointDigest as string)) throw new ChallengeError("malformed", "endpointDigest must be lowercase hex SHA-256");
  parseTime(d.expiresAt as string);
  return d;
}

/** The response body for a challenge: type, the seven echoed fields and `proof` (if any). */
export function buildChallengeResponse(
  body: Uint8Array,
  proofKey: { secret?: Uint8Array; receiptPrivateKey?: Jwk } = {},
): Buffer {
  const doc = parseChallenge(body);
  const out: Record<string, unknown> = { type: CHALLENGE_RESPONSE_TYPE };
  for (const name of CHALLENGE_FIELDS) out[name] = doc[name];
  if (proofKey.secret !== undefined) {
    out.proof = b64urlEncode(createHmac("sha256", proofKey.secret).update(body).digest());
  } else if (proofKey.receiptPrivateKey !== undefined) {
    const key = jwkToSigningKey(proofKey.receiptPrivateKey);
    out.proof = b64urlEncode(edSign(null, body, key.privateKey!));
  }
  return Buffer.from(JSON.stringify(out), "utf8");
}

/**
 * Verify a signed challenge request and build the answer `{status, headers, body}` (never
 * throws for bad input). A challenge may be signed with a key the JWKS still lists as
 * NOT_BEFORE (the next key proving itself). With `endpoint`, the challenge's `endpointDigest`
 * must be that endpoint's; with `subscriptionId`, its subscription. A challenge is answered once.
 */
export async function answerChallenge(request: WebhookRequest, options: ChallengeOptions): Promise<ChallengeAnswer> {
  const nonceCache: NonceCache | undefined =
    options.nonceCache === null ? undefined : (options.nonceCache ?? defaultNonceCache());
  const verifyOptions: VerifyOptions = { ...options };
  delete verifyOptions.subscriptionId; // pinned below against the body, with its own code
  delete verifyOptions.generation;
  const res = await verifyAny(request, { ...verifyOptions, acceptNotBefore: true });
  if (!res.ok) return refuse(401, res.reason);
  const namedKey = !(res.verified.length === 1 && res.verified[0] === STANDARD_WEBHOOKS_V1);
  const verified = res.result;
  try {
    const doc = parseChallenge(request.body);
    const hdrs = normalizeHeaders(request.headers);
    if (hdrs.get("webhook-id") !== doc.challengeId || hdrs.get("webhook-delivery-id") !== doc.challengeId) {
      throw new ChallengeError("mismatch", "Webhook-Id/Delivery-Id is not the challenge id");
    }
    if (hdrs.get("webhook-subscription") !== doc.subscriptionId) {
      throw new ChallengeError("mismatch", "signed subscription differs from the body");
    }
    if (hdrs.get("webhook-generation") !== String(doc.generation)) {
      throw new ChallengeError("mismatch", "signed generation differs from the body");
    }
    if (namedKey && doc.keyId !== verified.keyId) throw new ChallengeError("mismatch", "keyId is not the signing key");
    if (options.subscriptionId !== undefined && doc.subscriptionId !== options.subscriptionId) {
      throw new ChallengeError("wrong_subscription", "not our subscription");
    }
    if (options.endpoint !== undefined && doc.endpointDigest !== endpointDigest(options.endpoint)) {
      throw new ChallengeError("wrong_endpoint", "endpointDigest is not our endpoint's");
    }
    const now = (options.now?.getTime() ?? Date.now()) / 1000;
    const expiresAt = parseTime(doc.expiresAt as string);
    if (expiresAt < now) throw new ChallengeError("expired", "challenge expired");
    const secret = verified.alg === HMAC_SHA256 ? verified.key?.secret : undefined;
    const out = buildChallengeResponse(
      request.body,
      secret !== undefined
        ? { secret }
        : options.receiptPrivateKey !== undefined
          ? { receiptPrivateKey: options.receiptPrivateKey }
          : {},
    );
    if (nonceCache !== undefined && !nonceCache.checkAndAdd("hookproof.challenge", doc.challengeId as string, Math.ceil(expiresAt), Math.trunc(now))) {
      throw new ChallengeError("replayed", "challenge already answered");
    }
    return { status: 200, headers: { "Content-Type": "application/json" }, body: out, reason: "ok" };
  } catch (err) {
    if (err instanceof ChallengeError) return refuse(err.reason === "malformed" ? 400 : 403, err.reason);
    return refuse(400, "malformed");
  }
}
