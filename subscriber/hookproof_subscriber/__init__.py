"""hookproof subscriber SDK: verify ``hookproof.sig.v1`` webhooks and prove application."""

from .digest import content_digest, parse_content_digest, verify_content_digest
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

__version__ = "0.1.0"

__all__ = [
    "PROFILE_COMPONENTS",
    "RECEIPT_COMPONENTS",
    "RECEIPT_V1",
    "SIG_V1",
    "KeyResolver",
    "KeyState",
    "NonceCache",
    "Profile",
    "Reason",
    "SharedSecretResolver",
    "SigningKey",
    "StaticKeyResolver",
    "VerificationKey",
    "VerifyResult",
    "averify_request",
    "content_digest",
    "jwk_to_verification_key",
    "parse_content_digest",
    "peek_key_id",
    "public_jwk",
    "raw_verify",
    "sign_request",
    "verify_content_digest",
    "verify_request",
]
