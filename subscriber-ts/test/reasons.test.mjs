import assert from "node:assert/strict";
import { test } from "node:test";

import { REASONS, VerificationError } from "../dist/index.js";
import { fixture } from "./helpers.mjs";

test("the reason codes are the Python SDK's, same spelling, same order", () => {
  assert.deepEqual([...REASONS], fixture("reasons.json"));
});

test("VerificationError carries a code, the key id and the profile", () => {
  const err = new VerificationError("digest_mismatch", "body does not match", "ek_1", "hookproof.sig.v1");
  assert.ok(err instanceof Error);
  assert.equal(err.code, "digest_mismatch");
  assert.equal(err.keyId, "ek_1");
  assert.equal(err.name, "VerificationError");
});
