"""What became of one exchange through a relay session (the hub's answer, read by the relay
adapter), and the hub as the adapter calls it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

__all__ = ["ExchangeResult", "RelayExchange"]


@dataclass(frozen=True, slots=True)
class ExchangeResult:
    """What became of one exchange. ``attached``: a session took it in; ``sent``: it was
    handed to that session's WebSocket; ``reported``: an answer (``status``, or ``error``, a
    :class:`RelayCode` value) was recorded; ``response``: a challenge's answer body;
    ``answered_by``: ``"cli"`` when ``listen --answer-challenge`` answered it, not the receiver."""

    attached: bool
    session_id: str | None = None
    sent: bool = False
    reported: bool = False
    status: int | None = None
    error: str | None = None
    response: bytes = b""
    response_type: str | None = None
    answered_by: str | None = None


class RelayExchange(Protocol):
    """The relay hub (``engine/relay/hub.py``) as the adapter uses it."""

    async def exchange(
        self,
        *,
        subscription_id: str,
        delivery_id: str,
        attempt: int,
        kind: str,
        headers: dict[str, str],
        body: bytes,
        timeout_s: float | None = None,
    ) -> ExchangeResult: ...
