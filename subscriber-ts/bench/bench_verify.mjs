// Per-verification time of the TS SDK for the cases in a JSON file (written by
// bench/bench_ts_verify.py at the repository root): `node bench/bench_verify.mjs CASES.json N`.
// Prints one JSON object: per case and level, the median of 5 rounds of N verifications, in µs
// (wall clock, and process CPU time: user + system, all threads).
import { readFileSync } from "node:fs";

import { verifyDelivery, verifyRequest, parseJwks, decodeSecret } from "../dist/index.js";

const [file, nArg] = process.argv.slice(2);
const cases = JSON.parse(readFileSync(file, "utf8"));
const N = Number(nArg ?? 2000);

async function timeIt(fn) {
  for (let i = 0; i < Math.min(N, 500); i++) await fn(); // warm-up (JIT)
  const rounds = [];
  const cpu = [];
  for (let r = 0; r < 5; r++) {
    const c0 = process.cpuUsage();
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < N; i++) await fn();
    rounds.push(Number(process.hrtime.bigint() - t0) / 1000 / N);
    const c = process.cpuUsage(c0);
    cpu.push((c.user + c.system) / N);
  }
  rounds.sort((a, b) => a - b);
  cpu.sort((a, b) => a - b);
  return { median_us: rounds[2], min_us: rounds[0], max_us: rounds[4], cpu_median_us: cpu[2] };
}

const out = { node: process.version, n: N, cases: {} };
for (const c of cases) {
  const request = { method: "POST", url: c.url, headers: c.headers, body: Buffer.from(c.body_b64, "base64") };
  const options = { ...(c.jwks ? { jwks: c.jwks } : { secret: c.secret }), now: new Date(c.now * 1000), nonceCache: null };
  const got = await verifyDelivery(request, options);
  if (got.eventId !== c.eventId) throw new Error(`case ${c.name} does not verify`);
  const key = c.jwks ? [...parseJwks(c.jwks).values()][0] : { keyId: "k", alg: "hmac-sha256", secret: decodeSecret(c.secret), state: "ACTIVE" };
  const core = c.profile === "hookproof.sig.v1" ? () => {
    const r = verifyRequest("POST", c.url, c.headers, request.body, { keys: () => key, now: c.now });
    if (!r.ok) throw new Error(r.reason);
  } : null;
  out.cases[c.name] = {
    body_bytes: request.body.length,
    verifyDelivery: await timeIt(() => verifyDelivery(request, options)),
    ...(core ? { verifyRequest: await timeIt(core) } : {}),
  };
}
console.log(JSON.stringify(out));
