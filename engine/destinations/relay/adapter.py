"""The relay destination: an attempt through the subscription's ``hookproof listen`` session.

The signed message goes to the relay as it is (headers and body byte for byte); the relay
POSTs it to its local receiver and reports the status it saw. The engine did not see that
answer itself, so the ledger keeps who said so: the attempt's ``peer_address`` is
``relay:<sessionId>``, and the delivery's evidence reads ``RELAY_REPORTED``, never
``ENDPOINT_ACCEPTED`` (:func:`hookproof.engine.delivery.views.evidence_of`). No session
attached: ``relay_not_attached``, retried under the subscription's retry policy like any
failure, dead-lettered when spent.
"""

from __future__ import annotations

from ...egress.failures import Outcome
from ..context import Target
from ..port import Evidence, SignedMessage
from .codes import LOCAL_ERRORS, RelayCode
from .exchange import ExchangeResult, RelayExchange

__all__ = ["RelayDestination", "attempt_of", "evidence_of_exchange", "relay_peer"]


def relay_peer(session_id: str | None, answered_by: str | None = None) -> str | None:
    """What stands for the peer of a relayed request: the session that carried it
    (``relay:<session>/cli`` when the CLI answered a challenge itself)."""
    if session_id is None:
        return None
    return f"relay:{session_id}" + (f"/{answered_by}" if answered_by else "")


def evidence_of_exchange(result: ExchangeResult) -> Evidence:
    """What the ledger records of one exchange through a relay (pure)."""
    peer = relay_peer(result.session_id, result.answered_by)
    if not result.attached:
        return Evidence(outcome=Outcome.NOT_SENT, code=RelayCode.NOT_ATTACHED)
    if result.reported and result.status is not None:
        return Evidence(
            outcome=Outcome.REDIRECT if 300 <= result.status < 400 else Outcome.RESPONSE,
            status=result.status,
            request_written=True,
            peer_address=peer,
        )
    if not result.sent:  # never handed to the relay: nothing can have reached the receiver
        code = RelayCode.DETACHED if result.reported else RelayCode.REPORT_TIMEOUT
        return Evidence(outcome=Outcome.NOT_SENT, code=code, peer_address=peer)
    if result.reported:
        error = result.error or RelayCode.REPORT_INVALID.value
        known = {c.value for c in RelayCode}
        code = RelayCode(error) if error in known else RelayCode.REPORT_INVALID
        reached = LOCAL_ERRORS.get(code.value, True)
        return Evidence(
            outcome=Outcome.UNKNOWN if reached else Outcome.NOT_SENT,
            code=code,
            request_written=reached,
            peer_address=peer,
        )
    return Evidence(
        outcome=Outcome.UNKNOWN,
        code=RelayCode.REPORT_TIMEOUT,
        request_written=True,
        peer_address=peer,
    )


def attempt_of(message: SignedMessage, target: Target) -> int:
    """The attempt the request names (``Webhook-Attempt``, which the admission numbered)."""
    raw = message.headers.get("Webhook-Attempt")
    if raw is not None and raw.isdigit():
        return int(raw)
    return target.attempt + 1


class RelayDestination:
    """:class:`~..port.Destination` over the relay hub (:class:`~.exchange.RelayExchange`)."""

    def __init__(self, hub: RelayExchange) -> None:
        self.hub = hub

    async def deliver(self, message: SignedMessage, target: Target) -> Evidence:
        result = await self.hub.exchange(
            subscription_id=target.subscription_id,
            delivery_id=target.delivery_id,
            attempt=attempt_of(message, target),
            kind="delivery",
            headers=dict(message.headers),
            body=message.body,
        )
        return evidence_of_exchange(result)
