"""Verify a request under whichever signature profiles it carries, and say which verified.

During a rollout of a signing change a request may carry two signatures: ``hookproof.sig.v1``
(``Signature`` label ``hookproof``, and label ``hookproof-next`` for a second engine key) and
``standard-webhooks.v1`` (``webhook-signature``). Each is verified on its own; the request is
accepted when at least one profile the receiver accepts verifies.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from .keys import KeyResolver
from .rfc9421 import normalize_headers
from .sigv1 import (
    SIG_V1,
    AsyncKeyResolver,
    NonceCache,
    Profile,
    Reason,
    VerifyResult,
    averify_request,
    mark_unavailable,
)
from .stdwebhooks import STANDARD_WEBHOOKS_V1, candidate_keys, verify_standard

__all__ = [
    "NEXT_LABEL",
    "PROFILES",
    "SIG_V1_NEXT",
    "ProfileVerification",
    "averify_any",
    "present_profiles",
]

NEXT_LABEL = "hookproof-next"
#: ``hookproof.sig.v1`` under the second label a key rollout uses for the target key.
SIG_V1_NEXT: Profile = dataclasses.replace(SIG_V1, label=NEXT_LABEL)
PROFILES = (SIG_V1.name, STANDARD_WEBHOOKS_V1)


@dataclass(frozen=True, slots=True)
class ProfileVerification:
    """Per-profile results; ``verified`` names the profiles that verified (in order)."""

    ok: bool
    reason: Reason
    verified: tuple[str, ...]
    results: Mapping[str, VerifyResult] = field(default_factory=dict)
    result: VerifyResult | None = None

    @property
    def key_ids(self) -> tuple[str, ...]:
        return tuple(r.key_id for r in self.results.values() if r.ok and r.key_id)

    def log_fields(self) -> dict[str, Any]:
        fields = self.result.log_fields() if self.result else {"reason": str(self.reason)}
        fields["verified"] = list(self.verified)
        return fields


def present_profiles(headers: Any) -> list[str]:
    """Which signatures a request carries: ``hookproof.sig.v1``, its ``hookproof-next``
    label, ``standard-webhooks.v1`` (by header presence; nothing verified)."""
    try:
        hdrs = normalize_headers(headers)
    except Exception:
        return []
    out = []
    sig_input = hdrs.get("signature-input", "")
    if f"{SIG_V1.label}=" in sig_input:
        out.append(SIG_V1.name)
    if f"{NEXT_LABEL}=" in sig_input:
        out.append(f"{SIG_V1.name}#{NEXT_LABEL}")
    if "webhook-signature" in hdrs:
        out.append(STANDARD_WEBHOOKS_V1)
    return out


_REFRESH_ON = (Reason.UNKNOWN_KEY, Reason.BAD_SIGNATURE, Reason.KEY_NOT_YET_VALID)


def _may_refresh(keys: Any) -> bool:
    """A fetching resolver (JWKS) whose rate limit allows one more fetch."""
    check = getattr(keys, "_may_refresh", None)
    return callable(check) and hasattr(keys, "refresh") and bool(check())


async def _standard_keys(keys: Any) -> list[Any]:
    found = candidate_keys(keys)
    refresh = getattr(keys, "refresh", None)
    if not found and refresh is not None:  # e.g. a JWKS not fetched yet
        try:
            await refresh()
        except Exception:
            return []
        found = candidate_keys(keys)
    return found


async def averify_any(
    method: str,
    url: str,
    headers: Any,
    body: bytes,
    *,
    keys: KeyResolver | AsyncKeyResolver,
    accept: Iterable[str] = PROFILES,
    now: int | None = None,
    nonce_cache: NonceCache | None = None,
    accept_not_before: bool = False,
    expected: Mapping[str, str] | None = None,
) -> ProfileVerification:
    """Verify every accepted signature the request carries. Never raises.

    ``ok`` when at least one verifies; ``result`` is the first that verified (else the first
    failure: its reason is the answer). ``expected`` pins covered ``hookproof.sig.v1``
    fields; ``standard-webhooks.v1`` covers only id, timestamp and body.
    """
    wanted = set(accept)
    results: dict[str, VerifyResult] = {}
    present = present_profiles(headers)
    for name in present:
        base = name.split("#", 1)[0]
        if base not in wanted:
            continue
        if base == STANDARD_WEBHOOKS_V1:
            res = verify_standard(
                headers,
                body,
                keys=await _standard_keys(keys),
                now=now,
                nonce_cache=nonce_cache,
                accept_not_before=accept_not_before,
            )
            if not res.ok and res.reason in _REFRESH_ON and _may_refresh(keys):
                await keys.refresh()  # type: ignore[union-attr]
                res = verify_standard(
                    headers,
                    body,
                    keys=candidate_keys(keys),
                    now=now,
                    nonce_cache=nonce_cache,
                    accept_not_before=accept_not_before,
                )
            res = mark_unavailable(res, keys)
        else:
            profile = SIG_V1_NEXT if name.endswith(NEXT_LABEL) else SIG_V1
            res = await averify_request(
                method,
                url,
                headers,
                body,
                keys=keys,
                now=now,
                nonce_cache=nonce_cache,
                profile=profile,
                accept_not_before=accept_not_before,
                expected=expected,
            )
        results[name] = res
    if not results:
        none = VerifyResult(ok=False, reason=Reason.MALFORMED, detail="no accepted signature")
        return ProfileVerification(False, Reason.MALFORMED, (), {}, none)
    verified = tuple(dict.fromkeys(n.split("#", 1)[0] for n, r in results.items() if r.ok))
    first_ok = next((r for r in results.values() if r.ok), None)
    chosen = first_ok or next(iter(results.values()))
    return ProfileVerification(chosen.ok, chosen.reason, verified, results, chosen)
