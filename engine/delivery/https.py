"""The HTTPS destination: a signed message POSTed through the pinned egress (DESIGN.md 5).

An attempt of the subscription's current generation goes through the drift guard with the
address set its challenge pinned (a drift suspends or is recorded, as the policy says); an
attempt draining an older generation goes to its own endpoint with no newer pin. The egress
result becomes the attempt's :class:`~.destination.Evidence` here, at the boundary.
"""

from __future__ import annotations

from typing import Final

from hookproof.projections.subscriptions import SubscriptionState

from ..challenge.drift import DriftGuard
from ..common.memo import BoundedMemo
from ..egress import EgressResult, EgressTransport
from ..subscriptions import SubscriptionService
from .admission import ClaimRow
from .destination import Evidence, SignedMessage

__all__ = ["STATE_MEMO", "HttpsDestination", "evidence_of"]

#: Subscription states each worker keeps (reused while their version holds; ~1.8 KiB each):
#: a fan-out to 10,000 sites would otherwise keep one per subscription in each worker.
STATE_MEMO: Final = 2_048


def evidence_of(result: EgressResult) -> Evidence:
    """What the ledger records of one egress result (no body, no headers but Retry-After)."""
    return Evidence(
        outcome=result.outcome,
        code=result.code,
        status=result.status,
        retry_after=None if result.ok else result.header("Retry-After"),
        location=result.location,
        request_written=result.request_written,
        peer_address=result.peer_address,
        spki_sha256=result.spki_sha256,
        body_truncated=result.body_truncated,
    )


class HttpsDestination:
    """:class:`~.destination.Destination` over the egress transport and the drift guard."""

    def __init__(
        self,
        transport: EgressTransport,
        guard: DriftGuard,
        subscriptions: SubscriptionService,
        *,
        memo: int = STATE_MEMO,
    ) -> None:
        self.transport = transport
        self.guard = guard
        self.subscriptions = subscriptions
        self._states: BoundedMemo[str, SubscriptionState | None] = BoundedMemo(memo)

    async def _current(self, row: ClaimRow) -> SubscriptionState | None:
        """The subscription's state at the version the claim saw (memoised per version)."""
        sid = row.subscription_id
        state = self._states.get(sid)
        if state is None or state.version != row.sub_version:
            state = await self.subscriptions.load(sid)
            self._states.put(sid, state)
        return state

    async def deliver(self, message: SignedMessage, target: ClaimRow) -> Evidence:
        if target.generation == target.sub_generation:
            state = await self._current(target)
            if state is not None and state.generation == target.generation:
                return evidence_of(
                    await self.guard.post(state, target.endpoint, message.body, message.headers)
                )
        # draining an older generation: its own endpoint, no newer pin applies
        return evidence_of(
            await self.transport.post(target.endpoint, message.body, message.headers)
        )
