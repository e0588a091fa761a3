// Consume a hookproof RabbitMQ destination with amqplib (`npm install amqplib`): verify every
// message from its headers, body and the destination URI, apply it once, send the receipt,
// answer challenges. No message is lost:
// - ack only after the event is applied (and its receipt sent), or for a permanent refusal;
// - a message that cannot be verified *yet* (`err.transient`: the engine's keys could not be
//   downloaded) or whose apply, receipt or challenge answer failed or timed out is nacked with
//   requeue after RETRY_DELAY_MS, so RabbitMQ delivers it again;
// - its age is judged from the `timestamp` property where the broker (or a timestamping plugin)
//   sets one, else from its signature, against MAX_AGE seconds (default 7 days): a message
//   that waited in the queue is not stale.
// The exchange, the queue and their binding must exist before the subscription is created (the
// README's "Delivering to a queue or stream"). Dedupe by `message_id` (the delivery id) or by
// event id. RECEIPT_JWK (an Ed25519 private JWK file with its kid) turns receipts on.
//   HOOKPROOF_URL=https://hookproof.internal AMQP_URL=amqps://user:pass@rabbit.example.com:5671/%2F \
//   DESTINATION_URI=amqps://rabbit.example.com:5671/%2F/orders/order.created QUEUE=orders node amqplib-consumer.mjs
import { readFileSync } from "node:fs";

import amqp from "amqplib";
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
const keys = { jwksUrl: `${ENGINE}/.well-known/hookproof/jwks.json` }; // or { secret: "whsec_..." }
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

const connection = await amqp.connect(process.env.AMQP_URL);
const channel = await connection.createChannel();
const queue = process.env.QUEUE ?? "orders";
await channel.checkQueue(queue); // it must exist (and be bound): see the README
await channel.prefetch(16);
const retryLater = (msg, why) => {
  console.log("retry later", why);
  setTimeout(() => channel.nack(msg, false, true), RETRY_DELAY_MS); // requeued, never dropped
};
await channel.consume(queue, async (msg) => {
  if (msg === null) return; // the queue was deleted
  const message = { headers: msg.properties.headers ?? {}, body: msg.content, destination };
  try {
    await Promise.race([
      (async () => {
        if (isChallengeMessage(message.body)) return answer(message);
        // amqplib gives the AMQP timestamp property in seconds (undefined when not set)
        const d = await verifyBrokerMessage(message, { ...keys, enqueuedAt: msg.properties.timestamp, maxAge });
        await apply(d);
      })(),
      new Promise((_, reject) => setTimeout(() => reject(new Retry("timed out")), TIMEOUT_MS).unref()),
    ]);
  } catch (err) {
    if (err instanceof VerificationError && !err.transient) {
      console.log("refused", err.code); // permanent: dead-letter it, do not requeue
      return channel.nack(msg, false, false);
    }
    return retryLater(msg, err instanceof VerificationError ? err.code : String(err));
  }
  channel.ack(msg);
});
