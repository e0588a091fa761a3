// RFC 9421 Appendix B.2.5 / B.2.6 and RFC 9530 vectors (copied into test/vectors from the
// project's shared conformance folder).
import assert from "node:assert/strict";
import { createPrivateKey, createPublicKey } from "node:crypto";
import { test } from "node:test";

import {
  buildSignatureBase,
  contentDigest,
  normalizeHeaders,
  parseSignature,
  rawVerify,
  signBytes,
  verifyContentDigest,
} from "../dist/index.js";
import { vector } from "./helpers.mjs";

const V = JSON.parse(vector("vectors.json"));
const URL_ = V.test_request.assumed_target_uri;
const edPub = createPublicKey(V.keys["test-key-ed25519"].public_pem);
const edPriv = createPrivateKey(V.keys["test-key-ed25519"].private_pem);
const hmacSecret = Buffer.from(V.keys["test-shared-secret"].base64, "base64");

function headersFor(name) {
  const h = normalizeHeaders(V.test_request.headers);
  h.set("signature-input", V[name].signature_input_header);
  h.set("signature", V[name].signature_header);
  return h;
}

for (const [name, file, key] of [
  ["B.2.5", "b25.signature-base.txt", { keyId: "test-shared-secret", alg: "hmac-sha256", secret: hmacSecret, state: "ACTIVE" }],
  ["B.2.6", "b26.signature-base.txt", { keyId: "test-key-ed25519", alg: "ed25519", publicKey: edPub, state: "ACTIVE" }],
]) {
  test(`RFC 9421 ${name}: the signature base is byte-exact and the signature verifies`, () => {
    const v = V[name];
    const hdrs = headersFor(name);
    const parsed = parseSignature(hdrs, v.label);
    assert.deepEqual(parsed.components, v.covered_components);
    const base = buildSignatureBase("POST", URL_, hdrs, parsed.components, parsed.signatureParams);
    assert.equal(base.toString("ascii"), vector(file));
    assert.equal(base.toString("ascii"), v.signature_base);
    assert.equal(rawVerify("POST", URL_, hdrs, v.label, key), "ok");
  });

  test(`RFC 9421 ${name}: a changed covered field does not verify`, () => {
    const hdrs = headersFor(name);
    hdrs.set("content-type", "application/json; charset=utf-8");
    assert.equal(rawVerify("POST", URL_, hdrs, V[name].label, key), "bad_signature");
    const gone = headersFor(name);
    gone.delete("content-type");
    assert.equal(rawVerify("POST", URL_, gone, V[name].label, key), "component_missing");
  });
}

test("RFC 9421 B.2.6: signing the base with the test key gives the RFC's signature (Ed25519 is deterministic)", () => {
  const sig = signBytes({ keyId: "test-key-ed25519", alg: "ed25519", privateKey: edPriv }, Buffer.from(V["B.2.6"].signature_base));
  assert.equal(`sig-b26=:${sig.toString("base64")}:`, V["B.2.6"].signature_header);
});

test("RFC 9421 B.2.5: HMAC-SHA256 of the base gives the RFC's signature", () => {
  const sig = signBytes({ keyId: "test-shared-secret", alg: "hmac-sha256", secret: hmacSecret }, Buffer.from(V["B.2.5"].signature_base));
  assert.equal(`sig-b25=:${sig.toString("base64")}:`, V["B.2.5"].signature_header);
});

test("RFC 9530 Content-Digest examples", () => {
  const C = JSON.parse(vector("content_digest.json"));
  for (const ex of C.examples) {
    const body = Buffer.from(ex.body_utf8, "utf8");
    assert.equal(contentDigest(body), `sha-256=:${ex["sha-256"]}:`);
    assert.equal(contentDigest(body, "sha-512"), `sha-512=:${ex["sha-512"]}:`);
    assert.equal(verifyContentDigest(`sha-256=:${ex["sha-256"]}:, sha-512=:${ex["sha-512"]}:`, body), true);
    assert.equal(verifyContentDigest(`sha-256=:${ex["sha-256"]}:, md5=:AAAA:`, body), true); // unknown ignored
    assert.equal(verifyContentDigest(`sha-256=:${ex["sha-256"]}:`, Buffer.concat([body, Buffer.from(" ")])), false);
    assert.throws(() => verifyContentDigest(`sha-512=:${ex["sha-512"]}:`, body), /no sha-256/);
  }
  // the RFC 9421 test request carries the sha-512 digest of its body
  const sent = V.test_request.headers.find(([n]) => n === "Content-Digest")[1];
  assert.equal(contentDigest(Buffer.from(V.test_request.body), "sha-512"), sent);
});

test("the fast parser agrees with the structured-field parser on every fixture signature", async () => {
  const { fixture } = await import("./helpers.mjs");
  const requests = [...fixture("mutations.json"), ...fixture("deliveries.json").deliveries, ...fixture("challenges.json")];
  let fastTaken = 0;
  const outcome = (hdrs, label, fast) => {
    try {
      const p = parseSignature(hdrs, label, fast);
      return { components: p.components, params: [...p.params], sig: p.signature.toString("base64"), sp: p.signatureParams, labelsMatch: p.labelsMatch };
    } catch (err) {
      return { error: err.reason ?? err.name };
    }
  };
  for (const c of requests) {
    let hdrs;
    try {
      hdrs = normalizeHeaders(c.headers);
    } catch {
      continue;
    }
    for (const label of ["hookproof", "hookproof-next"]) {
      const fast = outcome(hdrs, label, true);
      const general = outcome(hdrs, label, false);
      assert.deepEqual(fast, general, `${c.name} (${label})`);
      if (!fast.error && hdrs.get("signature-input")?.startsWith(label + "=(") && !hdrs.get("signature-input").includes(", ")) fastTaken++;
    }
  }
  assert.ok(fastTaken > 100, `fast path taken ${fastTaken} times`);
});
