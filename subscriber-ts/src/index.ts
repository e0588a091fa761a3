/**
 * hookproof subscriber SDK for Node.js: verify `hookproof.sig.v1` and `standard-webhooks.v1`
 * deliveries, answer challenges and sign application receipts (DESIGN.md section 11).
 */
export { REASONS, TRANSIENT_REASONS, VerificationError, type Reason, type RefusalCode } from "./reasons.js";
export { DEFAULT_MAX_AGE } from "./freshness.js";
export {
  verifyDelivery,
  verifyAny,
  presentProfiles,
  isChallenge,
  defaultNonceCache,
  PROFILES,
  CHALLENGE_TYPE,
  type WebhookRequest,
  type VerifyOptions,
  type VerifiedDelivery,
  type ProfileVerification,
} from "./verify.js";
export {
  answerChallenge,
  buildChallengeResponse,
  endpointDigest,
  CHALLENGE_FIELDS,
  CHALLENGE_RESPONSE_TYPE,
  type ChallengeOptions,
  type ChallengeAnswer,
} from "./challenge.js";
export { signReceipt, buildReceipt, ReceiptError, RECEIPT_TYPE, RECEIPT_RESULTS, type ReceiptInput, type SignReceiptOptions } from "./receipts.js";
export { JwksCache, JWKS_PATH, type JwksCacheOptions, type FetchLike } from "./jwks.js";
export { NonceCache } from "./nonce.js";
export {
  verifyBrokerMessage,
  verifyMessageAny,
  answerBrokerChallenge,
  sendChallengeResponse,
  challengeResponseUrl,
  signMessage,
  messageHeaders,
  amqpDestinationUri,
  natsDestinationUri,
  destinationDigest,
  encodeSegment,
  isChallengeMessage,
  MESSAGE_COMPONENTS,
  SIG_V1_MESSAGE,
  EVENT_ID_HEADER,
  DELIVERY_ID_HEADER,
  SUBSCRIPTION_HEADER,
  GENERATION_HEADER,
  ATTEMPT_HEADER,
  type BrokerMessage,
  type BrokerChallengeAnswer,
  type MessageHeaders,
  type VerifiedBrokerDelivery,
  type FreshnessOptions,
} from "./broker.js";
export { contentDigest, verifyContentDigest, parseContentDigest, DigestError } from "./digest.js";
export {
  ED25519,
  HMAC_SHA256,
  KEY_STATES,
  WHSEC_PREFIX,
  decodeSecret,
  encodeWhsec,
  jwkToSigningKey,
  jwkToVerificationKey,
  parseJwks,
  publicJwk,
  type Jwk,
  type Jwks,
  type KeyState,
  type SigningKey,
  type VerificationKey,
} from "./keys.js";
export {
  PROFILE_COMPONENTS,
  RECEIPT_COMPONENTS,
  SIG_V1,
  SIG_V1_NEXT,
  NEXT_LABEL,
  RECEIPT_V1,
  signRequest,
  verifyRequest,
  peekKeyId,
  type Profile,
  type VerifyResult,
  type KeyLookup,
} from "./sigv1.js";
export { STANDARD_WEBHOOKS_V1, TOLERANCE_S, signStandard, verifyStandard, signedContent } from "./stdwebhooks.js";
export { normalizeHeaders, type HeadersLike } from "./headers.js";
export { buildMessageBase, buildSignatureBase, parseSignature, parseTarget, rawVerify, serializeSignatureParams, signBytes, verifyBytes } from "./rfc9421.js";
