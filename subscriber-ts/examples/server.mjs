// The README's example: a plain `http` subscriber (put TLS in front of it, or use `node:https`).
import { createServer } from "node:http";
import { VerificationError, answerChallenge, isChallenge, signReceipt, verifyDelivery } from "hookproof-subscriber";

const ENGINE = process.env.HOOKPROOF_URL; // e.g. https://hookproof.internal
const ENDPOINT = process.env.ENDPOINT_URL; // the URL you registered: the signed @target-uri
const receiptKey = JSON.parse(process.env.RECEIPT_PRIVATE_JWK); // Ed25519 JWK with kid
const keys = { jwksUrl: `${ENGINE}/.well-known/hookproof/jwks.json` }; // or { secret: "whsec_..." }

createServer(async (req, res) => {
  const chunks = [];
  for await (const c of req) chunks.push(c);
  const request = { method: req.method, url: ENDPOINT, headers: req.headers, body: Buffer.concat(chunks) };
  if (isChallenge(request.body)) {
    const { status, headers, body } = await answerChallenge(request, { ...keys, endpoint: ENDPOINT, receiptPrivateKey: receiptKey });
    return res.writeHead(status, headers).end(body);
  }
  try {
    const d = await verifyDelivery(request, keys);
    await applyOnce(d.eventId, d.topic, d.payload); // your code, idempotent by eventId
    res.writeHead(200).end();
    const receipt = { subscriptionId: d.subscriptionId, eventId: d.eventId, deliveryId: d.deliveryId, payloadDigest: d.payloadDigest };
    const { headers, body } = await signReceipt(receipt, receiptKey, { url: `${ENGINE}/v1/receipts` });
    await fetch(`${ENGINE}/v1/receipts`, { method: "POST", headers, body });
  } catch (err) {
    if (!(err instanceof VerificationError)) throw err;
    res.writeHead(401, { "content-type": "application/json" }).end(JSON.stringify({ code: err.code }));
  }
}).listen(8443);

async function applyOnce(eventId, topic, payload) {
  console.log("applied", eventId, topic, payload);
}
