// JwksCache against a real HTTP server on loopback: cache headers, ETag revalidation, refetch
// on an unknown key id at most once per interval, last good set kept on failure.
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { after, before, test } from "node:test";

import { JwksCache, NonceCache, verifyDelivery } from "../dist/index.js";
import { D, at, requestOf } from "./helpers.mjs";

let server;
let base;
const state = { doc: D.jwks.k1_absent, cacheControl: "public, max-age=60, must-revalidate", status: 200, hits: 0, conditional: 0 };

before(async () => {
  server = createServer((req, res) => {
    state.hits++;
    const etag = `"${Buffer.from(JSON.stringify(state.doc)).length}-${state.doc.keys.length}"`;
    const headers = { "cache-control": state.cacheControl, etag };
    if (state.status !== 200) {
      res.writeHead(state.status);
      res.end();
      return;
    }
    if (req.headers["if-none-match"] === etag) {
      state.conditional++;
      res.writeHead(304, headers);
      res.end();
      return;
    }
    res.writeHead(200, { ...headers, "content-type": "application/jwk-set+json" });
    res.end(JSON.stringify(state.doc));
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${server.address().port}`;
});
after(() => server.close());

function clock() {
  const c = { t: 1_000_000, now: () => c.t };
  return c;
}

test("cached for max-age, refetched on an unknown key id at most once per interval", async () => {
  state.doc = D.jwks.k1_absent;
  state.hits = 0;
  const c = clock();
  const cache = JwksCache.forEngine(base, { clock: c.now, minRefreshIntervalMs: 10_000 });
  assert.equal(cache.url, `${base}/.well-known/hookproof/jwks.json`);
  assert.equal((await cache.get("ek_2024_9")).state, "VERIFY_ONLY");
  assert.equal(state.hits, 1);
  assert.equal(await cache.get("ek_2024_9") !== undefined, true);
  assert.equal(state.hits, 1); // fresh: no fetch
  assert.equal(await cache.get("ek_2025_1"), undefined); // unknown, but fetched 0 ms ago
  assert.equal(state.hits, 1);
  state.doc = D.jwks.published; // the key appears
  c.t += 10_000;
  assert.equal((await cache.get("ek_2025_1")).state, "ACTIVE"); // unknown: one refetch
  assert.equal(state.hits, 2);
  assert.equal(await cache.get("ek_nope"), undefined);
  assert.equal(await cache.get("ek_nope"), undefined);
  assert.equal(state.hits, 2); // rate-limited
  c.t += 60_001; // max-age passed: revalidated with If-None-Match, 304 keeps the keys
  state.conditional = 0;
  assert.equal((await cache.get("ek_2025_1")).state, "ACTIVE");
  assert.equal(state.hits, 3);
  assert.equal(state.conditional, 1);
});

test("no-store is not cached; a failed fetch keeps the last good set", async () => {
  state.doc = D.jwks.published;
  state.cacheControl = "no-store";
  state.hits = 0;
  const c = clock();
  const cache = new JwksCache(`${base}/jwks`, { clock: c.now, minRefreshIntervalMs: 1000 });
  await cache.get("ek_2025_1");
  c.t += 1000;
  await cache.get("ek_2025_1");
  assert.equal(state.hits, 2);
  state.status = 500;
  c.t += 1000;
  assert.equal((await cache.get("ek_2025_1")).keyId, "ek_2025_1");
  assert.equal(cache.lastError, "Error");
  state.status = 200;
  state.cacheControl = "public, max-age=60, must-revalidate";
});

test("concurrent lookups share one fetch", async () => {
  state.doc = D.jwks.published;
  state.hits = 0;
  const cache = new JwksCache(`${base}/jwks`);
  const keys = await Promise.all(Array.from({ length: 20 }, () => cache.get("ek_2025_1")));
  assert.ok(keys.every((k) => k.keyId === "ek_2025_1"));
  assert.equal(state.hits, 1);
});

test("verifyDelivery with jwksUrl fetches the engine's JWKS", async () => {
  state.doc = D.jwks.published;
  const d = D.deliveries[0];
  const got = await verifyDelivery(requestOf(d), { jwksUrl: `${base}/engine-a/jwks.json`, now: at(d.now), nonceCache: new NonceCache() });
  assert.equal(got.keyId, "ek_2025_1");
});
