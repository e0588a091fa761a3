/**
 * Verification reason codes: the same stable wire names as the Python SDK's
 * `hookproof_subscriber.Reason` (a test in the Python suite compares the two lists).
 */
export const REASONS = [
  "ok",
  "unknown_key",
  "revoked_key",
  "key_not_yet_valid",
  "expired",
  "not_yet_valid",
  "digest_mismatch",
  "component_missing",
  "bad_signature",
  "wrong_tag",
  "alg_mismatch",
  "malformed",
  "replayed_nonce",
  "keys_unavailable",
] as const;

/** One verification outcome code. */
export type Reason = (typeof REASONS)[number];
/** A refusal code (every reason but `ok`). */
export type RefusalCode = Exclude<Reason, "ok">;

/** Refusals a later attempt may not repeat (the keys could not be downloaded): redeliver, never drop. */
export const TRANSIENT_REASONS: readonly RefusalCode[] = ["keys_unavailable"];

/** A request that must not be accepted; `code` is one of `REASONS` (never `ok`). */
export class VerificationError extends Error {
  readonly code: RefusalCode;
  /** The key id the signature named, when one was read (safe to log). */
  readonly keyId: string | undefined;
  /** The profile whose verification produced this code. */
  readonly profile: string | undefined;

  constructor(code: RefusalCode, detail: string, keyId?: string, profile?: string) {
    super(detail ? `${code}: ${detail}` : code);
    this.name = "VerificationError";
    this.code = code;
    this.keyId = keyId;
    this.profile = profile;
  }

  /** Whether the message may verify later (`keys_unavailable`): leave it for redelivery. */
  get transient(): boolean {
    return TRANSIENT_REASONS.includes(this.code);
  }
}

/** Internal: a format problem carrying the reason code it maps to. */
export class FormatError extends Error {
  readonly reason: RefusalCode;
  constructor(reason: RefusalCode, detail: string) {
    super(detail);
    this.reason = reason;
  }
}
