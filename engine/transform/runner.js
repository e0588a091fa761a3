// The driver inside the sandbox. engine/transform/runtime.py evaluates this file once into the
// snapshot as globalThis.__hookproof_runner; each run (from that snapshot, a clean state)
// calls it with the caller's seed and output cap: it removes itself from the globals, fixes
// Math.random to a PRNG seeded by the caller, evaluates the tenant's code, calls
// handler(webhook) and answers one JSON envelope string. It never throws; what it cannot
// describe (memory exhausted while describing) the host sees as a pending exception.
(function (seed, maxOutput) {
  "use strict";
  delete globalThis.__hookproof_runner;
  const stringify = JSON.stringify;
  const parse = JSON.parse;
  const isArray = Array.isArray;
  const toStr = String;
  const defineProperty = Object.defineProperty;
  // xoshiro128** on four 32-bit words of the caller's seed: the same seed, the same numbers
  let a = seed[0] >>> 0, b = seed[1] >>> 0, c = seed[2] >>> 0, d = seed[3] >>> 0;
  if ((a | b | c | d) === 0) a = 1;
  function next() {
    const r = Math.imul(((Math.imul(b, 5) << 7) | (Math.imul(b, 5) >>> 25)), 9) >>> 0;
    const t = b << 9;
    c ^= a; d ^= b; b ^= c; a ^= d; c ^= t;
    d = (d << 11) | (d >>> 21);
    return r;
  }
  defineProperty(Math, "random", {
    value: function random() { return next() / 4294967296; },
    writable: true, configurable: true, enumerable: false,
  });
  function lineOf(e) {
    try {
      const m = /<input>:(\d+)/.exec(toStr(e && e.stack));
      return m ? Number(m[1]) : null;
    } catch (_) { return null; }
  }
  function exhausted(e) {
    // QuickJS throws InternalError "out of memory" at its heap limit, or null when even that
    // allocation fails; a stack that runs out is a RangeError or InternalError
    if (e === null) return true;
    try {
      const m = toStr(e.message);
      return m === "out of memory" || m === "string too long" || m === "stack overflow" || m === "Maximum call stack size exceeded";
    } catch (_) { return false; }
  }
  function describe(kind, e) {
    if (kind === "throw" && exhausted(e)) kind = "memory";
    let name = "Error", message = "";
    try {
      if (e !== null && typeof e === "object") {
        name = toStr(e.name);
        message = toStr(e.message);
      } else {
        message = toStr(e);
      }
    } catch (_) { message = "(the thrown value cannot be described)"; }
    return stringify({ error: { kind, name: name.slice(0, 200), message: message.slice(0, 2000), line: lineOf(e) } });
  }
  function failed(kind, message) {
    return stringify({ error: { kind, name: "", message, line: null } });
  }
  return function run(code, input) {
    try {
      // indirect eval: the tenant's code is a global script (its frames are "<input>:line")
      (0, eval)(code);
    } catch (e) {
      return describe(e instanceof SyntaxError ? "syntax" : "throw", e);
    }
    const handler = globalThis.handler;
    if (typeof handler !== "function") {
      return failed("syntax", "the code defines no function handler(webhook)");
    }
    let out;
    try {
      out = handler(parse(input));
    } catch (e) {
      return describe("throw", e);
    }
    if (out === null || typeof out !== "object" || isArray(out)) {
      return failed("invalid_output", "handler(webhook) returned " + (out === null ? "null" : isArray(out) ? "an array" : typeof out) + ", not the webhook object");
    }
    if (typeof out.then === "function") {
      return failed("invalid_output", "handler(webhook) returned a promise; it must return the webhook object");
    }
    let text;
    try {
      text = stringify({ ok: { payload: out.payload, method: out.method, url: out.url, cancel: out.cancel } });
    } catch (e) {
      return describe("invalid_output", e);
    }
    if (typeof text !== "string") {
      return failed("invalid_output", "the webhook object has no JSON form");
    }
    if (text.length > maxOutput) {
      return failed("output_too_large", "the output is " + text.length + " characters, over the cap of " + maxOutput);
    }
    return text;
  };
})
