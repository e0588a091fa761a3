/** RFC 9530 `Content-Digest` (`sha-256`, `sha-512`) over exact body bytes. */
import { createHash } from "node:crypto";
import { parseDictionary } from "structured-headers";

const ALGORITHMS: Record<string, string> = { "sha-256": "sha256", "sha-512": "sha512" };

/** A Content-Digest field that is not a Dictionary of bare Byte Sequences. */
export class DigestError extends TypeError {}

/** The `Content-Digest` value of `body`, e.g. `sha-256=:<base64>:`. */
export function contentDigest(body: Uint8Array, algorithm: "sha-256" | "sha-512" = "sha-256"): string {
  const digest = createHash(ALGORITHMS[algorithm]!).update(body).digest("base64");
  return `${algorithm}=:${digest}:`;
}

/**
 * RFC 8941 section 4.2.7: parsers SHOULD NOT fail when "=" padding is absent. The Python SDK's
 * parser (`http_sf`) decodes such Byte Sequences; `structured-headers` refuses them, so padding
 * is set right first (a length that no base64 has still fails).
 */
function repad(value: string): string {
  return value.replace(/:([A-Za-z0-9+/]*)(=*):/g, (whole, b64: string) =>
    b64.length % 4 === 1 ? whole : `:${b64}${"=".repeat((4 - (b64.length % 4)) % 4)}:`,
  );
}

/** Parse a Content-Digest field into `{algorithm: digest bytes}`; throws DigestError. */
export function parseContentDigest(value: string): Map<string, Buffer> {
  let parsed;
  try {
    parsed = parseDictionary(repad(value));
  } catch {
    throw new DigestError("Content-Digest is not a structured Dictionary");
  }
  const out = new Map<string, Buffer>();
  for (const [name, member] of parsed) {
    const [bare, params] = member;
    if (!(bare instanceof ArrayBuffer) || params.size > 0) {
      throw new DigestError(`Content-Digest member '${name}' is not a bare Byte Sequence`);
    }
    out.set(name, Buffer.from(bare));
  }
  return out;
}

/**
 * True when every known algorithm in `value` matches `body` and `required` is present; members
 * of unknown algorithms are ignored (RFC 9530 section 2). Throws DigestError when `value`
 * cannot be parsed or lacks `required`.
 */
export function verifyContentDigest(value: string, body: Uint8Array, required = "sha-256"): boolean {
  const members = parseContentDigest(value);
  if (!members.has(required)) throw new DigestError(`Content-Digest has no ${required} member`);
  for (const [name, digest] of members) {
    const alg = ALGORITHMS[name];
    if (alg === undefined) continue;
    if (!createHash(alg).update(body).digest().equals(digest)) return false;
  }
  return true;
}
