"""Answering ``hookproof.challenge.v1`` with ``hookproof.challenge-response.v1``.

The challenge request is verified under ``hookproof.sig.v1`` first (the caller does that, or
``ChallengeResponder.answer`` does). The response echoes the seven bound fields exactly and
carries ``proof``: base64url(HMAC-SHA256(secret, exact challenge body bytes)) when the
challenge was signed with the subscription's shared secret (``alg="hmac-sha256"``), else
base64url(Ed25519 signature under the receipt key over the exact body bytes) when a receipt
key is configured, else no proof. base64url is without padding.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from .keys import HMAC_SHA256, KeyResolver, SigningKey, b64url_encode
from .profiles import PROFILES, ProfileVerification, averify_any
from .sigv1 import AsyncKeyResolver, NonceCache, Reason, VerifyResult
from .stdwebhooks import STANDARD_WEBHOOKS_V1

__all__ = [
    "CHALLENGE_FIELDS",
    "CHALLENGE_RESPONSE_TYPE",
    "CHALLENGE_TYPE",
    "ChallengeError",
    "ChallengeResponder",
    "build_challenge_response",
    "challenge_proof",
    "endpoint_digest",
    "parse_challenge",
]

CHALLENGE_TYPE = "hookproof.challenge.v1"
CHALLENGE_RESPONSE_TYPE = "hookproof.challenge-response.v1"
CHALLENGE_FIELDS = (
    "challengeId",
    "nonce",
    "subscriptionId",
    "generation",
    "endpointDigest",
    "expiresAt",
    "keyId",
)
_HEX64 = re.compile(r"[0-9a-f]{64}")
JSON_HEADERS = {"Content-Type": "application/json"}


class ChallengeError(ValueError):
    """A challenge that must not be answered; ``reason`` is a short stable code."""

    def __init__(self, reason: str, detail: str = "") -> None:
        super().__init__(detail or reason)
        self.reason = reason


def endpoint_digest(normalised_endpoint: str) -> str:
    """Lowercase hex SHA-256 of the normalised endpoint (UTF-8)."""
    return hashlib.sha256(normalised_endpoint.encode("utf-8")).hexdigest()


def _parse_rfc3339(value: str) -> float:
    text = value[:-1] + "+00:00" if value.endswith(("Z", "z")) else value
    dt = datetime.fromisoformat(text)
    if dt.tzinfo is None:
        raise ValueError("timestamp without offset")
    return dt.timestamp()


def parse_challenge(body: bytes) -> dict[str, Any]:
    """Parse and type-check a challenge body; raise ChallengeError."""
    try:
        doc = json.loads(body)
    except (ValueError, UnicodeError) as exc:
        raise ChallengeError("malformed", "challenge body is not JSON") from exc
    if not isinstance(doc, dict) or doc.get("type") != CHALLENGE_TYPE:
        raise ChallengeError("malformed", "not a hookproof.challenge.v1 body")
    for name in CHALLENGE_FIELDS:
        if name not in doc:
            raise ChallengeError("malformed", f"challenge lacks {name}")
    for name in ("challengeId", "nonce", "subscriptionId", "endpointDigest", "expiresAt", "keyId"):
        if not isinstance(doc[name], str) or not doc[name]:
            raise ChallengeError("malformed", f"{name} must be a non-empty string")
    if type(doc["generation"]) is not int or doc["generation"] < 0:
        raise ChallengeError("malformed", "generation must be a non-negative integer")
    if not _HEX64.fullmatch(doc["endpointDigest"]):
        raise ChallengeError("malformed", "endpointDigest must be lowercase hex SHA-256")
    try:
        _parse_rfc3339(doc["expiresAt"])
    except ValueError as exc:
        raise ChallengeError("malformed", "expiresAt is not RFC 3339") from exc
    return doc


def challenge_proof(
    body: bytes, *, secret: bytes | None = None, receipt_key: SigningKey | None = None
) -> str | None:
    """The ``proof`` value over the exact challenge body bytes (None when no proof applies)."""
    if secret is not None:
        return b64url_encode(hmac.new(secret, body, hashlib.sha256).digest())
    if receipt_key is not None:
        if receipt_key.private_key is None:
            raise ValueError("receipt key must be an Ed25519 signing key")
        return b64url_encode(receipt_key.private_key.sign(body))
    return None


def build_challenge_response(
    body: bytes, *, secret: bytes | None = None, receipt_key: SigningKey | None = None
) -> bytes:
    """The response body: type, the seven echoed fields (same values), and ``proof``."""
    doc = parse_challenge(body)
    out: dict[str, Any] = {"type": CHALLENGE_RESPONSE_TYPE}
    for name in CHALLENGE_FIELDS:
        out[name] = doc[name]
    proof = challenge_proof(body, secret=secret, receipt_key=receipt_key)
    if proof is not None:
        out["proof"] = proof
    return json.dumps(out, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


@dataclass(frozen=True, slots=True)
class ChallengeAnswer:
    """What to send back: HTTP status, headers, body; ``reason`` says why."""

    status: int
    headers: Mapping[str, str]
    body: bytes
    reason: str


def _refuse(status: int, reason: str) -> ChallengeAnswer:
    body = json.dumps(
        {"type": "about:blank", "title": "challenge refused", "status": status, "code": reason}
    ).encode()
    return ChallengeAnswer(status, {"Content-Type": "application/problem+json"}, body, reason)


class _EndpointVerifier:
    """Verifies a request as received at one endpoint: its keys, accepted profiles, public
    URL (the signed ``@target-uri``; the URL the framework reports when None), nonce cache
    and clock, as set on the instance."""

    keys: KeyResolver | AsyncKeyResolver
    accept: tuple[str, ...]
    endpoint: str | None
    nonce_cache: NonceCache
    clock: Callable[[], float]

    async def verify(
        self,
        method: str,
        url: str,
        headers: Any,
        body: bytes,
        *,
        accept_not_before: bool,
        expected: Mapping[str, str] | None = None,
    ) -> ProfileVerification:
        """Every accepted signature of the request, verified now (never raises)."""
        return await averify_any(
            method,
            self.endpoint or url,
            headers,
            body,
            keys=self.keys,
            accept=self.accept,
            now=int(self.clock()),
            nonce_cache=self.nonce_cache,
            accept_not_before=accept_not_before,
            expected=expected,
        )


class ChallengeResponder(_EndpointVerifier):
    """Verify a challenge request and answer it.

    *endpoint* is the normalised endpoint this subscriber registered (its digest must match);
    *subscription_id* (optional) pins the subscription. The HMAC proof uses the secret that
    verified the challenge's signature (so it proves the next secret during rotation).
    """

    def __init__(
        self,
        *,
        keys: KeyResolver | AsyncKeyResolver,
        endpoint: str | None = None,
        subscription_id: str | None = None,
        receipt_key: SigningKey | None = None,
        nonce_cache: NonceCache | None = None,
        clock: Callable[[], float] = time.time,
        accept: tuple[str, ...] = PROFILES,
    ) -> None:
        self.keys = keys
        self.accept = accept
        self.endpoint = endpoint
        self.subscription_id = subscription_id
        self.receipt_key = receipt_key
        self.nonce_cache = nonce_cache if nonce_cache is not None else NonceCache()
        self.clock = clock
        self._answered: dict[str, float] = {}

    async def answer(self, method: str, url: str, headers: Any, body: bytes) -> ChallengeAnswer:
        """Verify the signed challenge request and build the answer (never raises)."""
        res = await self.verify(method, url, headers, body, accept_not_before=True)
        return self.answer_verified(res, headers, body)

    def answer_verified(
        self, res: VerifyResult | ProfileVerification, headers: Any, body: bytes
    ) -> ChallengeAnswer:
        """Answer a challenge whose request verification result is *res*.

        Under ``standard-webhooks.v1`` alone (no key id on the wire) the body's ``keyId`` is
        not compared with the verifying key's local name: the signature itself proves the key.
        """
        named_key = True
        if isinstance(res, ProfileVerification):
            named_key = res.verified != (STANDARD_WEBHOOKS_V1,)
            if res.result is None:
                return _refuse(401, str(res.reason))
            res = res.result
        if not res.ok:
            return _refuse(401, str(res.reason))
        try:
            doc = parse_challenge(body)
            hdrs = {str(k).lower(): str(v).strip() for k, v in dict(headers).items()}
            if (
                hdrs.get("webhook-id") != doc["challengeId"]
                or hdrs.get("webhook-delivery-id") != doc["challengeId"]
            ):
                raise ChallengeError("mismatch", "Webhook-Id/Delivery-Id is not the challenge id")
            if hdrs.get("webhook-subscription") != doc["subscriptionId"]:
                raise ChallengeError("mismatch", "signed subscription differs from the body")
            if hdrs.get("webhook-generation") != str(doc["generation"]):
                raise ChallengeError("mismatch", "signed generation differs from the body")
            if named_key and doc["keyId"] != res.key_id:
                raise ChallengeError("mismatch", "keyId is not the signing key")
            if self.subscription_id is not None and doc["subscriptionId"] != self.subscription_id:
                raise ChallengeError("wrong_subscription", "not our subscription")
            if self.endpoint is not None and doc["endpointDigest"] != endpoint_digest(
                self.endpoint
            ):
                raise ChallengeError("wrong_endpoint", "endpointDigest is not our endpoint's")
            now = self.clock()
            if _parse_rfc3339(doc["expiresAt"]) < now:
                raise ChallengeError("expired", "challenge expired")
            self._answered = {k: v for k, v in self._answered.items() if v >= now}
            if doc["challengeId"] in self._answered:
                raise ChallengeError("replayed", "challenge already answered")
            secret = res.key.secret if (res.alg == HMAC_SHA256 and res.key is not None) else None
            out = build_challenge_response(
                body, secret=secret, receipt_key=None if secret else self.receipt_key
            )
            self._answered[doc["challengeId"]] = _parse_rfc3339(doc["expiresAt"])
        except ChallengeError as exc:
            return _refuse(400 if exc.reason == "malformed" else 403, exc.reason)
        except Exception:
            return _refuse(400, "malformed")
        return ChallengeAnswer(200, dict(JSON_HEADERS), out, str(Reason.OK))
