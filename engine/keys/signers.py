"""Which key signs what, over the key ring: the ports the challenger and the dispatcher take."""

from __future__ import annotations

from hookproof.events.key_events import PURPOSE_ENGINE, PURPOSE_SUBSCRIPTION
from hookproof.projections.key_ring import scope_of
from hookproof.projections.subscriptions import SubscriptionState
from hookproof_subscriber import SigningKey

from .ring import KeyRing

__all__ = ["HMAC", "AttemptSigningKeys", "ChallengeSigningKeys"]

#: the algorithm signed with the subscription's own secret; every other uses the engine key
HMAC = "hmac-sha256"


class ChallengeSigningKeys:
    """The key a subscription's challenge is signed with (``Challenger.signing_key_for``)."""

    __slots__ = ("ring",)

    def __init__(self, ring: KeyRing) -> None:
        self.ring = ring

    async def __call__(self, state: SubscriptionState) -> SigningKey:
        if state.config.signature_algorithm == HMAC:
            return await self.ring.signing_key_for_subscription(state.subscription_id)
        return await self.ring.signing_key()


class AttemptSigningKeys:
    """What an admission signs with (the dispatcher's ``key_provider``): per (subscription id,
    algorithm), the active key and its generation (0 when the ring shows none)."""

    __slots__ = ("ring",)

    def __init__(self, ring: KeyRing) -> None:
        self.ring = ring

    async def __call__(self, subscription_id: str, alg: str) -> tuple[SigningKey, int]:
        if alg == HMAC:
            view = await self.ring.active(scope_of(PURPOSE_SUBSCRIPTION, subscription_id))
            key = await self.ring.signing_key_for_subscription(subscription_id)
        else:
            view = await self.ring.active(PURPOSE_ENGINE)
            key = await self.ring.signing_key()
        return key, (view.generation if view is not None else 0)
