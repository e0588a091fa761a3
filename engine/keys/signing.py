"""Sign one request under one or several (profile, key) signers. Pure: no I/O.

``hookproof.sig.v1`` signers go into ``Signature-Input`` / ``Signature`` (the first under label
``hookproof``, a second under ``hookproof-next``); ``standard-webhooks.v1`` signers share one
``webhook-signature`` header (``v1,`` / ``v1a,`` entries over ``{id}.{timestamp}.{body}``,
``webhook-id`` being the request's ``Webhook-Id``). Content-Digest, the other Webhook-*
headers and traceparent are always sent.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from hookproof_subscriber import (
    NEXT_LABEL,
    SIG_V1,
    STANDARD_WEBHOOKS_V1,
    SigningKey,
    content_digest,
    sign_request,
    sign_standard,
)

__all__ = ["DEFAULT_PROFILE", "PROFILES", "Signer", "sign_headers"]

DEFAULT_PROFILE = SIG_V1.name
PROFILES = (SIG_V1.name, STANDARD_WEBHOOKS_V1)


@dataclass(frozen=True, slots=True)
class Signer:
    """One signature to put on a request."""

    profile: str
    key: SigningKey


def sign_headers(
    method: str,
    url: str,
    headers: Mapping[str, str],
    body: bytes,
    signers: Sequence[Signer],
    *,
    created: int,
    lifetime: int,
) -> dict[str, str]:
    """The headers to add for *signers* (at least one; at most two per profile)."""
    if not signers:
        raise ValueError("at least one signer is needed")
    out: dict[str, str] = {}
    sig_inputs: list[str] = []
    sigs: list[str] = []
    standard: list[SigningKey] = []
    for signer in signers:
        if signer.profile == STANDARD_WEBHOOKS_V1:
            standard.append(signer.key)
            continue
        if signer.profile != SIG_V1.name:
            raise ValueError(f"unknown signature profile {signer.profile!r}")
        if len(sig_inputs) >= 2:
            raise ValueError("at most two hookproof.sig.v1 signatures")
        label = SIG_V1.label if not sig_inputs else NEXT_LABEL
        signed = sign_request(
            method,
            url,
            headers,
            body,
            key=signer.key,
            created=created,
            lifetime=lifetime,
            label=label,
        )
        out["Content-Digest"] = signed["Content-Digest"]  # the same body: no digest of our own
        sig_inputs.append(signed["Signature-Input"])
        sigs.append(signed["Signature"])
    if "Content-Digest" not in out:
        out["Content-Digest"] = content_digest(body)
    if sig_inputs:
        out["Signature-Input"] = ", ".join(sig_inputs)
        out["Signature"] = ", ".join(sigs)
    if standard:
        msg_id = next(v for k, v in headers.items() if k.lower() == "webhook-id")
        std = sign_standard(msg_id, body, standard, timestamp=created)
        out["webhook-timestamp"] = std["webhook-timestamp"]
        out["webhook-signature"] = std["webhook-signature"]
    return out
