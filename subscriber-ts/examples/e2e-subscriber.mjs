// A Node.js subscriber built only on the SDK, driven by the Python end-to-end test
// (tests/sdk/test_typescript_e2e.py): HTTPS on 127.0.0.1 (certificate and key paths in
// HOOKPROOF_TLS_CERT / HOOKPROOF_TLS_KEY), port printed as the first stdout line.
//
// stdin: one JSON line per endpoint path: {"path", "endpoint", "jwksUrl"? , "secret"?,
//   "receiptPrivateJwk"?, "receiptsUrl"?, "subscriptionId"?}; answered with {"event":"configured"}.
// stdout: one JSON line per thing that happened (challenge, delivery, refused, receipt).
import { readFileSync } from "node:fs";
import { createServer } from "node:https";
import { createInterface } from "node:readline";

import { VerificationError, answerChallenge, isChallenge, signReceipt, verifyDelivery } from "../dist/index.js";

const endpoints = new Map(); // path -> config
const applied = new Map(); // eventId -> {operationId, appliedAt}
const say = (doc) => process.stdout.write(JSON.stringify(doc) + "\n");

function readBody(req, limit = 1 << 20) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    let size = 0;
    req.on("data", (c) => {
      size += c.length;
      if (size > limit) reject(new Error("too large"));
      else chunks.push(c);
    });
    req.on("end", () => resolve(Buffer.concat(chunks)));
    req.on("error", reject);
  });
}

function send(res, status, doc, type = "application/json") {
  res.writeHead(status, { "content-type": type });
  res.end(typeof doc === "string" || Buffer.isBuffer(doc) ? doc : JSON.stringify(doc));
}

async function sendReceipt(cfg, delivery, result, memo) {
  const { headers, body } = await signReceipt(
    {
      subscriptionId: delivery.subscriptionId,
      eventId: delivery.eventId,
      deliveryId: delivery.deliveryId,
      payloadDigest: delivery.payloadDigest,
      operationId: memo.operationId,
      appliedAt: memo.appliedAt,
      result,
    },
    cfg.receiptPrivateJwk,
    { url: cfg.receiptsUrl },
  );
  const res = await fetch(cfg.receiptsUrl, { method: "POST", headers, body, redirect: "manual" });
  say({ event: "receipt", eventId: delivery.eventId, status: res.status, answer: await res.json().catch(() => null) });
}

const server = createServer(
  { cert: readFileSync(process.env.HOOKPROOF_TLS_CERT), key: readFileSync(process.env.HOOKPROOF_TLS_KEY) },
  async (req, res) => {
    const path = new URL(req.url, "https://x").pathname;
    const cfg = endpoints.get(path);
    if (cfg === undefined) return send(res, 404, { code: "no_such_endpoint" });
    let body;
    try {
      body = await readBody(req);
    } catch {
      return send(res, 413, { code: "too_large" });
    }
    const request = { method: req.method, url: cfg.endpoint, headers: req.headers, body };
    const keys = { ...(cfg.jwksUrl ? { jwksUrl: cfg.jwksUrl } : {}), ...(cfg.secret ? { secret: cfg.secret } : {}) };
    if (isChallenge(body)) {
      const answer = await answerChallenge(request, { ...keys, endpoint: cfg.endpoint, receiptPrivateKey: cfg.receiptPrivateJwk });
      say({ event: "challenge", path, status: answer.status, reason: answer.reason });
      res.writeHead(answer.status, answer.headers);
      return res.end(answer.body);
    }
    let delivery;
    try {
      delivery = await verifyDelivery(request, { ...keys, ...(cfg.subscriptionId ? { subscriptionId: cfg.subscriptionId } : {}) });
    } catch (err) {
      if (!(err instanceof VerificationError)) throw err;
      say({ event: "refused", path, code: err.code, keyId: err.keyId ?? null });
      return send(res, 401, { type: "about:blank", title: "signature refused", status: 401, code: err.code }, "application/problem+json");
    }
    const seen = applied.get(delivery.eventId);
    const memo = seen ?? { operationId: crypto.randomUUID(), appliedAt: new Date().toISOString() };
    applied.set(delivery.eventId, memo);
    say({
      event: "delivery",
      path,
      eventId: delivery.eventId,
      deliveryId: delivery.deliveryId,
      attempt: delivery.attempt,
      profile: delivery.profile,
      keyId: delivery.keyId ?? null,
      duplicate: seen !== undefined,
      headers: req.rawHeaders,
      body_b64: body.toString("base64"),
    });
    send(res, 200, { eventId: delivery.eventId, result: seen ? "duplicate" : "applied", operationId: memo.operationId });
    if (cfg.receiptPrivateJwk && cfg.receiptsUrl) {
      sendReceipt(cfg, delivery, "applied", memo).catch((err) => say({ event: "receipt_error", error: String(err) }));
    }
  },
);

server.listen(0, "127.0.0.1", () => say({ port: server.address().port }));
createInterface({ input: process.stdin }).on("line", (line) => {
  const cfg = JSON.parse(line);
  endpoints.set(cfg.path, cfg);
  say({ event: "configured", path: cfg.path });
});
process.stdin.on("end", () => server.close());
