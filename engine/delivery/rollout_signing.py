"""What each send of a claim is signed with under the live rollouts (the claim's one read of
them, inside its transaction): the admission records it, the sender never re-decides it."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import datetime
from typing import TYPE_CHECKING, Any

import structlog

from hookproof.errors import HookproofError
from hookproof_subscriber import SigningKey

from ..keys.signing import Signer
from ..rollouts.dispatch import admission_fields, resolve_signers
from ..rollouts.machine import plan_signing
from .claim import ClaimPlan, KeyScope, key_scope

if TYPE_CHECKING:
    from ..rollouts.service import RolloutService

__all__ = ["rollout_signing"]

log = structlog.get_logger("hookproof.dispatcher")


async def rollout_signing(
    rollouts: RolloutService | None,
    conn: Any,
    plan: ClaimPlan,
    keys: dict[KeyScope, tuple[SigningKey, int]],
    now: datetime,
    *,
    key_by_id: Callable[[str], Awaitable[SigningKey]] | None,
) -> dict[str, tuple[dict[str, Any], list[Signer], Signer | None]]:
    """What each send is signed with under the live rollouts, read FOR SHARE in the
    claiming transaction (a stage change waits for it). A send whose rollout key cannot
    sign is left for a later claim."""
    if rollouts is None or not plan.send:
        return {}

    async def _by_id(key_id: str) -> SigningKey:
        if key_by_id is None:
            raise HookproofError("no key lookup for rollout targets", code="no_rollout_keys")
        return await key_by_id(key_id)

    views = await rollouts.live(conn)
    out: dict[str, tuple[dict[str, Any], list[Signer], Signer | None]] = {}
    kept = []
    for send in plan.send:
        row = send.row
        found = keys.get(key_scope(row))
        if found is None:
            kept.append(send)
            continue
        sp = plan_signing(
            views, row.subscription_id, row.signature_profile, row.signature_algorithm, now
        )
        try:
            signers, shadow = await resolve_signers(sp, found[0], _by_id)
        except HookproofError as exc:  # the target key cannot sign (revoked meanwhile)
            log.warning("admission_no_rollout_key", delivery_id=row.delivery_id, code=exc.code)
            plan.left.append(row)
            continue
        kept.append(send)
        out[row.delivery_id] = (
            admission_fields(sp, signers, row.subscription_id),
            signers,
            shadow,
        )
    plan.send = kept
    return out
