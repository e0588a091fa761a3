// Broker messages (DESIGN.md section 13): the TS SDK verifies messages the Python engine built,
// from (headers, body, destination), with the Python SDK's reason codes, and answers a broker
// challenge byte for byte as the Python SDK does.
import assert from "node:assert/strict";
import { generateKeyPairSync } from "node:crypto";
import { test } from "node:test";

import {
  amqpDestinationUri,
  answerBrokerChallenge,
  challengeResponseUrl,
  destinationDigest,
  isChallengeMessage,
  jwkToSigningKey,
  natsDestinationUri,
  NonceCache,
  publicJwk,
  signMessage,
  verifyBrokerMessage,
  VerificationError,
} from "../dist/index.js";
import { at, fixture } from "./helpers.mjs";

const B = fixture("broker.json");
const bodyOf = (c) => Buffer.from(c.body_b64, "base64");
const keysOf = (c) => (c.keys === "jwks" ? { jwks: B.jwks } : { secret: B.secret });
const opts = (c, extra = {}) => ({ ...keysOf(c), now: at(B.now), nonceCache: null, ...extra });

test("every engine-built message verifies for its destination", async () => {
  for (const c of B.messages) {
    const got = await verifyBrokerMessage({ headers: c.headers, body: bodyOf(c), destination: c.destination }, opts(c));
    assert.equal(got.deliveryId, c.headers["hookproof-delivery-id"], c.name);
    assert.equal(got.eventId, c.headers["hookproof-event-id"], c.name);
    assert.equal(got.subscriptionId, "sub_b");
    assert.equal(got.generation, 2);
    assert.equal(got.attempt, Number(c.headers["hookproof-attempt"]));
    assert.equal(got.payloadDigest, c.headers["content-digest"]);
  }
});

test("mutations give the Python SDK's reason codes", async () => {
  for (const m of B.mutations) {
    await assert.rejects(
      verifyBrokerMessage({ headers: m.headers, body: bodyOf(m), destination: m.destination }, opts(m)),
      (err) => err instanceof VerificationError && err.code === m.reason,
      m.name,
    );
  }
});

test("amqplib-style header tables (Buffers, numbers) and nats.js-style headers", async () => {
  const c = B.messages[0];
  const table = Object.fromEntries(Object.entries(c.headers).map(([k, v]) => [k, Buffer.from(v)]));
  table["hookproof-attempt"] = 1;
  const got = await verifyBrokerMessage({ headers: table, body: bodyOf(c), destination: c.destination }, opts(c));
  assert.equal(got.attempt, 1);
  const natsLike = {
    keys: () => Object.keys(c.headers),
    get: (k) => c.headers[k],
    values: (k) => [c.headers[k]],
  };
  const again = await verifyBrokerMessage({ headers: natsLike, body: bodyOf(c), destination: c.destination }, opts(c));
  assert.equal(again.eventId, c.headers["hookproof-event-id"]);
});

test("a pinned subscription refuses another one's messages", async () => {
  const c = B.messages[0];
  await assert.rejects(
    verifyBrokerMessage({ headers: c.headers, body: bodyOf(c), destination: c.destination }, opts(c, { subscriptionId: "sub_x" })),
    (err) => err.code === "bad_signature",
  );
});

test("destination URIs and digests match the engine's", () => {
  assert.equal(amqpDestinationUri("amqps", "rabbit.example.com", 5671, "/", "orders", "order.created"), B.amqpDestination);
  assert.equal(natsDestinationUri("tls", "nats.example.com", 4222, "orders.created"), B.natsDestination);
  assert.equal(amqpDestinationUri("AMQPS", "H", 5671, "a/b", "", "k #*'"), "amqps://h:5671/a%2Fb//k%20%23%2A%27");
  assert.equal(destinationDigest("x").length, 64);
  assert.equal(challengeResponseUrl("http://e:8080/", "chl 1"), "http://e:8080/v1/challenges/chl%201/response");
});

test("a broker challenge is answered byte for byte as the Python SDK answers it, once", async () => {
  const ch = B.challenge;
  const message = { headers: ch.headers, body: Buffer.from(ch.body_b64, "base64"), destination: ch.destination };
  assert.ok(isChallengeMessage(message.body));
  const cache = new NonceCache();
  const ans = await answerBrokerChallenge(message, { secret: B.secret, now: at(B.now), nonceCache: cache });
  assert.equal(ans.reason, "ok");
  assert.equal(ans.challengeId, "chl_broker_1");
  assert.equal(ans.body.toString("base64"), ch.answer_b64);
  const replay = await answerBrokerChallenge(message, { secret: B.secret, now: at(B.now), nonceCache: cache });
  assert.equal(replay.ok, false);
  const wrong = await answerBrokerChallenge({ ...message, destination: B.amqpDestination }, { secret: B.secret, now: at(B.now), nonceCache: null });
  assert.equal(wrong.reason, "bad_signature");
  const late = await answerBrokerChallenge(message, { secret: B.secret, now: at(B.now + 3600), nonceCache: null });
  assert.equal(late.ok, false);
});

test("signMessage and verifyBrokerMessage agree (ed25519)", async () => {
  const { privateKey } = generateKeyPairSync("ed25519");
  const jwk = { ...privateKey.export({ format: "jwk" }), kid: "ts-k1" };
  const key = jwkToSigningKey(jwk);
  const destination = natsDestinationUri("tls", "n.example.com", 4222, "a.b");
  const body = Buffer.from(JSON.stringify({ type: "t", eventId: "e1", aggregateId: "a", aggregateVersion: 1, payload: {} }));
  const headers = {
    "content-type": "application/json",
    "hookproof-event-id": "e1",
    "hookproof-delivery-id": "d1",
    "hookproof-subscription-id": "s1",
    "hookproof-generation": "1",
  };
  const signed = { ...headers, ...signMessage(headers, body, destination, { key }) };
  const jwks = { keys: [{ ...publicJwk(key.privateKey, "ts-k1"), state: "ACTIVE" }] };
  const got = await verifyBrokerMessage({ headers: signed, body, destination }, { jwks, nonceCache: null });
  assert.equal(got.deliveryId, "d1");
  await assert.rejects(
    verifyBrokerMessage({ headers: signed, body, destination: destination + "x" }, { jwks, nonceCache: null }),
    (err) => err.code === "bad_signature",
  );
});
