// Receipts: the TS signature and body are byte-identical to the Python SDK's sign_receipt (the
// fixture script verified each under the engine's receipt profile).
import assert from "node:assert/strict";
import { test } from "node:test";

import { NonceCache, ReceiptError, signReceipt, verifyDelivery, verifyRequest, RECEIPT_V1, jwkToVerificationKey } from "../dist/index.js";
import { D, at, fixture, keysOf, requestOf } from "./helpers.mjs";

const R = fixture("receipts.json");

for (const r of R.receipts) {
  test(`signReceipt equals the Python SDK byte for byte: ${r.receipt.result}`, async () => {
    const { headers, body } = await signReceipt(r.receipt, R.receiptPrivateJwk, { url: r.url, created: r.created });
    assert.equal(body.toString("base64"), r.body_b64);
    assert.deepEqual(headers, r.headers);
    assert.match(headers["Signature-Input"], /^receipt=\("@method" "@target-uri" "content-digest" "content-type"\);created=\d+;expires=\d+;keyid="rk_orders_1";alg="ed25519";tag="hookproof\.receipt\.v1"$/);
    const { d: _d, ...pub } = R.receiptPrivateJwk;
    const key = jwkToVerificationKey(pub);
    const res = verifyRequest("POST", r.url, headers, body, { keys: () => key, now: r.created, profile: RECEIPT_V1 });
    assert.equal(res.reason, "ok");
  });
}

test("a receipt for a verified delivery: defaults filled, payloadDigest of the delivered body", async () => {
  const d = D.deliveries[0];
  const got = await verifyDelivery(requestOf(d), { ...keysOf(d.keys), now: at(d.now), nonceCache: new NonceCache() });
  const { receipt, body } = await signReceipt(
    { subscriptionId: got.subscriptionId, eventId: got.eventId, deliveryId: got.deliveryId, payloadDigest: got.payloadDigest },
    R.receiptPrivateJwk,
    { url: "https://engine.example/v1/receipts" },
  );
  assert.deepEqual(Object.keys(JSON.parse(body)), ["type", "subscriptionId", "eventId", "deliveryId", "payloadDigest", "operationId", "result", "appliedAt", "receiptKeyGeneration"]);
  assert.equal(receipt.result, "applied");
  assert.equal(receipt.payloadDigest, d.expect.payloadDigest);
  assert.equal(receipt.receiptKeyGeneration, 1);
});

test("bad receipts are refused before anything is signed", async () => {
  const ok = R.receipts[0].receipt;
  for (const bad of [
    { ...ok, result: "maybe" },
    { ...ok, payloadDigest: "sha-512=:AAAA:" },
    { ...ok, appliedAt: "yesterday" },
    { ...ok, receiptKeyGeneration: 0 },
    { ...ok, eventId: "" },
    { ...ok, extra: 1 },
  ]) {
    await assert.rejects(signReceipt(bad, R.receiptPrivateJwk, { url: R.receipts[0].url }), ReceiptError);
  }
  const { d: _d, ...pub } = R.receiptPrivateJwk;
  await assert.rejects(signReceipt(ok, pub, { url: R.receipts[0].url }), TypeError);
});
