// Challenges built and signed by the Python engine: the TS answer is byte-identical to the
// Python SDK's (which the engine's own check_response accepted when the fixtures were made).
import assert from "node:assert/strict";
import { test } from "node:test";

import { NonceCache, answerChallenge, buildChallengeResponse, endpointDigest, isChallenge } from "../dist/index.js";
import { D, at, fixture, keysOf, requestOf } from "./helpers.mjs";

const CHALLENGES = fixture("challenges.json");

function options(c, extra = {}) {
  return {
    ...keysOf(c.keys),
    now: at(c.now),
    nonceCache: new NonceCache(),
    endpoint: D.endpoint,
    ...(c.receipt ? { receiptPrivateKey: D.receiptPrivateJwk } : {}),
    ...extra,
  };
}

for (const c of CHALLENGES) {
  test(`challenge answered as the Python SDK answers it: ${c.name}`, async () => {
    assert.equal(isChallenge(Buffer.from(c.body_b64, "base64")), true);
    const answer = await answerChallenge(requestOf(c), options(c));
    assert.equal(answer.status, c.answer.status);
    assert.equal(answer.headers["Content-Type"], "application/json");
    assert.equal(answer.body.toString("utf8"), Buffer.from(c.answer.body_b64, "base64").toString("utf8"));
    const doc = JSON.parse(answer.body);
    assert.equal(doc.type, "hookproof.challenge-response.v1");
    assert.equal(doc.endpointDigest, endpointDigest(D.endpoint));
  });
}

const ED = CHALLENGES.find((c) => c.name === "ed25519, receipt key proof");

test("a challenge is answered once (a replay through the same cache is refused)", async () => {
  const opts = options(ED);
  assert.equal((await answerChallenge(requestOf(ED), opts)).status, 200);
  const again = await answerChallenge(requestOf(ED), opts);
  assert.equal(again.status, 401); // the signature's nonce is spent first
  assert.equal(JSON.parse(again.body).code, "replayed_nonce");
});

test("refusals: altered body, expired, wrong endpoint, wrong subscription, unsigned", async () => {
  const body = Buffer.from(ED.body_b64, "base64");
  const altered = { ...requestOf(ED), body: Buffer.from(body.toString().replace('"generation":4', '"generation":5')) };
  let a = await answerChallenge(altered, options(ED));
  assert.deepEqual([a.status, JSON.parse(a.body).code], [401, "digest_mismatch"]);
  // the challenge lives 120 s, its signature 60 s plus 60 s of clock skew
  a = await answerChallenge(requestOf(ED), options(ED, { now: at(ED.now + 120.5) }));
  assert.deepEqual([a.status, JSON.parse(a.body).code], [403, "expired"]);
  a = await answerChallenge(requestOf(ED), options(ED, { now: at(ED.now + 121) }));
  assert.deepEqual([a.status, JSON.parse(a.body).code], [401, "expired"]);
  a = await answerChallenge(requestOf(ED), options(ED, { endpoint: "https://hooks.example.com/other" }));
  assert.equal(a.status, 401); // the signed @target-uri is the endpoint's: the signature fails first
  a = await answerChallenge({ ...requestOf(ED), url: D.endpoint }, { ...options(ED), endpoint: undefined, subscriptionId: "sub_02" });
  assert.deepEqual([a.status, JSON.parse(a.body).code], [403, "wrong_subscription"]);
  const unsigned = { ...requestOf(ED), headers: ED.headers.filter(([k]) => !k.toLowerCase().startsWith("signature")) };
  a = await answerChallenge(unsigned, options(ED));
  assert.deepEqual([a.status, JSON.parse(a.body).code], [401, "malformed"]);
  assert.equal(a.headers["Content-Type"], "application/problem+json");
});

test("buildChallengeResponse refuses what is not a challenge", () => {
  assert.throws(() => buildChallengeResponse(Buffer.from('{"type":"order.created"}')));
  assert.equal(isChallenge(Buffer.from("{")), false);
});
