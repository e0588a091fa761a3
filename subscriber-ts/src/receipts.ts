/**
 * `signReceipt(receipt, privateKey, {url})`: an `applicationReceipt.v1` body and its RFC 9421
 * signature (label `receipt`, tag `hookproof.receipt.v1`, covered `@method`, `@target-uri`,
 * `content-digest`, `content-type`), ready to `POST` to the engine's `/v1/receipts`.
 */
import { randomUUID } from "node:crypto";

import { parseContentDigest } from "./digest.js";
import { ED25519, jwkToSigningKey, type Jwk } from "./keys.js";
import { RECEIPT_V1, signRequest } from "./sigv1.js";

export const RECEIPT_TYPE = "applicationReceipt.v1";
export const RECEIPT_RESULTS = ["applied", "rejected", "duplicate"] as const;
const FIELDS = [
  "type",
  "subscriptionId",
  "eventId",
  "deliveryId",
  "payloadDigest",
  "operationId",
  "result",
  "appliedAt",
  "receiptKeyGeneration",
] as const;
const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?(?:[Zz]|[+-]\d{2}:\d{2})$/;

/** The receipt fields (section 11); `operationId`, `result`, `appliedAt` and `receiptKeyGeneration` have defaults. */
export interface ReceiptInput {
  type?: typeof RECEIPT_TYPE;
  subscriptionId: string;
  eventId: string;
  deliveryId: string;
  payloadDigest: string;
  /** default: a random UUID (keep it: a re-sent receipt must carry the same one) */
  operationId?: string;
  /** default `applied` */
  result?: (typeof RECEIPT_RESULTS)[number];
  /** default: now */
  appliedAt?: string;
  /** default 1 */
  receiptKeyGeneration?: number;
}

/** A receipt that does not follow applicationReceipt.v1. */
export class ReceiptError extends TypeError {}

export interface SignReceiptOptions {
  /** The engine's receipts URL (`https://<engine>/v1/receipts`): the signed `@target-uri`. */
  url: string;
  /** epoch seconds (default now) */
  created?: number;
  /** seconds (default 300) */
  lifetime?: number;
}

/** The complete receipt document, validated, in the documented field order. */
export function buildReceipt(input: ReceiptInput): Record<string, unknown> {
  if (input === null || typeof input !== "object") throw new ReceiptError("receipt must be an object");
  const extra = Object.keys(input).filter((k) => !(FIELDS as readonly string[]).includes(k));
  if (extra.length > 0) throw new ReceiptError(`unexpected fields: ${extra.sort().join(", ")}`);
  const doc: Record<string, unknown> = {
    type: input.type ?? RECEIPT_TYPE,
    subscriptionId: input.subscriptionId,
    eventId: input.eventId,
    deliveryId: input.deliveryId,
    payloadDigest: input.payloadDigest,
    operationId: input.operationId ?? randomUUID(),
    result: input.result ?? "applied",
    appliedAt: input.appliedAt ?? new Date().toISOString(),
    receiptKeyGeneration: input.receiptKeyGeneration ?? 1,
  };
  if (doc.type !== RECEIPT_TYPE) throw new ReceiptError("type must be applicationReceipt.v1");
  for (const name of ["subscriptionId", "eventId", "deliveryId", "operationId"]) {
    const v = doc[name];
    if (typeof v !== "string" || v === "" || v.length > 256) {
      throw new ReceiptError(`${name} must be a non-empty string (<= 256 chars)`);
    }
  }
  let digestOk = false;
  try {
    digestOk = typeof doc.payloadDigest === "string" && parseContentDigest(doc.payloadDigest).has("sha-256");
  } catch {
    digestOk = false;
  }
  if (!digestOk) throw new ReceiptError("payloadDigest must be a sha-256 Content-Digest value");
  if (!(RECEIPT_RESULTS as readonly unknown[]).includes(doc.result)) {
    throw new ReceiptError("result must be applied, rejected or duplicate");
  }
  if (typeof doc.appliedAt !== "string" || !RFC3339.test(doc.appliedAt)) {
    throw new ReceiptError("appliedAt must be an RFC 3339 timestamp");
  }
  const gen = doc.receiptKeyGeneration;
  if (typeof gen !== "number" || !Number.isInteger(gen) || gen < 1 || gen > 2147483647) {
    throw new ReceiptError("receiptKeyGeneration must be an integer 1..2147483647");
  }
  return doc;
}

/** Headers and body of a signed `POST` of the receipt to `options.url`. */
export async function signReceipt(
  receipt: ReceiptInput,
  privateKey: Jwk,
  options: SignReceiptOptions,
): Promise<{ headers: Record<string, string>; body: Buffer; receipt: Record<string, unknown> }> {
  const key = jwkToSigningKey(privateKey);
  if (key.alg !== ED25519) throw new TypeError("receipts are signed with an Ed25519 receipt key");
  if (typeof options?.url !== "string") throw new TypeError("signReceipt needs {url}: the engine's receipts URL");
  const doc = buildReceipt(receipt);
  const body = Buffer.from(JSON.stringify(doc), "utf8");
  const headers: Record<string, string> = { "Content-Type": "application/json" };
  Object.assign(
    headers,
    signRequest("POST", options.url, headers, body, {
      key,
      profile: RECEIPT_V1,
      ...(options.created !== undefined ? { created: options.created } : {}),
      lifetime: options.lifetime ?? 300,
    }),
  );
  return { headers, body, receipt: doc };
}
