// Shared test helpers: fixtures, requests and key sources as the Python fixture script made them.
import { readFileSync } from "node:fs";

export const fixture = (name) =>
  JSON.parse(readFileSync(new URL(`./fixtures/${name}`, import.meta.url), "utf8"));
export const vector = (name) => readFileSync(new URL(`./vectors/${name}`, import.meta.url), "utf8");

export const D = fixture("deliveries.json");

/** The request of a fixture case (headers as name/value pairs, body bytes). */
export function requestOf(c) {
  return { method: c.method, url: c.url, headers: c.headers, body: Buffer.from(c.body_b64, "base64") };
}

/** verify options for a case's key source ("jwks:<variant>" | "secret:<form>"). */
export function keysOf(keys) {
  const [kind, which] = keys.split(":");
  return kind === "jwks" ? { jwks: D.jwks[which] } : { secret: D.secrets[which] };
}

export const at = (seconds) => new Date(seconds * 1000);
