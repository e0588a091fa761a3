// Standard Webhooks: the reference libraries' vector, and cases made and judged by the
// `standardwebhooks` reference library (Python) when the fixtures were generated.
import assert from "node:assert/strict";
import { test } from "node:test";

import { NonceCache, decodeSecret, signStandard, verifyStandard } from "../dist/index.js";
import { fixture } from "./helpers.mjs";

const S = fixture("standard_webhooks.json");
const hmacKey = (secret) => ({ keyId: "secret", alg: "hmac-sha256", secret: decodeSecret(secret), state: "ACTIVE" });

test("the reference libraries' test vector (whsec_ secret of 24 bytes)", () => {
  const { spec } = S;
  const key = { keyId: "k", alg: "hmac-sha256", secret: decodeSecret(spec.secret) };
  const h = signStandard(spec.msgId, Buffer.from(spec.payload), key, spec.timestamp);
  assert.equal(h["webhook-signature"], spec.signature);
  const res = verifyStandard(
    { "webhook-id": spec.msgId, "webhook-timestamp": String(spec.timestamp), "webhook-signature": spec.signature },
    Buffer.from(spec.payload),
    { keys: [hmacKey(spec.secret)], now: spec.timestamp + 10 },
  );
  assert.equal(res.reason, "ok");
});

for (const c of S.cases) {
  test(`reference library case: ${c.name} (library says ${c.ok ? "valid" : "invalid"})`, () => {
    const res = verifyStandard(c.headers, Buffer.from(c.body), { keys: [hmacKey(S.secret)], now: c.now });
    assert.equal(res.ok, c.ok, res.reason);
  });
}

test("the secret without its whsec_ prefix works; a replayed id+timestamp is refused", () => {
  const c = S.cases[0];
  const bare = S.secret.slice("whsec_".length);
  const cache = new NonceCache();
  const opts = { keys: [{ ...hmacKey(S.secret), secret: decodeSecret(bare) }], now: c.now, nonceCache: cache };
  assert.equal(verifyStandard(c.headers, Buffer.from(c.body), opts).reason, "ok");
  assert.equal(verifyStandard(c.headers, Buffer.from(c.body), opts).reason, "replayed_nonce");
});

test("timestamp, header and signature forms", () => {
  const c = S.cases[0];
  const keys = [hmacKey(S.secret)];
  const v = (h, now = c.now) => verifyStandard({ ...c.headers, ...h }, Buffer.from(c.body), { keys, now }).reason;
  assert.equal(v({ "webhook-timestamp": "12a" }), "malformed");
  assert.equal(v({ "webhook-signature": "v2,abc" }), "malformed");
  assert.equal(v({ "webhook-id": "" }), "malformed");
  assert.equal(v({}, c.now + 301), "expired");
  assert.equal(v({}, c.now - 301), "not_yet_valid");
  assert.equal(v({ "webhook-signature": "v1a," + Buffer.alloc(64).toString("base64") }), "unknown_key");
});
