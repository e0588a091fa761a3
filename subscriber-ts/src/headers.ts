/** Request header normalisation, as the Python SDK's `normalize_headers`. */
import { FormatError } from "./reasons.js";

/** Headers as Node's `http` gives them, a `Headers` object, or name/value pairs. */
export type HeadersLike =
  | Record<string, string | string[] | undefined>
  | Headers
  | Iterable<readonly [string, string]>;

const FIELD_NAME = /^[!#$%&'*+\-.^_`|~0-9a-z]+$/;
const BAD_CHARS = /[^\t\x20-\x7e]/;

function pairs(headers: HeadersLike): Iterable<readonly [string, string | string[] | undefined]> {
  if (headers === null || typeof headers !== "object") {
    throw new FormatError("malformed", "headers are not name/value pairs");
  }
  if (typeof (headers as Headers).entries === "function" && typeof (headers as Headers).get === "function") {
    return (headers as Headers).entries();
  }
  if (typeof (headers as Iterable<unknown>)[Symbol.iterator] === "function") {
    return headers as Iterable<readonly [string, string]>;
  }
  return Object.entries(headers as Record<string, string | string[] | undefined>);
}

function stripOws(value: string): string {
  return value.replace(/^[ \t]+|[ \t]+$/g, "");
}

/**
 * Lower-case names; repeated fields combined with ", "; surrounding spaces and tabs removed.
 * A name that is not a token or a value with non-ASCII or control characters is `malformed`.
 */
export function normalizeHeaders(headers: HeadersLike): Map<string, string> {
  const out = new Map<string, string>();
  for (const entry of pairs(headers)) {
    if (!Array.isArray(entry) || entry.length !== 2) {
      throw new FormatError("malformed", "headers are not name/value pairs");
    }
    const [name, raw] = entry as [unknown, unknown];
    if (raw === undefined) continue;
    if (typeof name !== "string") throw new FormatError("malformed", "header names must be strings");
    const values = Array.isArray(raw) ? raw : [raw];
    const lname = name.toLowerCase();
    if (!FIELD_NAME.test(lname)) throw new FormatError("malformed", "invalid header field name");
    for (const v of values) {
      if (typeof v !== "string") throw new FormatError("malformed", "header values must be strings");
      if (BAD_CHARS.test(v)) {
        throw new FormatError("malformed", `field '${lname}' has non-ASCII or control chars`);
      }
      const value = stripOws(v);
      const prev = out.get(lname);
      out.set(lname, prev === undefined ? value : `${prev}, ${value}`);
    }
  }
  return out;
}
