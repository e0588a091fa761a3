// Broker consumers that do not lose messages (issue 48 item 4, DESIGN.md section 13
// "Freshness"): a message that waited in a queue is judged by the broker's enqueue time and the
// consumer's window (default 7 days), never the HTTP 300 s; a failed key download is
// `keys_unavailable` (transient), not `unknown_key`. Keys come from a real loopback HTTP server.
import assert from "node:assert/strict";
import { generateKeyPairSync } from "node:crypto";
import { createServer } from "node:http";
import { test } from "node:test";

import {
  DEFAULT_MAX_AGE,
  JwksCache,
  VerificationError,
  jwkToSigningKey,
  natsDestinationUri,
  publicJwk,
  signMessage,
  signStandard,
  verifyBrokerMessage,
} from "../dist/index.js";
import { at } from "./helpers.mjs";

const TEN_MINUTES = 600;
const DAY = 24 * 3600;
const { privateKey } = generateKeyPairSync("ed25519");
const KEY = jwkToSigningKey({ ...privateKey.export({ format: "jwk" }), kid: "engine-k1" });
const JWK = { ...publicJwk(KEY.privateKey, "engine-k1"), state: "ACTIVE" };
const JWKS = { keys: [JWK] };
const destination = natsDestinationUri("tls", "nats.example.com", 4222, "orders.created");

/** A message as the engine publishes it, signed at `created` (300 s lifetime) under `profile`. */
function message(created, profile = "hookproof.sig.v1") {
  const eventId = `evt_${Math.random().toString(36).slice(2)}`;
  const body = Buffer.from(JSON.stringify({ type: "order.created", eventId, aggregateId: "o1", aggregateVersion: 1, payload: {} }));
  const headers = {
    "content-type": "application/json",
    "hookproof-event-id": eventId,
    "hookproof-delivery-id": `dlv_${eventId}`,
    "hookproof-subscription-id": "sub_b",
    "hookproof-generation": "1",
  };
  const signed =
    profile === "hookproof.sig.v1"
      ? signMessage(headers, body, destination, { key: KEY, created })
      : signStandard(eventId, body, KEY, created);
  return { headers: { ...headers, ...signed }, body, destination };
}

async function reason(msg, options) {
  try {
    await verifyBrokerMessage(msg, { jwks: JWKS, ...options });
    return "ok";
  } catch (err) {
    if (!(err instanceof VerificationError)) throw err;
    return err.code;
  }
}

const now = Math.trunc(Date.now() / 1000);

for (const profile of ["hookproof.sig.v1", "standard-webhooks.v1"]) {
  test(`${profile}: a message consumed ten minutes after publish verifies`, async () => {
    const msg = message(now - TEN_MINUTES, profile);
    assert.equal(await reason(msg, {}), "ok"); // no broker time: judged from the signature
    assert.equal(await reason(msg, { enqueuedAt: at(now - TEN_MINUTES) }), "ok"); // amqplib: a Date
    assert.equal(await reason(msg, { enqueuedAt: now - TEN_MINUTES + 1 }), "ok"); // seconds
    // read again a day later (a redelivery: same nonce, default replay cache): still verifies
    assert.equal(await reason(msg, { enqueuedAt: now - TEN_MINUTES, now: at(now + DAY) }), "ok");
    assert.equal(await reason(msg, { enqueuedAt: now - TEN_MINUTES, now: at(now + DAY) }), "ok");
  });

  test(`${profile}: older than the window is expired`, async () => {
    assert.equal(DEFAULT_MAX_AGE, 7 * DAY);
    const old = message(now - 8 * DAY, profile);
    assert.equal(await reason(old, {}), "expired");
    assert.equal(await reason(old, { enqueuedAt: now - 8 * DAY }), "expired");
    assert.equal(await reason(old, { maxAge: 9 * DAY }), "ok");
    const fresh = message(now - TEN_MINUTES, profile);
    assert.equal(await reason(fresh, { maxAge: 300 }), "expired");
    assert.equal(await reason(fresh, { enqueuedAt: now - TEN_MINUTES, maxAge: 300 }), "expired");
  });
}

test("the enqueue time must fit the signature", async () => {
  const msg = message(now - TEN_MINUTES);
  assert.equal(await reason(msg, { enqueuedAt: now - 2 * TEN_MINUTES }), "not_yet_valid");
  assert.equal(await reason(msg, { enqueuedAt: now }), "expired");
  assert.equal(await reason(message(now + 3600), {}), "not_yet_valid");
  assert.equal(await reason(msg, { maxAge: 0 }), "malformed");
  assert.equal(await reason(msg, { enqueuedAt: new Date(Number.NaN) }), "malformed");
});

/** The engine's JWKS on a real loopback server: 503 until `up`. */
async function jwksServer() {
  const state = { up: false, keys: [JWK] };
  const server = createServer((req, res) => {
    if (!state.up) {
      res.writeHead(503).end();
      return;
    }
    res.writeHead(200, { "content-type": "application/json", "cache-control": "no-store" }).end(JSON.stringify({ keys: state.keys }));
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  state.url = `http://127.0.0.1:${server.address().port}/.well-known/hookproof/jwks.json`;
  state.close = () => new Promise((resolve) => server.close(resolve));
  return state;
}

for (const profile of ["hookproof.sig.v1", "standard-webhooks.v1"]) {
  test(`${profile}: a failed key download is keys_unavailable, transient; then it verifies`, async () => {
    const server = await jwksServer();
    try {
      const msg = message(now, profile);
      const jwksCache = new JwksCache(server.url, { minRefreshIntervalMs: 0 });
      await assert.rejects(
        verifyBrokerMessage(msg, { jwksCache }),
        (err) => err instanceof VerificationError && err.code === "keys_unavailable" && err.transient && /could not be downloaded/.test(err.message),
      );
      server.up = true;
      const got = await verifyBrokerMessage(msg, { jwksCache });
      assert.equal(got.deliveryId, msg.headers["hookproof-delivery-id"]);
      // downloaded, and the key is not there: unknown_key, permanent
      server.keys = [];
      await jwksCache.refresh();
      await assert.rejects(
        verifyBrokerMessage(msg, { jwksCache }),
        (err) => err instanceof VerificationError && err.code === "unknown_key" && !err.transient,
      );
    } finally {
      await server.close();
    }
  });
}

test("nothing listening at the JWKS URL is keys_unavailable", async () => {
  const server = await jwksServer();
  const url = server.url;
  await server.close(); // the port is closed now
  await assert.rejects(
    verifyBrokerMessage(message(now), { jwksCache: new JwksCache(url, { timeoutMs: 2000 }) }),
    (err) => err instanceof VerificationError && err.code === "keys_unavailable",
  );
});
