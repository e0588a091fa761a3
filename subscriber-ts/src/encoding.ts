/** Strict base64 / base64url helpers (the same acceptance rules as the Python SDK). */

const B64_STRICT = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const B64URL = /^[A-Za-z0-9_-]*$/;

/** Standard base64 with padding, alphabet and padding enforced; null when invalid. */
export function decodeBase64Strict(text: string): Buffer | null {
  if (typeof text !== "string" || !B64_STRICT.test(text)) return null;
  return Buffer.from(text, "base64");
}

/** base64url without padding. */
export function b64urlEncode(data: Uint8Array): string {
  return Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString("base64url");
}

/** Strict base64url (padding optional, canonical bits); throws on anything else. */
export function b64urlDecode(text: string): Buffer {
  if (typeof text !== "string") throw new TypeError("base64url value must be a string");
  const bare = text.replace(/=+$/, "");
  if (!B64URL.test(bare) || bare.length % 4 === 1) throw new TypeError("invalid base64url");
  const raw = Buffer.from(bare, "base64url");
  if (raw.toString("base64url") !== bare) throw new TypeError("non-canonical base64url");
  return raw;
}

/** Standard base64 of bytes. */
export function b64Encode(data: Uint8Array): string {
  return Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString("base64");
}
