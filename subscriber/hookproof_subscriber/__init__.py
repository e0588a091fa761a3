"""hookproof subscriber SDK: verify ``hookproof.sig.v1`` and ``standard-webhooks.v1`` webhooks,
answer challenges and prove application."""

from .applier import (
    Event,
    EventApplier,
    InMemoryStore,
    Outcome,
    RejectEvent,
    SqliteStore,
)
from .challenge import ChallengeResponder, build_challenge_response, endpoint_digest
from .digest import content_digest, parse_content_digest, verify_content_digest
from .handler import Subscriber, aiohttp_handler
from .jwks import JwksKeyResolver
from .keys import (
    KeyResolver,
    KeyState,
    SharedSecretResolver,
    SigningKey,
    StaticKeyResolver,
    VerificationKey,
    jwk_to_verification_key,
    public_jwk,
)
from .profiles import (
    NEXT_LABEL,
    PROFILES,
    SIG_V1_NEXT,
    ProfileVerification,
    averify_any,
    present_profiles,
)
from .receipts import Receipt, build_receipt, parse_receipt, send_receipt, sign_receipt
from .rfc9421 import raw_verify
from .sigv1 import (
    PROFILE_COMPONENTS,
    RECEIPT_COMPONENTS,
    RECEIPT_V1,
    SIG_V1,
    NonceCache,
    Profile,
    Reason,
    VerifyResult,
    averify_request,
    peek_key_id,
    sign_request,
    verify_request,
)
from .stdwebhooks import (
    STANDARD_WEBHOOKS_V1,
    WHSEC_PREFIX,
    decode_whsec,
    encode_whsec,
    sign_standard,
    verify_standard,
)

__version__ = "0.1.0"

__all__ = [
    "NEXT_LABEL",
    "PROFILES",
    "PROFILE_COMPONENTS",
    "RECEIPT_COMPONENTS",
    "RECEIPT_V1",
    "SIG_V1",
    "SIG_V1_NEXT",
    "STANDARD_WEBHOOKS_V1",
    "WHSEC_PREFIX",
    "ChallengeResponder",
    "Event",
    "EventApplier",
    "InMemoryStore",
    "JwksKeyResolver",
    "KeyResolver",
    "KeyState",
    "NonceCache",
    "Outcome",
    "Profile",
    "ProfileVerification",
    "Reason",
    "Receipt",
    "RejectEvent",
    "SharedSecretResolver",
    "SigningKey",
    "SqliteStore",
    "StaticKeyResolver",
    "Subscriber",
    "VerificationKey",
    "VerifyResult",
    "aiohttp_handler",
    "averify_any",
    "averify_request",
    "build_challenge_response",
    "build_receipt",
    "content_digest",
    "decode_whsec",
    "encode_whsec",
    "endpoint_digest",
    "jwk_to_verification_key",
    "parse_content_digest",
    "parse_receipt",
    "peek_key_id",
    "present_profiles",
    "public_jwk",
    "raw_verify",
    "send_receipt",
    "sign_receipt",
    "sign_request",
    "sign_standard",
    "verify_content_digest",
    "verify_request",
    "verify_standard",
]
