"""``hookproof.challenge.v1``: the challenge body and the pure check of a response.

Nothing here does I/O. ``build_challenge`` returns the exact bytes that are signed and sent;
``check_response`` answers ``None`` (the response proves control of the response path for
this subscription, generation and endpoint) or a stable reason code.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import re
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from hookproof_subscriber.challenge import CHALLENGE_FIELDS, CHALLENGE_RESPONSE_TYPE, CHALLENGE_TYPE

__all__ = [
    "BOUND_FIELDS",
    "CHALLENGE_ID",
    "CHECK_ORDER",
    "REASON_CODES",
    "Challenge",
    "build_challenge",
    "check_response",
    "expiry_of",
]

#: a challenge's id as :func:`build_challenge` makes it (``chl_`` + 24 hex)
CHALLENGE_ID = re.compile(r"^chl_[0-9a-f]{24}$")

#: the wire names are the SDK's (``hookproof_subscriber.challenge``): one definition of the
#: contract for the side that asks and the side that answers
BOUND_FIELDS = CHALLENGE_FIELDS
RESPONSE_TYPE = CHALLENGE_RESPONSE_TYPE
#: the order in which the echoed values are compared (the first difference is the reason):
#: a whole answer for another subscription says so before it says anything else
CHECK_ORDER = (
    "subscriptionId",
    "challengeId",
    "generation",
    "endpointDigest",
    "nonce",
    "expiresAt",
    "keyId",
)
#: every reason code ``check_response`` can return
REASON_CODES = frozenset(
    {
        "expired",
        "no_response",
        "redirect",
        "bad_status",
        "bad_content_type",
        "malformed_response",
        "wrong_type",
        "field_missing",
        "response_replayed",
        "unexpected_field",
        "unexpected_proof",
        "missing_proof",
        "bad_proof",
        "subscription_mismatch",
        "challenge_id_mismatch",
        "generation_mismatch",
        "endpoint_digest_mismatch",
        "nonce_mismatch",
        "expiry_mismatch",
        "key_id_mismatch",
    }
)
#: bound field -> reason code when the response's value differs
MISMATCH_CODES = {
    "challengeId": "challenge_id_mismatch",
    "nonce": "nonce_mismatch",
    "subscriptionId": "subscription_mismatch",
    "generation": "generation_mismatch",
    "endpointDigest": "endpoint_digest_mismatch",
    "expiresAt": "expiry_mismatch",
    "keyId": "key_id_mismatch",
}


def _b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _b64url_decode(text: str) -> bytes:
    if not isinstance(text, str) or "=" in text:
        raise ValueError("not unpadded base64url")
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out = dict(pairs)
    if len(out) != len(pairs):
        raise ValueError("duplicate member")
    return out


@dataclass(frozen=True)
class Challenge:
    challenge_id: str
    nonce: str
    subscription_id: str
    generation: int
    endpoint_digest: str
    expires_at: str
    key_id: str
    body: bytes

    @property
    def nonce_sha256(self) -> str:
        return hashlib.sha256(self.nonce.encode()).hexdigest()

    def fields(self) -> dict[str, Any]:
        return {
            "challengeId": self.challenge_id,
            "nonce": self.nonce,
            "subscriptionId": self.subscription_id,
            "generation": self.generation,
            "endpointDigest": self.endpoint_digest,
            "expiresAt": self.expires_at,
            "keyId": self.key_id,
        }


def build_challenge(
    *,
    subscription_id: str,
    generation: int,
    endpoint_digest: str,
    key_id: str,
    now: datetime,
    ttl_s: float,
    challenge_id: str | None = None,
    nonce: str | None = None,
) -> Challenge:
    """A fresh challenge; its ``body`` is the exact JSON bytes to sign and send."""
    cid = challenge_id or "chl_" + secrets.token_hex(12)
    n = nonce or _b64url(secrets.token_bytes(32))
    expires = (now + timedelta(seconds=ttl_s)).replace(microsecond=0)
    expires_text = expires.strftime("%Y-%m-%dT%H:%M:%SZ")
    doc = {
        "type": CHALLENGE_TYPE,
        "challengeId": cid,
        "nonce": n,
        "subscriptionId": subscription_id,
        "generation": generation,
        "endpointDigest": endpoint_digest,
        "expiresAt": expires_text,
        "keyId": key_id,
    }
    body = json.dumps(doc, separators=(",", ":")).encode()
    return Challenge(
        cid, n, subscription_id, generation, endpoint_digest, expires_text, key_id, body
    )


def expiry_of(expires_at: str) -> datetime:
    """A challenge's ``expiresAt`` as the engine wrote it (its own clock, never client text)."""
    return datetime.fromisoformat(expires_at.replace("Z", "+00:00"))


def check_response(
    challenge: Challenge,
    *,
    status: int | None,
    content_type: str | None,
    body: bytes,
    now: datetime,
    hmac_secret: bytes | None = None,
    receipt_public_jwk: dict[str, Any] | None = None,
    consumed: frozenset[str] = frozenset(),
) -> str | None:
    """None when the response is the exact, timely, proven answer; else a reason code.

    ``consumed`` holds the ids of this subscription's earlier (consumed) challenges: a
    response echoing one of them is a replay (``response_replayed``), not a typo.
    """
    if now >= expiry_of(challenge.expires_at):
        return "expired"
    if status is None:
        return "no_response"
    if 300 <= status < 400:
        return "redirect"
    if status != 200:
        return "bad_status"
    if not content_type or content_type.split(";")[0].strip().lower() != "application/json":
        return "bad_content_type"
    try:
        # strict UTF-8 JSON, no duplicate members (parsers disagree on which one wins)
        doc = json.loads(body.decode("utf-8"), object_pairs_hook=_no_duplicates)
    except (ValueError, UnicodeDecodeError, RecursionError):
        return "malformed_response"
    if not isinstance(doc, dict):
        return "malformed_response"
    if doc.get("type") != RESPONSE_TYPE:
        return "wrong_type"
    expected = challenge.fields()
    if any(name not in doc for name in BOUND_FIELDS):
        return "field_missing"
    for name in CHECK_ORDER:
        value = doc[name]
        # exact echo: same JSON type and value (generation 3 is not "3" nor 3.0)
        if type(value) is not type(expected[name]) or value != expected[name]:
            if name == "challengeId" and isinstance(value, str) and value in consumed:
                return "response_replayed"  # an answer to an earlier, consumed challenge
            return MISMATCH_CODES[name]
    allowed = {"type", "proof", *BOUND_FIELDS}
    if set(doc) - allowed:
        return "unexpected_field"
    needs_proof = hmac_secret is not None or receipt_public_jwk is not None
    proof = doc.get("proof")
    if not needs_proof:
        return None if proof is None else "unexpected_proof"
    if not isinstance(proof, str) or not proof:
        return "missing_proof"
    try:
        raw = _b64url_decode(proof)
    except ValueError:
        return "bad_proof"
    if hmac_secret is not None:  # hmac-sha256 subscriptions: the MAC takes precedence
        mac = hmac.new(hmac_secret, challenge.body, hashlib.sha256).digest()
        return None if hmac.compare_digest(mac, raw) else "bad_proof"
    assert receipt_public_jwk is not None
    try:
        key = Ed25519PublicKey.from_public_bytes(_b64url_decode(receipt_public_jwk["x"]))
        key.verify(raw, challenge.body)
    except (InvalidSignature, ValueError, KeyError):
        return "bad_proof"
    return None
