// A real loopback HTTP server whose answers a test scripts one request at a time.
import http from "node:http";

/**
 * Start a server that hands each request to the next of `steps` (the last one repeats).
 * A step is (req, res, body) => void; `requests` records method, url, headers and JSON body.
 */
export async function scriptedServer(steps) {
  const requests = [];
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => {
      const raw = Buffer.concat(chunks).toString("utf8");
      const body = raw ? JSON.parse(raw) : undefined;
      requests.push({ method: req.method, url: req.url, headers: req.headers, body, raw });
      const step = steps[Math.min(requests.length - 1, steps.length - 1)];
      step(req, res, body);
    });
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address();
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(resolve);
      }),
  };
}

export function json(status, body, headers = {}) {
  return (_req, res) => {
    res.writeHead(status, { "Content-Type": "application/json", ...headers });
    res.end(JSON.stringify(body));
  };
}

export function problem(status, code, title, detail, headers = {}) {
  return (_req, res) => {
    res.writeHead(status, { "Content-Type": "application/problem+json", ...headers });
    res.end(JSON.stringify({ type: `https://hookproof.dev/problems/${code}`, title, status, code, detail }));
  };
}

/** The connection is cut before any answer: the client sees a network error. */
export function cut() {
  return (req) => req.socket.destroy();
}

export function accepted(body) {
  return json(202, {
    eventId: body.eventId,
    payloadDigest: "sha-256=:AAAA:",
    deliveries: [{ deliveryId: "dlv_" + "0".repeat(28), subscriptionId: "sub_" + "0".repeat(24) }],
    created: true,
  });
}
