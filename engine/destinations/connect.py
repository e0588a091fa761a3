"""The vetted connection a kind's adapter opens (DESIGN.md sections 5 and 15): the host
resolved and judged by the egress rules (denied ranges, the port allow-list, exact
``HOOKPROOF_EGRESS_ALLOW`` pairs, plain TCP only to such a pair), the connect made by a
socket factory that refuses any address not vetted, TLS verified, and every received byte
counted against a budget before the kind reads it. A kind never opens a socket itself."""

from __future__ import annotations

import asyncio
import hashlib
import ipaddress
from dataclasses import dataclass
from typing import Final

from ..egress.addresses import IPAddress, format_ip
from ..egress.failures import Outcome
from .brokers.bounds import ByteBudget, PeerLimit
from .brokers.evidence import BrokerOutcome
from .brokers.guarded import Guard
from .brokers.net import BrokerFailure, BrokerNet
from .brokers.spec import Destination as Address

__all__ = ["ConnectRefused", "Opened", "VettedConnector"]

_OUTCOMES: Final = {
    BrokerOutcome.REFUSED: Outcome.REFUSED,
    BrokerOutcome.NOT_SENT: Outcome.NOT_SENT,
}
#: what a peer may send on one connection unless the kind says otherwise
DEFAULT_MAX_BYTES: Final = 1 << 20


class ConnectRefused(Exception):
    """No connection: ``code`` (a stable egress reason, ``egress_refused_address``, ...),
    ``outcome`` (refused: never dialled; not sent: dialled, nothing handed over)."""

    def __init__(self, code: str, outcome: Outcome, detail: str) -> None:
        super().__init__(detail)
        self.code = code
        self.outcome = outcome
        self.detail = detail


@dataclass(frozen=True, slots=True)
class Opened:
    """A vetted stream: the peer it reached (``address:port``) and, over TLS, the SHA-256 of
    the peer certificate's key (``spki_sha256``)."""

    reader: asyncio.StreamReader
    writer: asyncio.StreamWriter
    peer_address: str
    spki_sha256: str | None


class VettedConnector:
    """Opens streams for any kind under the engine's egress rules (the composition root
    gives one to every kind through :class:`~.context.KindContext`)."""

    def __init__(self, net: BrokerNet) -> None:
        self._net = net

    async def open(
        self, host: str, port: int, *, tls: bool, max_bytes: int = DEFAULT_MAX_BYTES
    ) -> Opened:
        """A stream to *host*:*port*; :class:`ConnectRefused` when it may not be reached."""
        try:
            ip: IPAddress | None = ipaddress.ip_address(host)
        except ValueError:
            ip = None
        scheme = "tls" if tls else "tcp"
        url = f"{scheme}://{host}:{port}"
        address = Address(
            "connect", scheme, host, port, url, url, hashlib.sha256(url.encode()).hexdigest(), ip
        )
        guard = Guard(frames=lambda data: data, budget=ByteBudget(max_bytes))
        try:
            vetting = await self._net.vet(address)
            opened = await self._net.open_stream(address, vetting, guard)
        except BrokerFailure as exc:
            raise ConnectRefused(
                exc.code, _OUTCOMES.get(exc.outcome, Outcome.NOT_SENT), exc.detail
            ) from exc
        except PeerLimit as exc:
            raise ConnectRefused(exc.code.value, Outcome.NOT_SENT, exc.detail) from exc
        peer = f"{format_ip(opened.peer[0])}:{opened.peer[1]}"
        spki = opened.certificate.spki_sha256 if opened.certificate is not None else None
        return Opened(opened.reader, opened.writer, peer, spki)
