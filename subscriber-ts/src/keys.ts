/** Keys, key states and JWK conversion (as the Python SDK's `keys` module). */
import { createPrivateKey, createPublicKey, type KeyObject } from "node:crypto";

import { b64urlDecode, decodeBase64Strict } from "./encoding.js";

export const ED25519 = "ed25519";
export const HMAC_SHA256 = "hmac-sha256";
export type Algorithm = typeof ED25519 | typeof HMAC_SHA256;
export const KEY_STATES = ["NOT_BEFORE", "ACTIVE", "VERIFY_ONLY", "REVOKED"] as const;
/** Life-cycle state of a key, as published in the JWKS `state` member. */
export type KeyState = (typeof KEY_STATES)[number];
export const WHSEC_PREFIX = "whsec_";
/** hookproof issues 32-byte secrets; Standard Webhooks secrets imported from elsewhere may be 24. */
export const MIN_HMAC_SECRET_BYTES = 32;
export const MIN_IMPORTED_SECRET_BYTES = 24;

/** What a verifier needs: algorithm, public key or secret, state and validity window. */
export interface VerificationKey {
  keyId: string;
  alg: Algorithm;
  publicKey?: KeyObject;
  secret?: Buffer;
  state: KeyState;
  /** epoch seconds */
  notBefore?: number;
  /** epoch seconds */
  notAfter?: number;
  generation?: number;
}

/** A key id, its algorithm and the private material. */
export interface SigningKey {
  keyId: string;
  alg: Algorithm;
  privateKey?: KeyObject;
  secret?: Buffer;
}

/** A public or private OKP Ed25519 JWK (RFC 8037), with the members hookproof adds. */
export interface Jwk {
  kty: string;
  crv: string;
  x: string;
  d?: string;
  kid?: string;
  state?: string;
  nbf?: number;
  exp?: number;
  keyGeneration?: number;
  generation?: number;
  [member: string]: unknown;
}

/** A JWK Set. */
export interface Jwks {
  keys: unknown[];
}

function numericDate(value: unknown, name: string): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "number" || !Number.isInteger(value)) {
    throw new TypeError(`JWK member '${name}' must be an integer (epoch seconds)`);
  }
  return value;
}

/** One JWKS entry (OKP Ed25519 with `kid`, optional `state`/`nbf`/`exp`) as a verification key. */
export function jwkToVerificationKey(jwk: Record<string, unknown>): VerificationKey {
  if (jwk.kty !== "OKP" || jwk.crv !== "Ed25519") throw new TypeError("only OKP Ed25519 JWKs are supported");
  const kid = jwk.kid;
  if (typeof kid !== "string" || kid === "") throw new TypeError("JWK needs a string kid");
  if ("d" in jwk) throw new TypeError("refusing a JWK that carries private material");
  const x = b64urlDecode(typeof jwk.x === "string" ? jwk.x : "");
  if (x.length !== 32) throw new TypeError("Ed25519 public key must be 32 bytes");
  const state = jwk.state === undefined ? "ACTIVE" : jwk.state;
  if (!KEY_STATES.includes(state as KeyState)) throw new TypeError("unknown key state");
  const gen = jwk.generation ?? jwk.keyGeneration;
  const key: VerificationKey = {
    keyId: kid,
    alg: ED25519,
    publicKey: createPublicKey({ key: { kty: "OKP", crv: "Ed25519", x: x.toString("base64url") }, format: "jwk" }),
    state: state as KeyState,
  };
  const nbf = numericDate(jwk.nbf, "nbf");
  const exp = numericDate(jwk.exp, "exp");
  if (nbf !== undefined) key.notBefore = nbf;
  if (exp !== undefined) key.notAfter = exp;
  if (typeof gen === "number" && Number.isInteger(gen)) key.generation = gen;
  return key;
}

/** Parse a JWK Set; entries that are not valid OKP Ed25519 public keys are skipped. */
export function parseJwks(document: unknown): Map<string, VerificationKey> {
  const doc = typeof document === "string" ? (JSON.parse(document) as unknown) : document;
  if (doc === null || typeof doc !== "object" || !Array.isArray((doc as Jwks).keys)) {
    throw new TypeError("not a JWK Set");
  }
  const out = new Map<string, VerificationKey>();
  for (const entry of (doc as Jwks).keys) {
    if (entry === null || typeof entry !== "object" || Array.isArray(entry)) continue;
    try {
      const key = jwkToVerificationKey(entry as Record<string, unknown>);
      out.set(key.keyId, key);
    } catch {
      continue;
    }
  }
  return out;
}

/** An Ed25519 private JWK (with `kid`) as a signing key. */
export function jwkToSigningKey(jwk: Jwk): SigningKey {
  if (jwk === null || typeof jwk !== "object" || jwk.kty !== "OKP" || jwk.crv !== "Ed25519") {
    throw new TypeError("the private key must be an OKP Ed25519 JWK");
  }
  if (typeof jwk.kid !== "string" || jwk.kid === "") throw new TypeError("the private JWK needs a kid");
  if (typeof jwk.d !== "string") throw new TypeError("the private JWK has no 'd'");
  const d = b64urlDecode(jwk.d);
  const x = b64urlDecode(jwk.x);
  if (d.length !== 32 || x.length !== 32) throw new TypeError("Ed25519 keys are 32 bytes");
  const privateKey = createPrivateKey({
    key: { kty: "OKP", crv: "Ed25519", d: d.toString("base64url"), x: x.toString("base64url") },
    format: "jwk",
  });
  return { keyId: jwk.kid, alg: ED25519, privateKey };
}

/**
 * The HMAC key bytes of a shared secret: `whsec_<standard base64>` (at least 24 bytes, as
 * Standard Webhooks secrets imported from other platforms) or plain standard base64 (at least
 * 32 bytes, as hookproof issues). Throws a TypeError otherwise.
 */
export function decodeSecret(secret: string): Buffer {
  if (typeof secret !== "string") throw new TypeError("secret must be a string");
  const whsec = secret.startsWith(WHSEC_PREFIX);
  const raw = decodeBase64Strict(whsec ? secret.slice(WHSEC_PREFIX.length) : secret);
  if (raw === null) throw new TypeError("secret must be standard base64 or whsec_ followed by standard base64");
  const minimum = whsec ? MIN_IMPORTED_SECRET_BYTES : MIN_HMAC_SECRET_BYTES;
  if (raw.length < minimum) throw new TypeError(`secret must decode to at least ${minimum} bytes`);
  return raw;
}

/** `whsec_` + standard base64 of the key bytes. */
export function encodeWhsec(secret: Uint8Array): string {
  return WHSEC_PREFIX + Buffer.from(secret).toString("base64");
}

/** The public OKP JWK of an Ed25519 key object. */
export function publicJwk(key: KeyObject, kid?: string): Jwk {
  const exported = createPublicKey(key).export({ format: "jwk" }) as { x: string };
  const jwk: Jwk = { kty: "OKP", crv: "Ed25519", x: exported.x };
  if (kid) jwk.kid = kid;
  return jwk;
}
