"""The HTTPS destination: a signed message POSTed through the pinned egress (DESIGN.md 5).

An attempt of the subscription's current generation goes through the drift guard with the
address set its challenge pinned (a drift suspends or is recorded, as the policy says); an
attempt draining an older generation goes to its own endpoint with no newer pin. The egress
result becomes the attempt's :class:`~.destination.Evidence` here, at the boundary. The
subscription's ``auth`` (DESIGN.md section 14) is applied to every send by
:class:`~hookproof.engine.endpoint_auth.EndpointAuth` (header, client certificate, token).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Final

from hookproof.projections.subscriptions import SubscriptionState

from ...common.memo import BoundedMemo
from ...egress import EgressResult, EgressTransport
from ...egress.identity import ClientIdentity
from ...endpoint_auth import EndpointAuth
from ..context import DriftWatch, SubscriptionStates, Target
from ..port import Evidence, SignedMessage
from .response_excerpt import response_of

__all__ = ["STATE_MEMO", "HttpsDestination", "evidence_of"]

#: Subscription states each worker keeps (reused while their version holds; ~1.8 KiB each):
#: a fan-out to 10,000 sites would otherwise keep one per subscription in each worker.
STATE_MEMO: Final = 2_048


def evidence_of(
    result: EgressResult,
    sent: Mapping[str, str] | None = None,
    credentials: Iterable[str] = (),
) -> Evidence:
    """What the ledger records of one egress result: the outcome, Retry-After, and the answer's
    headers and body excerpt bounded and redacted (``sent``: the request's headers, whose
    secret values are scrubbed from what is kept; ``credentials``: the auth's header values,
    scrubbed in every encoding)."""
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
        proxy=result.proxy,
        response=response_of(result.status, result.headers, result.body, sent or {}, credentials),
    )


class HttpsDestination:
    """:class:`~.destination.Destination` over the egress transport and the drift guard."""

    def __init__(
        self,
        transport: EgressTransport,
        guard: DriftWatch,
        subscriptions: SubscriptionStates,
        *,
        auth: EndpointAuth | None = None,
        memo: int = STATE_MEMO,
    ) -> None:
        self.transport = transport
        self.guard = guard
        self.subscriptions = subscriptions
        self.auth = auth
        self._states: BoundedMemo[str, SubscriptionState | None] = BoundedMemo(memo)

    async def _current(self, row: Target) -> SubscriptionState | None:
        """The subscription's state at the version the claim saw (memoised per version)."""
        sid = row.subscription_id
        state = self._states.get(sid)
        if state is None or state.version != row.sub_version:
            state = await self.subscriptions.load(sid)
            self._states.put(sid, state)
        return state

    async def deliver(self, message: SignedMessage, target: Target) -> Evidence:
        state = await self._current(target)
        current = (
            target.generation == target.sub_generation
            and state is not None
            and state.generation == target.generation
        )

        #: every header value sent (the auth's too): scrubbed from the answer's excerpt
        sent: dict[str, str] = dict(message.headers)
        #: every credential sent (each try's: a 401 refreshes the token), in any encoding
        credentials: list[str] = []

        async def send(
            extra: list[tuple[str, str]], identity: ClientIdentity | None
        ) -> EgressResult:
            sent.update(extra)
            credentials.extend(value for _, value in extra)
            headers = [*message.headers.items(), *extra] if extra else message.headers
            if current:
                assert state is not None
                return await self.guard.post(
                    state, target.endpoint, message.body, headers, identity=identity
                )
            # draining an older generation: its own endpoint, no newer pin applies
            return await self.transport.post(
                target.endpoint, message.body, headers, identity=identity
            )

        if self.auth is None or state is None or state.config.auth is None:
            return evidence_of(await send([], None), sent)
        result = await self.auth.send(state, target.endpoint, send)
        return evidence_of(result, sent, credentials)
