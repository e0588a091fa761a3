"""The ``http-message-signatures`` (3.x) library as the RFC 9421 reference for our profiles.

The library computes signature bases, verifies signatures and checks Content-Digest for
every message that the canonical fast path in ``rfc9421`` does not take (several labels,
non-canonical-looking dictionaries), and is the oracle the property tests compare our fast
path with. The profile layer (``sigv1``) keeps what the library cannot express: reason
codes, the profile's parameter order on signing, time checks against an injected clock,
canonical-form refusal and the nonce cache; signing stays on the fast path for speed
(see ``bench/bench_signatures.py``, section ``library_reference``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import http_sf
from http_message_signatures import (
    ContentDigest,
    HTTPMessageSigner,
    HTTPMessageVerifier,
    HTTPSignatureKeyResolver,
    InvalidSignature,
    algorithms,
)
from http_message_signatures.exceptions import HTTPMessageSignaturesException

from .keys import ED25519, HMAC_SHA256, SigningKey, VerificationKey

__all__ = [
    "LibraryMessage",
    "library_signer",
    "library_verify",
    "library_verify_digest",
    "parse_sf_dictionary",
]

_ALGORITHMS: dict[str, type[algorithms.HTTPSignatureAlgorithm]] = {
    ED25519: algorithms.ED25519,
    HMAC_SHA256: algorithms.HMAC_SHA256,
}


@dataclass
class LibraryMessage:
    """The request shape the library reads: ``.method``, absolute ``.url``, ``.headers``."""

    method: str
    url: str
    headers: dict[str, str] = field(default_factory=dict)


class _OneKeyResolver(HTTPSignatureKeyResolver):
    """Resolves exactly the key the profile layer has already chosen (state, alg checked)."""

    def __init__(self, key_id: str, public: Any, private: Any = None) -> None:
        self._kid, self._public, self._private = key_id, public, private

    def resolve_public_key(self, key_id: str) -> Any:
        return self._public if key_id == self._kid else None

    def resolve_private_key(self, key_id: str) -> Any:
        if key_id != self._kid or self._private is None:
            raise KeyError(key_id)
        return self._private


class _ProfileClockVerifier(HTTPMessageVerifier):
    """The library verifier without its wall-clock window.

    The library checks ``created``/``expires`` against ``datetime.now()``; our profiles
    check them (with their own skew and reason codes) against the caller's ``now`` before
    this verifier runs, so the library's check would only refuse valid replays of the
    past in tests and audits.
    """

    def validate_created_and_expires(self, sig_input: Any, max_age: Any = None) -> None:
        return None


def _material(key: VerificationKey) -> Any:
    return key.public_key if key.alg == ED25519 else key.secret


def library_verify(
    method: str,
    url: str,
    headers: Any,
    *,
    label: str,
    tag: str | None,
    key: VerificationKey,
) -> bool:
    """True when the library verifies signature *label* (with *tag*, if given) under *key*.

    Any library refusal (bad base, unknown component, bad bytes) is False; never raises.
    """
    alg = _ALGORITHMS.get(key.alg)
    if alg is None:
        return False
    verifier = _ProfileClockVerifier(
        signature_algorithm=alg, key_resolver=_OneKeyResolver(key.key_id, _material(key))
    )
    if tag is None:
        verifier.allow_label_only_selection = True
    pairs = headers.items() if hasattr(headers, "items") else headers
    message = LibraryMessage(method, url, dict(_combine(pairs)))
    try:
        if tag is None:
            import warnings

            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                results = verifier.verify(message, max_age=None, expect_label=label)
        else:
            results = verifier.verify(message, max_age=None, expect_tag=tag, expect_label=label)
    except (InvalidSignature, HTTPMessageSignaturesException, ValueError, TypeError):
        return False
    return len(results) == 1 and results[0].label == label


def _combine(pairs: Any) -> dict[str, str]:
    out: dict[str, list[str]] = {}
    for name, value in pairs:
        out.setdefault(str(name).lower(), []).append(str(value))
    return {k: ", ".join(v) for k, v in out.items()}


def _reject_duplicate(key: str, context: str) -> None:
    if context == "dictionary":
        raise ValueError(f"duplicate member {key!r}")


def parse_sf_dictionary(raw: str) -> dict[str, tuple[Any, dict[str, Any]]]:
    """An RFC 8941 Dictionary parsed by ``http_sf`` as the library parses it (duplicate
    members refused); raises ValueError, UnicodeError or TypeError."""
    parsed: dict[str, tuple[Any, dict[str, Any]]] = http_sf.parse(
        raw.encode("ascii"), tltype="dictionary", on_duplicate_key=_reject_duplicate
    )
    return parsed


def library_verify_digest(value: str, body: bytes) -> bool:
    """RFC 9530: True when every member of Content-Digest *value* matches *body*."""
    try:
        ContentDigest.verify(value, bytes(body))
    except (InvalidSignature, HTTPMessageSignaturesException):
        return False
    return True


def library_signer(key: SigningKey) -> HTTPMessageSigner:
    """A library signer for *key* (reference only: it fixes its own parameter order)."""
    private = key.private_key if key.alg == ED25519 else key.secret
    public = key.verification_key()
    return HTTPMessageSigner(
        signature_algorithm=_ALGORITHMS[key.alg],
        key_resolver=_OneKeyResolver(key.key_id, _material(public), private),
    )
