"""The last lines before a connect: :class:`VettedResolver` hands out only the addresses
vetted for the current request (:data:`.context.CURRENT`), :func:`guarded_socket` (the socket
factory of every connect) refuses any sockaddr not vetted for it."""

from __future__ import annotations

import ipaddress
import socket
from typing import Any, TypedDict

import aiohappyeyeballs
import structlog

from .context import CURRENT
from .errors import Refusal
from .failures import FailureCode

__all__ = ["ResolveResult", "VettedResolver", "addr_infos", "guarded_socket", "socket_factory"]

log = structlog.get_logger("hookproof.egress")


class ResolveResult(TypedDict):
    """One address the resolver hands out (the shape of aiohttp's resolver results)."""

    hostname: str
    host: str
    port: int
    family: int
    proto: int
    flags: int


class VettedResolver:
    """Hands out only the addresses vetted for the current request; never resolves."""

    async def resolve(
        self, host: str, port: int = 0, family: socket.AddressFamily = socket.AF_INET
    ) -> list[ResolveResult]:
        attempt = CURRENT.get()
        if attempt is None or attempt.endpoint.host != host or attempt.endpoint.port != port:
            raise Refusal(FailureCode.REFUSED_ADDRESS, "no vetted resolution for this request")
        out: list[ResolveResult] = []
        for addr in attempt.resolved:  # the answer order, each pair vetted
            if (addr, port) not in attempt.vetted:
                continue
            fam = socket.AF_INET6 if addr.version == 6 else socket.AF_INET
            if family and fam != family:
                continue
            out.append(
                {
                    "hostname": host,
                    "host": str(addr),
                    "port": port,
                    "family": fam,
                    "proto": 0,
                    "flags": socket.AI_NUMERICHOST,
                }
            )
        if not out:
            raise Refusal(FailureCode.REFUSED_ADDRESS, "no vetted address for this request")
        return out


def guarded_socket(addr_info: aiohappyeyeballs.AddrInfoType) -> socket.socket:
    """The socket factory for every connect: the last line before a connect."""
    family, type_, proto, _, sockaddr = addr_info
    attempt = CURRENT.get()
    try:
        addr = ipaddress.ip_address(sockaddr[0])
    except ValueError:
        addr = None
    if attempt is None or addr is None or (addr, int(sockaddr[1])) not in attempt.vetted:
        refusal = Refusal(FailureCode.REFUSED_ADDRESS, "socket guard: sockaddr not vetted")
        if attempt is not None:
            attempt.guard_refusals += 1
            attempt.refusal = attempt.refusal or refusal
        log.error("egress_socket_guard_refused", sockaddr=str(sockaddr[0]), port=sockaddr[1])
        raise refusal
    attempt.socket_opened += 1
    sock = socket.socket(family=family, type=type_, proto=proto)
    sock.setblocking(False)
    return sock


def socket_factory(addr_info: aiohappyeyeballs.AddrInfoType) -> socket.socket:
    return guarded_socket(addr_info)  # looked up per call: the module's current guard


def addr_infos(results: list[ResolveResult]) -> list[aiohappyeyeballs.AddrInfoType]:
    infos: list[aiohappyeyeballs.AddrInfoType] = []
    for r in results:
        family = socket.AddressFamily(r["family"])
        sockaddr: tuple[Any, ...] = (
            (r["host"], r["port"], 0, 0) if family == socket.AF_INET6 else (r["host"], r["port"])
        )
        infos.append((family, socket.SOCK_STREAM, socket.IPPROTO_TCP, "", sockaddr))
    return infos
