// Deliveries signed by the Python engine (scripts/make_fixtures.py) and single mutations of them:
// the TypeScript verifier gives the Python SDK's reason code for every one.
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { test } from "node:test";

import { JwksCache, NonceCache, REASONS, VerificationError, signRequest, verifyAny, verifyDelivery } from "../dist/index.js";
import { D, at, fixture, keysOf, requestOf } from "./helpers.mjs";

const MUTATIONS = fixture("mutations.json");
const byName = (name) => D.deliveries.find((d) => d.name === name);
const ED = byName("sig.v1 ed25519");
const HM = byName("sig.v1 hmac-sha256");

async function reasonOf(request, options) {
  try {
    await verifyDelivery(request, options);
    return "ok";
  } catch (err) {
    if (!(err instanceof VerificationError)) throw err;
    return err.code;
  }
}

for (const d of D.deliveries) {
  test(`engine-signed delivery verifies: ${d.name}`, async () => {
    const got = await verifyDelivery(requestOf(d), { ...keysOf(d.keys), now: at(d.now), nonceCache: new NonceCache() });
    for (const [k, v] of Object.entries(d.expect)) assert.equal(got[k], v, k);
    assert.deepEqual(got.payload, { amount: 4200, currency: "EUR", note: "caf\u00e9 \u2615", lines: [1, 2] });
    assert.equal(got.version, "1.2");
    assert.equal(got.traceparent, "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01");
    const sw = d.name.startsWith("standard-webhooks");
    assert.equal(got.profile, sw ? "standard-webhooks.v1" : "hookproof.sig.v1");
    if (!sw && !d.keys.startsWith("secret")) assert.match(got.keyId, /^ek_/);
  });
}

test("a rollout's dual-signed delivery: each signature verifies on its own", async () => {
  const d = byName("rollout: sig.v1 current and next key, and standard-webhooks.v1");
  const res = await verifyAny(requestOf(d), { jwks: D.jwks.k2_active, now: at(d.now), nonceCache: null });
  assert.equal(res.ok, true);
  assert.deepEqual(res.verified, ["hookproof.sig.v1", "standard-webhooks.v1"]);
  assert.deepEqual([...res.results.values()].map((r) => r.reason), ["ok", "ok", "ok"]);
  // while the next key is still NOT_BEFORE its own label is refused, the request is accepted
  const early = await verifyAny(requestOf(d), { jwks: D.jwks.published, now: at(d.now), nonceCache: null });
  assert.equal(early.ok, true);
  assert.equal(early.results.get("hookproof.sig.v1#hookproof-next").reason, "key_not_yet_valid");
});

test(`${MUTATIONS.length} mutations of engine-signed deliveries: the Python SDK's reason code for each`, async () => {
  const mismatches = [];
  for (const c of MUTATIONS) {
    const options = { ...keysOf(c.keys), now: at(c.now), nonceCache: null };
    if (c.expected) {
      if (c.expected["webhook-subscription"]) options.subscriptionId = c.expected["webhook-subscription"];
      if (c.expected["webhook-generation"]) options.generation = Number(c.expected["webhook-generation"]);
    }
    const res = await verifyAny(requestOf(c), options);
    if (res.reason !== c.reason) mismatches.push(`${c.name}: python ${c.reason}, ts ${res.reason} (${res.result.detail})`);
  }
  assert.deepEqual(mismatches, []);
});

test("every refusal code is reached by a mutation of a valid delivery", async () => {
  const reached = new Set(MUTATIONS.map((c) => c.reason));
  // replayed_nonce: the same delivery twice through one replay cache
  const cache = new NonceCache();
  const options = { ...keysOf(ED.keys), now: at(ED.now), nonceCache: cache };
  assert.equal(await reasonOf(requestOf(ED), options), "ok");
  const again = await reasonOf(requestOf(ED), options);
  assert.equal(again, "replayed_nonce");
  reached.add(again);
  // keys_unavailable: the engine's JWKS cannot be downloaded (a loopback port nobody listens on)
  const server = createServer();
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${server.address().port}/.well-known/hookproof/jwks.json`;
  await new Promise((resolve) => server.close(resolve));
  const down = await reasonOf(requestOf(ED), { jwksCache: new JwksCache(url), now: at(ED.now), nonceCache: null });
  assert.equal(down, "keys_unavailable");
  reached.add(down);
  assert.deepEqual([...REASONS].filter((r) => !reached.has(r)), []);
});

test("the named mutations of the brief give the documented codes", async () => {
  const want = {
    "sig.v1 ed25519: header Content-Digest removed": "component_missing",
    "sig.v1 ed25519: header Webhook-Generation removed": "component_missing",
    "sig.v1 ed25519: header Signature removed": "malformed",
    "sig.v1 ed25519: header Webhook-Subscription altered": "bad_signature",
    "sig.v1 ed25519: generation 3 -> 4": "bad_signature",
    "sig.v1 ed25519: body byte 10 flipped": "digest_mismatch",
    "sig.v1 ed25519: body re-encoded with spaces": "digest_mismatch",
    "sig.v1 hmac-sha256: body byte 0 flipped": "digest_mismatch",
    "sig.v1 ed25519: now: expired 61 s ago": "expired",
    "sig.v1 ed25519: now: created 61 s in the future": "not_yet_valid",
    "sig.v1 ed25519: jwks k1_revoked": "revoked_key",
    "sig.v1 ed25519: jwks k1_absent": "unknown_key",
    "sig.v1 ed25519: jwks k1_not_before": "key_not_yet_valid",
    "sig.v1 ed25519: jwks k1_verify_only": "ok",
    "sig.v1 ed25519: jwks k1_verify_only_ended": "expired",
    "sig.v1 ed25519: pinned generation differs": "bad_signature",
    "sig.v1 ed25519: re-signed: wrong tag": "wrong_tag",
    "sig.v1 ed25519: re-signed: hmac key under the JWKS": "unknown_key",
    "sig.v1 hmac-sha256: re-signed: ed25519 key with the secret": "alg_mismatch",
    "standard-webhooks.v1 v1 (hmac): body byte 10 flipped": "bad_signature",
    "standard-webhooks.v1 v1 (hmac): now: 301 s after the timestamp": "expired",
    "standard-webhooks.v1 v1a (ed25519): jwks k1_revoked": "revoked_key",
  };
  for (const [name, code] of Object.entries(want)) {
    const c = MUTATIONS.find((m) => m.name === name);
    assert.ok(c, name);
    assert.equal(c.reason, code, `python: ${name}`);
    const options = { ...keysOf(c.keys), now: at(c.now), nonceCache: null };
    if (c.expected?.["webhook-generation"]) options.generation = Number(c.expected["webhook-generation"]);
    assert.equal(await reasonOf(requestOf(c), options), code, `ts: ${name}`);
  }
});

test("a delivery whose signed body is not a delivery is malformed", async () => {
  const key = { keyId: "k", alg: "hmac-sha256", secret: Buffer.from(D.secrets.base64, "base64") };
  const body = Buffer.from('{"type":"order.created","eventId":"evt_9"}');
  const headers = {
    "content-type": "application/json",
    "webhook-id": "evt_9",
    "webhook-delivery-id": "dlv_9",
    "webhook-subscription": "sub_01",
    "webhook-generation": "3",
  };
  Object.assign(headers, signRequest("POST", D.endpoint, headers, body, { key, created: D.now }));
  const err = await verifyDelivery({ method: "POST", url: D.endpoint, headers, body }, { secret: D.secrets.base64, now: at(D.now) }).catch((e) => e);
  assert.ok(err instanceof VerificationError);
  assert.equal(err.code, "malformed");
  assert.match(err.message, /aggregateVersion/);
});

test("headers as Node gives them, as a Headers object, and endpoint override", async () => {
  const plain = Object.fromEntries(ED.headers.map(([k, v]) => [k.toLowerCase(), v]));
  const body = Buffer.from(ED.body_b64, "base64");
  const opts = () => ({ ...keysOf(ED.keys), now: at(ED.now), nonceCache: new NonceCache() });
  assert.equal((await verifyDelivery({ method: "POST", url: ED.url, headers: plain, body }, opts())).eventId, "evt_ed_1");
  assert.equal((await verifyDelivery({ method: "POST", url: ED.url, headers: new Headers(plain), body }, opts())).eventId, "evt_ed_1");
  const relative = { method: "POST", url: "/hookproof/orders?tenant=acme", headers: plain, body };
  assert.equal((await verifyDelivery(relative, { ...opts(), endpoint: ED.url })).eventId, "evt_ed_1");
  assert.equal(await reasonOf(relative, opts()), "malformed");
  assert.equal(await reasonOf({ method: "POST", url: ED.url, headers: plain, body: body.toString() }, opts()), "malformed");
});

test("options: a secret that is not base64 is a configuration error, not a verification code", async () => {
  await assert.rejects(verifyDelivery(requestOf(HM), { secret: "not base64!" }), TypeError);
  await assert.rejects(verifyDelivery(requestOf(HM), {}), TypeError);
});
