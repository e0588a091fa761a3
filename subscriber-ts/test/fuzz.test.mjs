// Arbitrary input never escapes as anything but a VerificationError (as the Python SDK's
// verifier never raises), and never verifies.
import assert from "node:assert/strict";
import { test } from "node:test";

import { NonceCache, VerificationError, answerChallenge, verifyDelivery } from "../dist/index.js";
import { D, at, requestOf } from "./helpers.mjs";

function rng(seed) {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const NAMES = ["Signature-Input", "Signature", "Content-Digest", "Content-Type", "Webhook-Id", "webhook-signature", "webhook-timestamp", "X", "signature-input"];
const ALPHABET = ' ()";=:,*-._/+abcdefhkopstuvwxyz0123456789ABZ@\t\u00e9\u0001';

function randomText(r, max) {
  let out = "";
  const n = Math.floor(r() * max);
  for (let i = 0; i < n; i++) out += ALPHABET[Math.floor(r() * ALPHABET.length)];
  return out;
}

test("2,000 random header sets: a VerificationError every time, never another exception", async () => {
  const r = rng(9421);
  const valid = Object.fromEntries(D.deliveries[0].headers);
  for (let i = 0; i < 2000; i++) {
    const headers = i % 2 ? { ...valid } : {};
    for (let k = Math.floor(r() * 5); k > 0; k--) {
      const name = NAMES[Math.floor(r() * NAMES.length)];
      headers[name] = r() < 0.5 && valid[name] ? valid[name].slice(0, Math.floor(r() * valid[name].length)) + randomText(r, 8) : randomText(r, 120);
    }
    const body = Buffer.from(randomText(r, 64));
    const request = { method: "POST", url: D.endpoint, headers, body };
    const err = await verifyDelivery(request, { jwks: D.jwks.published, secret: D.secrets.base64, now: at(D.now), nonceCache: new NonceCache() }).then(
      () => null,
      (e) => e,
    );
    assert.ok(err instanceof VerificationError, `${i}: ${err}`);
    const answer = await answerChallenge(request, { jwks: D.jwks.published, now: at(D.now) });
    assert.ok(answer.status >= 400 && answer.status < 500, `${i}: ${answer.status}`);
  }
});

test("odd request shapes are refused, not thrown", async () => {
  const base = requestOf(D.deliveries[0]);
  const opts = { jwks: D.jwks.published, now: at(D.now), nonceCache: null };
  for (const request of [
    { ...base, headers: null },
    { ...base, headers: 42 },
    { ...base, headers: [["a"]] },
    { ...base, headers: { "bad name": "x" } },
    { ...base, body: null },
    { ...base, url: 7 },
    { ...base, method: undefined },
  ]) {
    const err = await verifyDelivery(request, opts).then(() => null, (e) => e);
    assert.ok(err instanceof VerificationError, String(err));
    assert.equal(err.code, "malformed");
  }
});
