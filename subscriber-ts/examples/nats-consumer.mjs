// Consume a hookproof NATS JetStream destination with nats.js
// (`npm install @nats-io/transport-node @nats-io/jetstream`): verify every message from its
// headers, body and the destination URI, apply it once, send the receipt, answer challenges.
// No message is lost:
// - ack only after the event is applied (and its receipt sent), or `term` for a permanent refusal;
// - a message that cannot be verified *yet* (`err.transient`: the engine's keys could not be
//   downloaded) or whose apply, receipt or challenge answer failed or timed out is `nak`-ed with
//   RETRY_DELAY_MS, so JetStream delivers it again;
// - its age is judged from the stream's own time (`msg.info.timestampNanos`) against MAX_AGE
//   seconds (default 7 days): a message that waited in the stream is not stale;
// - a consumer that stops (a lost connection, a deleted consumer) is waited out and resumed.
// The stream must exist and cover the subject before the subscription is created (the README's
// "Delivering to a queue or stream"). RECEIPT_JWK (an Ed25519 private JWK file with its kid)
// turns receipts on.
//   HOOKPROOF_URL=https://hookproof.internal NATS_URL=tls://nats.example.com:4222 STREAM=ORDERS \
//   DESTINATION_URI=tls://nats.example.com:4222/orders.created node nats-consumer.mjs
import { readFileSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";

import { connect } from "@nats-io/transport-node";
import { jetstream, jetstreamManager } from "@nats-io/jetstream";
import {
  VerificationError,
  answerBrokerChallenge,
  isChallengeMessage,
  sendChallengeResponse,
  signReceipt,
  verifyBrokerMessage,
} from "hookproof-subscriber";

const ENGINE = process.env.HOOKPROOF_URL;
const destination = process.env.DESTINATION_URI; // the subscription's destination.uri
const maxAge = Number(process.env.MAX_AGE ?? 7 * 24 * 3600);
const RETRY_DELAY_MS = Number(process.env.RETRY_DELAY_MS ?? 5000);
const TIMEOUT_MS = Number(process.env.HANDLER_TIMEOUT_MS ?? 30000);
const keys = { jwksUrl: `${ENGINE}/.well-known/hookproof/jwks.json` };
const receiptKey = process.env.RECEIPT_JWK ? JSON.parse(readFileSync(process.env.RECEIPT_JWK, "utf8")) : undefined;
const applied = new Set(); // use your database: a unique key on the event id
const timedFetch = (url, init) => fetch(url, { ...init, signal: AbortSignal.timeout(TIMEOUT_MS) });

class Retry extends Error {}

async function apply(d) {
  if (!applied.has(d.eventId)) {
    console.log("apply", d.eventId, d.topic, d.payload);
    applied.add(d.eventId);
  }
  if (receiptKey === undefined) return;
  const url = `${ENGINE}/v1/receipts`;
  const { headers, body } = await signReceipt(
    { subscriptionId: d.subscriptionId, eventId: d.eventId, deliveryId: d.deliveryId, payloadDigest: d.payloadDigest },
    receiptKey,
    { url },
  );
  const res = await timedFetch(url, { method: "POST", headers, body, redirect: "manual" });
  await res.body?.cancel();
  if (res.status >= 500 || res.status === 429) throw new Retry(`receipt answered ${res.status}`);
}

async function answer(message) {
  const ans = await answerBrokerChallenge(message, keys);
  if (ans.reason === "keys_unavailable") throw new Retry(ans.reason);
  if (!ans.ok) return console.log("challenge refused", ans.reason); // permanent: acked
  const { status } = await sendChallengeResponse(ENGINE, ans, { fetch: timedFetch });
  if (status >= 500 || status === 429) throw new Retry(`challenge response answered ${status}`);
}

async function handle(msg) {
  // msg.headers is nats.js MsgHdrs: keys(), get(), values() are what the SDK reads
  const message = { headers: msg.headers ?? {}, body: msg.data, destination };
  try {
    await Promise.race([
      (async () => {
        if (isChallengeMessage(message.body)) return answer(message);
        const enqueuedAt = new Date(msg.info.timestampNanos / 1e6); // the stream's own time
        const d = await verifyBrokerMessage(message, { ...keys, enqueuedAt, maxAge });
        await apply(d);
      })(),
      new Promise((_, reject) => setTimeout(() => reject(new Retry("timed out")), TIMEOUT_MS).unref()),
    ]);
  } catch (err) {
    if (err instanceof VerificationError && !err.transient) {
      console.log("refused", err.code);
      return msg.term(); // permanent: never redelivered
    }
    console.log("retry later", err instanceof VerificationError ? err.code : String(err));
    return msg.nak(RETRY_DELAY_MS); // JetStream redelivers it after the delay
  }
  msg.ack();
}

const nc = await connect({ servers: process.env.NATS_URL });
const stream = process.env.STREAM ?? "ORDERS";
const jsm = await jetstreamManager(nc);
await jsm.streams.info(stream); // it must exist and cover the subject: see the README
await jsm.consumers.add(stream, { durable_name: "hookproof-consumer", ack_policy: "explicit" });
for (;;) {
  try {
    const consumer = await jetstream(nc).consumers.get(stream, "hookproof-consumer");
    for await (const msg of await consumer.consume()) await handle(msg);
  } catch (err) {
    console.log("consumer stopped, resuming", String(err)); // e.g. a timeout or a lost connection
    await sleep(1000);
  }
}
