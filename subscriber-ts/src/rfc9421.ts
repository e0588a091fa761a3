/**
 * A small, strict RFC 9421 (HTTP Message Signatures) core for requests, the same rules as the
 * Python SDK's `rfc9421` module: derived components `@method`, `@target-uri`, `@authority`,
 * `@scheme`, `@request-target`, `@path`, `@query` and plain fields (no component parameters);
 * `ed25519` and `hmac-sha256`. Signature-Input and Signature are parsed as RFC 8941
 * Dictionaries with `structured-headers`; a member not in canonical form, or a Dictionary
 * with a repeated label, is refused (`malformed`), so no two encodings of one signature verify.
 */
import { createHmac, sign as edSign, timingSafeEqual, verify as edVerify } from "node:crypto";
import {
  parseDictionary,
  serializeInnerList,
  type BareItem,
  type Dictionary,
  type InnerList,
  type Item,
} from "structured-headers";

import { b64Encode } from "./encoding.js";
import { ED25519, HMAC_SHA256, type SigningKey, type VerificationKey } from "./keys.js";
import { FormatError } from "./reasons.js";

export const DERIVED_COMPONENTS: ReadonlySet<string> = new Set([
  "@method",
  "@target-uri",
  "@authority",
  "@scheme",
  "@request-target",
  "@path",
  "@query",
]);

/** The derived component of a broker message: the destination URI without credentials. */
export const MESSAGE_DERIVED_COMPONENTS: ReadonlySet<string> = new Set(["@destination"]);

const SIG_LENGTH: Record<string, number> = { [ED25519]: 64, [HMAC_SHA256]: 32 };
const FIELD_NAME = /^[!#$%&'*+\-.^_`|~0-9a-z]+$/;
const METHOD = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const UNRESERVED = "A-Za-z0-9._~\\-";
const SUB_DELIMS = "!$&'()*+,;=";
const PCT = "%[0-9A-Fa-f]{2}";
const URL_RE = new RegExp(
  "^(?<scheme>[A-Za-z][A-Za-z0-9+.\\-]*)://" +
    `(?<host>\\[[0-9A-Fa-f:.]+\\]|(?:[${UNRESERVED}${SUB_DELIMS}]|${PCT})+)` +
    "(?::(?<port>[0-9]*))?" +
    `(?<path>/(?:[${UNRESERVED}${SUB_DELIMS}:@/]|${PCT})*)?` +
    `(?:\\?(?<query>(?:[${UNRESERVED}${SUB_DELIMS}:@/?]|${PCT})*))?$`,
);
const DEFAULT_PORTS: Record<string, string> = { http: "80", https: "443" };

/** The parts of an absolute request URL that derived components use. */
export interface Target {
  scheme: string;
  host: string;
  port: string | undefined;
  path: string;
  query: string | undefined;
}

/** Parse an absolute ASCII URL strictly (no userinfo, no fragment); `malformed` otherwise. */
export function parseTarget(url: string): Target {
  if (typeof url !== "string") throw new FormatError("malformed", "URL must be a string");
  const m = URL_RE.exec(url);
  if (m === null || m.groups === undefined) {
    throw new FormatError("malformed", "URL is not an absolute RFC 3986 URL");
  }
  const g = m.groups;
  return {
    scheme: g.scheme ?? "",
    host: g.host ?? "",
    port: g.port,
    path: g.path ?? "",
    query: g.query,
  };
}

function targetUri(t: Target): string {
  const q = t.query === undefined ? "" : "?" + t.query;
  const port = t.port === undefined ? "" : ":" + t.port;
  return `${t.scheme}://${t.host}${port}${t.path || "/"}${q}`;
}

function authority(t: Target): string {
  const host = t.host.toLowerCase();
  let port = t.port;
  if (port !== undefined && (port === "" || port.replace(/^0+/, "") === DEFAULT_PORTS[t.scheme.toLowerCase()])) {
    port = undefined;
  }
  return port === undefined ? host : `${host}:${port}`;
}

/** Signature parameters: integers, strings, and whatever else a sender put there. */
export type ParamValue = number | string | boolean | BareItem;

/** One labelled signature: covered component ids, parameters and signature bytes. */
export interface ParsedSignature {
  label: string;
  components: string[];
  params: Map<string, ParamValue>;
  signature: Buffer;
  /** The serialised `@signature-params` value (the inner list with its parameters). */
  signatureParams: string;
  keyId: string | undefined;
  /**
   * Whether Signature-Input and Signature name the same labels. The Python SDK's reference
   * verifier (`http-message-signatures`) refuses a signature (`bad_signature`) when they do
   * not, so this one does too.
   */
  labelsMatch: boolean;
}

/** Top-level member keys of a syntactically valid RFC 8941 Dictionary, in order. */
function memberKeys(raw: string): string[] {
  const keys: string[] = [];
  let i = 0;
  const n = raw.length;
  let atStart = true;
  while (i < n) {
    const c = raw[i]!;
    if (atStart) {
      if (c === " " || c === "\t") {
        i++;
        continue;
      }
      const m = /^[a-z*][a-z0-9_\-.*]*/.exec(raw.slice(i));
      if (m) keys.push(m[0]);
      atStart = false;
      i += m ? m[0].length : 1;
      continue;
    }
    if (c === '"') {
      i++;
      while (i < n && raw[i] !== '"') i += raw[i] === "\\" ? 2 : 1;
      i++;
    } else if (c === ",") {
      atStart = true;
      i++;
    } else {
      i++;
    }
  }
  return keys;
}

function parseDict(raw: string, field: string): Dictionary {
  let parsed: Dictionary;
  try {
    parsed = parseDictionary(raw);
  } catch {
    throw new FormatError("malformed", `${field} is not a structured Dictionary`);
  }
  const keys = memberKeys(raw);
  if (new Set(keys).size !== keys.length || keys.length !== parsed.size) {
    throw new FormatError("malformed", `${field} repeats a member`);
  }
  return parsed;
}

/** True if `member` (`label=value`) occurs in `raw` at a member boundary. */
function memberIsCanonical(raw: string, member: string): boolean {
  let start = 0;
  for (;;) {
    const i = raw.indexOf(member, start);
    if (i < 0) return false;
    const end = i + member.length;
    const beforeOk = i === 0 || ", \t".includes(raw[i - 1]!);
    const afterOk = end === raw.length || ", \t".includes(raw[end]!);
    if (beforeOk && afterOk) return true;
    start = i + 1;
  }
}

function isInnerList(v: Item | InnerList): v is InnerList {
  return Array.isArray(v[0]);
}

function checkComponents(components: string[]): void {
  if (new Set(components).size !== components.length) {
    throw new FormatError("malformed", "a component is covered twice");
  }
  for (const value of components) {
    if (value.startsWith("@")) {
      if (!DERIVED_COMPONENTS.has(value) && !MESSAGE_DERIVED_COMPONENTS.has(value)) {
        throw new FormatError("malformed", `unsupported component '${value}'`);
      }
    } else if (!FIELD_NAME.test(value)) {
      throw new FormatError("malformed", `invalid component name '${value}'`);
    }
  }
}

function checkParams(params: Map<string, ParamValue>): void {
  for (const [name, v] of params) {
    if (name === "created" || name === "expires") {
      if (typeof v !== "number" || !Number.isInteger(v)) throw new FormatError("malformed", `${name} must be an Integer`);
    } else if (["keyid", "alg", "nonce", "tag"].includes(name) && typeof v !== "string") {
      throw new FormatError("malformed", `${name} must be a String`);
    }
  }
}

const KEY = "[a-z*][a-z0-9_\\-.*]*";
const STR = '"(?:[\\x20\\x21\\x23-\\x5b\\x5d-\\x7e]|\\\\["\\\\])*"';
const INT = "(?:0|-?[1-9][0-9]{0,14})";
const PARAM = `;(${KEY})=(${INT}|${STR})`;
const CANON_INPUT = new RegExp(`^(${KEY})=(\\(((?:${STR}(?: ${STR})*)?)\\)((?:${PARAM})*))$`);
const B64 = "(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?";
const CANON_SIG = new RegExp(`^(${KEY})=:(${B64}):$`);
const STR_G = new RegExp(STR, "g");
const PARAM_G = new RegExp(PARAM, "g");

function unquote(text: string): string {
  const inner = text.slice(1, -1);
  return inner.includes("\\") ? inner.replace(/\\(["\\])/g, "$1") : inner;
}

/**
 * The fast path of the Python SDK's parser: one canonical RFC 8941 member per field (as
 * hookproof signs), parsed with regular expressions; undefined to take the general path.
 * `test/rfc9421.test.mjs` checks both paths agree.
 */
function fastParse(rawInput: string, rawSig: string, label: string): ParsedSignature | undefined {
  const mi = CANON_INPUT.exec(rawInput);
  const ms = CANON_SIG.exec(rawSig);
  if (mi === null || ms === null || mi[1] !== label || ms[1] !== label) return undefined;
  const components = [...(mi[3] ?? "").matchAll(STR_G)].map((m) => unquote(m[0]));
  const params = new Map<string, ParamValue>();
  for (const m of (mi[4] ?? "").matchAll(PARAM_G)) {
    const name = m[1]!;
    const value = m[2]!;
    if (params.has(name)) return undefined;
    params.set(name, value.startsWith('"') ? unquote(value) : Number(value));
  }
  const signature = Buffer.from(ms[2]!, "base64");
  if (signature.toString("base64") !== ms[2]) return undefined;
  checkComponents(components);
  checkParams(params);
  const kid = params.get("keyid");
  return {
    label,
    components,
    params,
    signature,
    signatureParams: mi[2]!,
    keyId: typeof kid === "string" ? kid : undefined,
    labelsMatch: true,
  };
}

/**
 * Select signature `label` from normalised headers; `malformed` on any format problem.
 * `fast: false` skips the regular-expression fast path (the tests compare both paths).
 */
export function parseSignature(headers: Map<string, string>, label: string, fast = true): ParsedSignature {
  const rawInput = headers.get("signature-input");
  const rawSig = headers.get("signature");
  if (rawInput === undefined || rawSig === undefined) {
    throw new FormatError("malformed", "Signature-Input or Signature missing");
  }
  if (fast) {
    const parsed = fastParse(rawInput, rawSig, label);
    if (parsed !== undefined) return parsed;
  }
  const inputs = parseDict(rawInput, "Signature-Input");
  const sigs = parseDict(rawSig, "Signature");
  const member = inputs.get(label);
  const sigMember = sigs.get(label);
  if (member === undefined || sigMember === undefined) {
    throw new FormatError("malformed", `no signature labelled '${label}'`);
  }
  if (!isInnerList(member)) throw new FormatError("malformed", "Signature-Input member is not an Inner List");
  if (isInnerList(sigMember) || !(sigMember[0] instanceof ArrayBuffer) || sigMember[1].size > 0) {
    throw new FormatError("malformed", "Signature member is not a Byte Sequence");
  }
  const components: string[] = [];
  for (const [value, itemParams] of member[0]) {
    if (typeof value !== "string") throw new FormatError("malformed", "component identifiers must be sf-strings");
    if (itemParams.size > 0) throw new FormatError("malformed", "component parameters are not supported");
    components.push(value);
  }
  checkComponents(components);
  const params = new Map<string, ParamValue>(member[1]);
  checkParams(params);
  let serialised: string;
  try {
    serialised = serializeInnerList(member);
  } catch {
    throw new FormatError("malformed", "Signature-Input member cannot be serialised");
  }
  if (!memberIsCanonical(rawInput, `${label}=${serialised}`)) {
    throw new FormatError("malformed", "Signature-Input member is not canonical RFC 8941");
  }
  const signature = Buffer.from(sigMember[0]);
  if (!memberIsCanonical(rawSig, `${label}=:${b64Encode(signature)}:`)) {
    throw new FormatError("malformed", "Signature value is not canonical base64");
  }
  const kid = params.get("keyid");
  return {
    label,
    components,
    params,
    signature,
    signatureParams: serialised,
    keyId: typeof kid === "string" ? kid : undefined,
    labelsMatch: inputs.size === sigs.size && [...inputs.keys()].every((k) => sigs.has(k)),
  };
}

const SF_STRING_OK = /^[\x20-\x7e]*$/;
const KEY_RE = /^[a-z*][a-z0-9_\-.*]*$/;

function serString(value: string): string {
  if (!SF_STRING_OK.test(value)) throw new TypeError("sf-string must be printable ASCII");
  return '"' + value.replace(/\\/g, "\\\\").replace(/"/g, '\\"') + '"';
}

/** RFC 8941 serialisation of the `@signature-params` inner list (strings and integers). */
export function serializeSignatureParams(
  components: readonly string[],
  params: ReadonlyArray<readonly [string, number | string]>,
): string {
  const out = ["(" + components.map(serString).join(" ") + ")"];
  for (const [name, value] of params) {
    if (!KEY_RE.test(name)) throw new TypeError(`invalid structured-field key '${name}'`);
    if (typeof value === "number") {
      if (!Number.isInteger(value) || Math.abs(value) > 999_999_999_999_999) {
        throw new TypeError(`parameter '${name}' out of Integer range`);
      }
      out.push(`;${name}=${value}`);
    } else {
      out.push(`;${name}=${serString(value)}`);
    }
  }
  return out.join("");
}

function componentValue(name: string, method: string, t: Target, headers: Map<string, string>): string {
  switch (name) {
    case "@method":
      return method;
    case "@target-uri":
      return targetUri(t);
    case "@authority":
      return authority(t);
    case "@scheme":
      return t.scheme.toLowerCase();
    case "@path":
      return t.path || "/";
    case "@query":
      return "?" + (t.query ?? "");
    case "@request-target":
      return (t.path || "/") + (t.query === undefined ? "" : "?" + t.query);
  }
  const value = headers.get(name);
  if (value === undefined) throw new FormatError("component_missing", `covered field '${name}' is absent`);
  return value;
}

/** The RFC 9421 signature base (ASCII bytes, no trailing newline). */
export function buildSignatureBase(
  method: string,
  url: string | Target,
  headers: Map<string, string>,
  components: readonly string[],
  signatureParams: string,
): Buffer {
  if (typeof method !== "string" || !METHOD.test(method) || method !== method.toUpperCase()) {
    throw new FormatError("malformed", "invalid request method");
  }
  const t = typeof url === "string" ? parseTarget(url) : url;
  const lines = components.map((c) => `"${c}": ${componentValue(c, method, t, headers)}`);
  lines.push(`"@signature-params": ${signatureParams}`);
  const base = lines.join("\n");
  if (!/^[\x00-\x7f]*$/.test(base)) throw new FormatError("malformed", "signature base is not ASCII");
  return Buffer.from(base, "ascii");
}

const DESTINATION = /^[\x21-\x7e]{1,4096}$/;

/**
 * The signature base of a broker message: `"@destination"` is `destination` (the destination
 * URI without credentials), fields come from normalised `headers`; an HTTP derived component
 * has no value in a message (`component_missing`).
 */
export function buildMessageBase(
  destination: string,
  headers: Map<string, string>,
  components: readonly string[],
  signatureParams: string,
): Buffer {
  if (typeof destination !== "string" || !DESTINATION.test(destination)) {
    throw new FormatError("malformed", "destination must be printable ASCII, no spaces");
  }
  const lines = components.map((c) => {
    if (c === "@destination") return `"${c}": ${destination}`;
    if (c.startsWith("@")) throw new FormatError("component_missing", `'${c}' has no value in a message`);
    const value = headers.get(c);
    if (value === undefined) throw new FormatError("component_missing", `covered field '${c}' is absent`);
    return `"${c}": ${value}`;
  });
  lines.push(`"@signature-params": ${signatureParams}`);
  const base = lines.join("\n");
  if (!/^[\x00-\x7f]*$/.test(base)) throw new FormatError("malformed", "signature base is not ASCII");
  return Buffer.from(base, "ascii");
}

/** Sign a signature base (or any bytes) with `key`. */
export function signBytes(key: SigningKey, data: Uint8Array): Buffer {
  if (key.alg === ED25519) return edSign(null, data, key.privateKey!);
  return createHmac("sha256", key.secret!).update(data).digest();
}

/** Check `signature` over `data`; false on any mismatch. */
export function verifyBytes(key: VerificationKey, data: Uint8Array, signature: Uint8Array): boolean {
  if (signature.length !== (SIG_LENGTH[key.alg] ?? -1)) return false;
  if (key.alg === ED25519) {
    try {
      return edVerify(null, data, key.publicKey!, signature);
    } catch {
      return false;
    }
  }
  if (key.alg === HMAC_SHA256) {
    const mac = createHmac("sha256", key.secret!).update(data).digest();
    return timingSafeEqual(mac, signature);
  }
  return false;
}

/**
 * Plain RFC 9421 verification of one labelled signature, with no profile policy (no time, tag,
 * nonce or coverage requirement, as in the RFC Appendix B examples); only an `alg` parameter,
 * when present, must match the key. Returns the reason code; never throws.
 */
export function rawVerify(
  method: string,
  url: string,
  headers: Map<string, string>,
  label: string,
  key: VerificationKey,
): "ok" | "alg_mismatch" | "bad_signature" | "malformed" | "component_missing" {
  try {
    const parsed = parseSignature(headers, label);
    const alg = parsed.params.get("alg");
    if (alg !== undefined && alg !== key.alg) return "alg_mismatch";
    const base = buildSignatureBase(method, url, headers, parsed.components, parsed.signatureParams);
    return parsed.labelsMatch && verifyBytes(key, base, parsed.signature) ? "ok" : "bad_signature";
  } catch (err) {
    if (err instanceof FormatError && (err.reason === "malformed" || err.reason === "component_missing")) return err.reason;
    return "malformed";
  }
}
