"""Key rotation and compromise across the key ring and the subscriptions.

Rotation: publish the next key as NOT_BEFORE, move each subscription to ROTATING and
challenge it with the next key, switch signing once proved, keep the old key VERIFY_ONLY for
``max queue delay + max retry window + clock skew``, suspend what did not prove the next key.
Compromise: revoke at once, suspend every subscription that has not proved a newer key; no
delivery or retry is ever signed with the revoked key again (signing always asks the ring).
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

import structlog

from hookproof.events.key_events import PURPOSE_ENGINE, PURPOSE_SUBSCRIPTION
from hookproof.projections.subscriptions import SubscriptionState

from ..subscriptions.machine import ELIGIBLE, TERMINAL
from .repository import RotationRepository

if TYPE_CHECKING:
    from ..challenge import Challenger
    from ..keys import KeyRing
    from ..rollouts.service import RolloutService
    from ..subscriptions import SubscriptionService

__all__ = ["Rotation"]

log = structlog.get_logger("hookproof.rotation")


class Rotation:
    """Rotation and compromise over the ports they need (built by the composition root)."""

    def __init__(
        self,
        ring: KeyRing,
        challenger: Challenger,
        subscriptions: SubscriptionService,
        repository: RotationRepository,
        *,
        rollouts: RolloutService | None = None,
    ) -> None:
        self.ring = ring
        self.challenger = challenger
        self.subs = subscriptions
        self.repository = repository
        self.rollouts = rollouts

    async def _all(self) -> list[SubscriptionState]:
        out = []
        for sid in await self.repository.subscription_ids():
            s = await self.subs.load(sid)
            if s is not None and s.state not in TERMINAL:
                out.append(s)
        return out

    async def rotate_engine_key(
        self, *, actor: str, tries: int = 3, pause_s: float = 1.0
    ) -> dict[str, Any]:
        """The whole rotation round for the engine's ed25519 key. A subscription gets
        ``tries`` challenges (``pause_s`` apart: subscribers refresh their JWKS at a bounded
        rate) before it counts as not having proved the next key."""
        old = await self.ring.active(PURPOSE_ENGINE)
        nxt = await self.ring.rotate(actor=actor)
        key = await self.ring.challenge_key(nxt.key_id)
        proved: list[str] = []
        failed: dict[str, str] = {}
        for s in await self._all():
            if s.config.signature_algorithm != "ed25519" or s.state not in ELIGIBLE:
                continue
            if s.state == "ACTIVE":
                await self.subs.transition(
                    None,
                    s.subscription_id,
                    "start_rotation",
                    actor=actor,
                    reason=f"rotating to {nxt.key_id}",
                )
            failed[s.subscription_id] = "not_challenged"
        awaiting: set[str] = set()  # broker subscriptions: their consumer answers later
        for attempt in range(tries + 1):
            for sid in sorted(failed):
                if sid in awaiting:  # answered meanwhile? (a new challenge would void it)
                    state = await self.subs.load(sid)
                    if state is not None and state.proven_key_id == key.key_id:
                        proved.append(sid)
                        del failed[sid]
                    continue
                if attempt == tries:
                    continue
                outcome = await self.challenger.run(sid, actor=actor, key=key)
                if outcome["passed"]:
                    proved.append(sid)
                    del failed[sid]
                else:
                    failed[sid] = str(outcome.get("reason") or "awaiting_response")
                    if outcome.get("awaitingResponse"):
                        awaiting.add(sid)
            if not failed or attempt >= tries - (0 if awaiting else 1):
                break
            await asyncio.sleep(pause_s)
        promoted = await self.ring.promote(nxt.key_id, actor=actor)
        for sid, reason in failed.items():
            state = await self.subs.load(sid)
            if state is not None and state.state == "ROTATING":
                await self.subs.transition(
                    None, sid, "suspend", actor=actor, reason=f"rotation_not_proven:{reason}"
                )
        log.info(
            "engine_key_rotated",
            key_id=nxt.key_id,
            previous=old.key_id if old else None,
            proved=len(proved),
            suspended=len(failed),
        )
        return {
            "keyId": promoted.key_id,
            "keyGeneration": promoted.generation,
            "previousKeyId": old.key_id if old else None,
            "proved": proved,
            "suspended": sorted(failed),
            "reasons": failed,
        }

    async def rotate_secret(
        self, tenant_id: str, subscription_id: str, *, actor: str
    ) -> dict[str, Any]:
        """Issue the next shared secret (shown once) and put the subscription in ROTATING.
        The subscriber installs it, then ``challenge`` proves it and promotes it."""
        state = await self.subs.get(tenant_id, subscription_id)
        if state.config.signature_algorithm != "hmac-sha256":
            from hookproof.errors import ConflictError

            raise ConflictError("subscription does not use a shared secret", code="not_hmac")
        # One pending secret per subscription: a second rotate replaces the pending one, and
        # the replaced secret is withdrawn and its material destroyed (it was never proved).
        async with self.repository.secret_rotation(subscription_id):
            replaced = await self.pending_secrets(subscription_id)
            issued = await self.ring.rotate_subscription_secret(subscription_id, actor=actor)
            for old in replaced:
                await self.ring.abandon(old.key_id, actor=actor)
                await self.ring.destroy(old.key_id, actor=actor)
                log.info(
                    "secret_rotation_replaced",
                    subscription_id=subscription_id,
                    replaced_key_id=old.key_id,
                    key_id=issued.key_id,
                )
        if state.state == "ACTIVE":
            await self.subs.transition(
                None,
                subscription_id,
                "start_rotation",
                actor=actor,
                reason=f"secret rotation to {issued.key_id}",
            )
        out: dict[str, Any] = {"keyId": issued.key_id, "secret": issued.secret}
        if replaced:
            out["replacedKeyIds"] = [old.key_id for old in replaced]
        return out

    async def pending_secrets(self, subscription_id: str) -> list[Any]:
        """The subscription's NOT_BEFORE secrets, oldest first (at most one once rotated)."""
        views = await self.ring.keys(purpose=PURPOSE_SUBSCRIPTION, subscription_id=subscription_id)
        pending = [v for v in views if str(v.state) in ("NOT_BEFORE", "KeyState.NOT_BEFORE")]
        return sorted(pending, key=lambda v: v.generation)

    async def pending_secret(self, subscription_id: str) -> Any:
        """The secret a rotation challenge proves: the newest pending one."""
        pending = await self.pending_secrets(subscription_id)
        return pending[-1] if pending else None

    async def challenge_subscription(self, state: SubscriptionState, actor: str) -> dict[str, Any]:
        """:meth:`challenge` for the API's ``POST .../challenge`` (its ``on_challenge``)."""
        return await self.challenge(state.subscription_id, actor=actor)

    async def challenge(self, subscription_id: str, *, actor: str) -> dict[str, Any]:
        """A challenge; during a secret rotation it is signed with (and proves) the next secret."""
        state = await self.subs.load(subscription_id)
        key = None
        pending = None
        if (
            state is not None
            and state.state == "ROTATING"
            and state.config.signature_algorithm == "hmac-sha256"
        ):
            pending = await self.pending_secret(subscription_id)
            if pending is not None:
                key = await self.ring.challenge_key(pending.key_id)
        outcome = dict(await self.challenger.run(subscription_id, actor=actor, key=key))
        if outcome["passed"] and pending is not None:
            await self.ring.promote(pending.key_id, actor=actor)
            outcome["promotedKeyId"] = pending.key_id
        return outcome

    async def compromise(self, key_id: str, *, actor: str) -> dict[str, Any]:
        report = await self.ring.compromise(key_id, actor=actor)
        newer = set(report.newer_keys)
        suspended = []
        for s in await self._all():
            if report.purpose == PURPOSE_ENGINE:
                affected = s.config.signature_algorithm == "ed25519"
            else:
                affected = s.subscription_id == report.subscription_id
            if not affected or s.state == "SUSPENDED":
                continue
            if s.proven_key_id in newer:
                continue
            await self.subs.transition(
                None, s.subscription_id, "suspend", actor=actor, reason=f"key_compromised:{key_id}"
            )
            suspended.append(s.subscription_id)
        rollouts = self.rollouts
        paused = await rollouts.on_key_compromised(key_id, actor=actor) if rollouts else []
        log.warning(
            "key_compromised", key_id=key_id, suspended=len(suspended), rollouts_paused=len(paused)
        )
        return {
            "keyId": key_id,
            "keyGeneration": report.generation,
            "subscriptionId": report.subscription_id,
            "previousState": report.previous_state,
            "newerKeys": list(report.newer_keys),
            "purpose": report.purpose,
            "revokedAt": report.revoked_at.isoformat(),
            "signingPaused": report.signing_paused,
            "suspended": sorted(suspended),
            "rolloutsPaused": paused,
        }
