"""A relay subscription's challenge, through its relay session (DESIGN.md 4 and 11).

The challenge is the same signed ``hookproof.challenge.v1`` request an HTTPS endpoint gets;
the relay forwards it to the local receiver, which answers with the same proof (a MAC under
the shared secret, or a signature under the receipt key) and the relay reports the answer's
status, content type and body. The challenger verifies that proof as for HTTPS, so ACTIVE
still means "whoever answers there holds the secret or the receipt key". What the engine saw
is recorded as it was: the answer came through ``relay:<sessionId>`` (the ``peerAddress``
and ``resolvedAddresses`` of ``subscription.challenge_passed``), with no certificate. No relay
attached: the challenge fails ``relay_not_attached``; attaching a relay to a subscription that
is PENDING_CHALLENGE runs the challenge again (:mod:`hookproof.engine.api.relay`).
"""

from __future__ import annotations

from hookproof.projections.subscriptions import SubscriptionState

from ..destinations.relay.adapter import evidence_of_exchange
from ..egress.result import EgressResult
from .hub import RelayHub

__all__ = ["RelayChallenges"]


class RelayChallenges:
    """The challenger's way through a relay: ``post`` answers an :class:`EgressResult`."""

    def __init__(self, hub: RelayHub) -> None:
        self.hub = hub

    async def post(
        self,
        state: SubscriptionState,
        challenge_id: str,
        body: bytes,
        headers: dict[str, str],
    ) -> EgressResult:
        result = await self.hub.exchange(
            subscription_id=state.subscription_id,
            delivery_id=challenge_id,
            attempt=1,
            kind="challenge",
            headers=headers,
            body=body,
        )
        evidence = evidence_of_exchange(result)
        peer = evidence.peer_address
        status = evidence.status
        code = evidence.code
        return EgressResult(
            outcome=evidence.outcome,
            # the challenge's reasons are egress codes or strings; a relay's is its own code
            code=code,  # type: ignore[arg-type]
            url=state.config.endpoint,
            host="relay",
            port=0,
            status=status,
            headers=(("Content-Type", result.response_type),) if result.response_type else (),
            body=result.response,
            resolved=(peer,) if peer is not None and status is not None else (),
            peer_address=peer,
            request_started=evidence.request_written,
            request_written=evidence.request_written,
            detail="" if code is None else str(code),
        )
