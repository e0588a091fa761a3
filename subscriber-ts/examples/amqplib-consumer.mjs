// Consume a hookproof RabbitMQ destination with amqplib (`npm install amqplib`): verify every
// message from its headers, body and the destination URI, apply it once, answer challenges.
//   HOOKPROOF_URL=https://hookproof.internal AMQP_URL=amqps://user:pass@rabbit.example.com:5671/%2F \
//   DESTINATION_URI=amqps://rabbit.example.com:5671/%2F/orders/order.created QUEUE=orders node amqplib-consumer.mjs
import amqp from "amqplib";
import {
  VerificationError,
  answerBrokerChallenge,
  isChallengeMessage,
  sendChallengeResponse,
  verifyBrokerMessage,
} from "hookproof-subscriber";

const ENGINE = process.env.HOOKPROOF_URL;
const destination = process.env.DESTINATION_URI; // the subscription's destination.uri
const keys = { jwksUrl: `${ENGINE}/.well-known/hookproof/jwks.json` }; // or { secret: "whsec_..." }
const applied = new Set(); // use your database: a unique key on the event id

const connection = await amqp.connect(process.env.AMQP_URL);
const channel = await connection.createChannel();
await channel.prefetch(64);
await channel.consume(process.env.QUEUE ?? "orders", async (msg) => {
  const message = { headers: msg.properties.headers ?? {}, body: msg.content, destination };
  if (isChallengeMessage(message.body)) {
    const answer = await answerBrokerChallenge(message, keys);
    if (answer.ok) await sendChallengeResponse(ENGINE, answer);
    return channel.ack(msg);
  }
  try {
    const d = await verifyBrokerMessage(message, keys);
    if (!applied.has(d.eventId)) {
      console.log("apply", d.eventId, d.topic, d.payload);
      applied.add(d.eventId);
    }
    channel.ack(msg);
  } catch (err) {
    if (!(err instanceof VerificationError)) throw err;
    console.log("refused", err.code);
    channel.nack(msg, false, false); // never applied, not requeued
  }
});
