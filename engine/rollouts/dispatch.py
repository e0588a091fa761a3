"""What the dispatcher asks of rollouts: the signing plan at admission, the keys it needs, the
fields the admission records, and the shadow check beside the live path.

The admission records the rollout id, its stream version and stage, the signing mode and each
signature to make; the sender signs exactly that (a worker delayed across a stage change signs
by the stage it was admitted under, never by a later or ended one). The rollout rows are read
FOR SHARE in the claiming transaction: a stage change waits for the admissions decided under
the stage it ends, and later claims see it.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import structlog

from hookproof_subscriber import SigningKey, StaticKeyResolver, averify_any

from ..keys.signing import Signer, sign_headers
from .machine import CURRENT, RolloutView, SignerRef, SigningPlan, plan_signing

__all__ = ["ShadowCounter", "admission_fields", "resolve_signers", "shadow_check"]

log = structlog.get_logger("hookproof.rollouts")
KeyById = Callable[[str], Awaitable[SigningKey]]


def admission_fields(
    plan: SigningPlan, signers: Sequence[Signer], subscription_id: str
) -> dict[str, Any]:
    """The AttemptAdmitted fields a rollout adds (none when no rollout applies)."""
    if plan.rollout_id is None:
        return {}
    return {
        "subscription_id": subscription_id,
        "rollout_id": plan.rollout_id,
        "rollout_version": plan.rollout_version,
        "rollout_stage": plan.stage,
        "signing_mode": plan.mode,
        "signed_with": [f"{s.profile}:{s.key.key_id}" for s in signers],
    }


async def _key(ref: SignerRef, current: SigningKey, by_id: KeyById) -> SigningKey:
    return current if ref.key == CURRENT else await by_id(ref.key)


async def resolve_signers(
    plan: SigningPlan, current: SigningKey, by_id: KeyById
) -> tuple[list[Signer], Signer | None]:
    """Keys for the plan's signers (duplicates dropped) and for its shadow signature."""
    signers: list[Signer] = []
    for ref in plan.signers:
        s = Signer(ref.profile, await _key(ref, current, by_id))
        if all((x.profile, x.key.key_id) != (s.profile, s.key.key_id) for x in signers):
            signers.append(s)
    shadow = None
    if plan.shadow is not None:
        shadow = Signer(plan.shadow.profile, await _key(plan.shadow, current, by_id))
    return signers, shadow


async def shadow_check(
    url: str,
    headers: dict[str, str],
    body: bytes,
    shadow: Signer,
    *,
    created: int,
    lifetime: int,
) -> tuple[bool, str]:
    """Sign with the target beside the live request and verify it with the SDK verifier.
    Nothing of it goes on the wire."""
    try:
        extra = sign_headers(
            "POST", url, headers, body, [shadow], created=created, lifetime=lifetime
        )
        probe = {**headers, **extra}
        res = await averify_any(
            "POST",
            url,
            probe,
            body,
            keys=StaticKeyResolver([shadow.key.verification_key()]),
            accept=(shadow.profile,),
            now=created,
        )
        return res.ok and shadow.profile in res.verified, str(res.reason)
    except Exception as exc:  # counted as a mismatch, never a failed delivery
        return False, f"error:{type(exc).__name__}"


@dataclass
class ShadowCounter:
    """Shadow checks counted per rollout until flushed into the rollout's stream."""

    counts: dict[str, tuple[int, int, dict[str, int]]] = field(default_factory=dict)

    def add(self, rollout_id: str, ok: bool, reason: str) -> None:
        checked, bad, reasons = self.counts.get(rollout_id, (0, 0, {}))
        if not ok:
            reasons[reason] = reasons.get(reason, 0) + 1
        self.counts[rollout_id] = (checked + 1, bad + (0 if ok else 1), reasons)

    async def flush(
        self, record: Callable[[str, int, int, dict[str, int]], Awaitable[None]]
    ) -> None:
        pending, self.counts = self.counts, {}
        for rid, (checked, bad, reasons) in pending.items():
            try:
                await record(rid, checked, bad, reasons)
            except Exception as exc:
                log.warning("rollout_shadow_flush_failed", rollout_id=rid, error=type(exc).__name__)


def plan_for(
    views: list[RolloutView], subscription_id: str, profile: str, algorithm: str, now: Any
) -> SigningPlan:
    return plan_signing(views, subscription_id, profile, algorithm, now)
