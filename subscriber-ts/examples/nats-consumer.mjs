// Consume a hookproof NATS JetStream destination with nats.js
// (`npm install @nats-io/transport-node @nats-io/jetstream`): verify every message from its
// headers, body and the destination URI, apply it once, answer challenges.
//   HOOKPROOF_URL=https://hookproof.internal NATS_URL=tls://nats.example.com:4222 STREAM=ORDERS \
//   DESTINATION_URI=tls://nats.example.com:4222/orders.created node nats-consumer.mjs
import { connect } from "@nats-io/transport-node";
import { jetstream, jetstreamManager } from "@nats-io/jetstream";
import {
  VerificationError,
  answerBrokerChallenge,
  isChallengeMessage,
  sendChallengeResponse,
  verifyBrokerMessage,
} from "hookproof-subscriber";

const ENGINE = process.env.HOOKPROOF_URL;
const destination = process.env.DESTINATION_URI; // the subscription's destination.uri
const keys = { jwksUrl: `${ENGINE}/.well-known/hookproof/jwks.json` };
const applied = new Set();

const nc = await connect({ servers: process.env.NATS_URL });
const stream = process.env.STREAM ?? "ORDERS";
const jsm = await jetstreamManager(nc);
await jsm.consumers.add(stream, { durable_name: "hookproof-consumer", ack_policy: "explicit" });
const consumer = await jetstream(nc).consumers.get(stream, "hookproof-consumer");
for await (const msg of await consumer.consume()) {
  // msg.headers is nats.js MsgHdrs: keys(), get(), values() are what the SDK reads
  const message = { headers: msg.headers ?? {}, body: msg.data, destination };
  if (isChallengeMessage(message.body)) {
    const answer = await answerBrokerChallenge(message, keys);
    if (answer.ok) await sendChallengeResponse(ENGINE, answer);
    msg.ack();
    continue;
  }
  try {
    const d = await verifyBrokerMessage(message, keys);
    if (!applied.has(d.eventId)) {
      console.log("apply", d.eventId, d.topic, d.payload);
      applied.add(d.eventId);
    }
    msg.ack();
  } catch (err) {
    if (!(err instanceof VerificationError)) throw err;
    console.log("refused", err.code);
    msg.term();
  }
}
