"""Reaching a broker by the rules an endpoint is reached by (DESIGN.md sections 5 and 13).

- :meth:`BrokerNet.vet`: the broker host is resolved through the egress's vetting resolver
  (:class:`..egress.dns.HostResolver`: aiodns, answers cached at most min(TTL, 30 s)) and
  judged by the one pure address policy (:class:`..egress.policy.AddressPolicy`): refused if
  ANY answer is not a public unicast address, unless that exact ``(address, port)`` pair is
  allowed; the port must be on the allow-list (which 5671 and 4222 join). A plain ``amqp://``
  or ``nats://`` destination is refused unless EVERY answer is an exact allowance pair. A
  pinned address set (the challenge's) turns any drift into ``egress_pin_mismatch``.
- :meth:`BrokerNet.open_stream`: a connection only to the vetted addresses, through
  ``aiohappyeyeballs`` with a socket factory that refuses any sockaddr outside the vetted set
  (the last line), then TLS verifying the certificate on the broker's host name (SNI too),
  with the optional extra CA bundle (``HOOKPROOF_EGRESS_CA_FILE``). With
  ``HOOKPROOF_EGRESS_PROXY`` the socket is the operator's proxy tunnelled by
  ``CONNECT <vetted address>:<port>`` (:mod:`..egress.proxy`), TLS end to end as without it.

:class:`BrokerFailure` is what the publishers raise internally and turn into evidence: a code,
the outcome it implies and whether the message may have left; library exceptions stay its
``__cause__``. Its message never holds a credential (:func:`scrub`).
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
import ssl
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Final

import aiohappyeyeballs
import structlog

from hookproof.schemas.destinations import BROKER_PORTS

from ...egress.addresses import IPAddress, format_ip
from ...egress.dns import DnsFailure, HostResolver
from ...egress.errors import Refusal
from ...egress.failures import FailureCode
from ...egress.policy import AddressDrift, AddressPolicy, Vetting
from ...egress.proxy import EgressProxy, open_tunnel
from ...egress.result import PeerCertificate, describe_certificate
from ...egress.transport import EgressPolicy
from .bounds import BrokerLimits, PeerLimit
from .evidence import BrokerCode, BrokerEvidence, BrokerOutcome
from .guarded import Guard, open_guarded
from .spec import Destination

__all__ = ["BrokerFailure", "BrokerNet", "Connected", "guarded_factory", "scrub"]

log = structlog.get_logger("hookproof.destinations")

_HAPPY_EYEBALLS_DELAY: Final = 0.25
_REDACTED: Final = "<redacted>"


def scrub(text: str, secrets: Iterable[str]) -> str:
    """*text* with every secret replaced (longest first), for messages built from library
    errors."""
    for secret in sorted((s for s in secrets if s), key=len, reverse=True):
        text = text.replace(secret, _REDACTED)
    return text


class BrokerFailure(Exception):
    """A publish that did not end in acceptance: ``code``, the ``outcome`` it implies and
    ``detail`` (never a secret). Raised ``from`` the library's exception. A refusal by the
    vetting carries it (``vetting``; ``drift`` when a pin was compared), so the evidence
    still says what the host resolved to and the drift guard can judge it."""

    def __init__(
        self,
        code: str,
        outcome: BrokerOutcome,
        detail: str,
        *,
        vetting: Vetting | None = None,
        drift: AddressDrift | None = None,
    ) -> None:
        super().__init__(detail)
        self.code = code
        self.outcome = outcome
        self.detail = detail
        self.vetting = vetting
        self.drift = drift


def unforeseen(exc: Exception, published: bool, secrets: Iterable[str]) -> BrokerFailure:
    """A library error no branch foresaw: never an acceptance; a lost confirmation once the
    message was out, else a failed connect."""
    failure = BrokerFailure(
        BrokerCode.CONNECTION_LOST.value if published else "connect_failed",
        BrokerOutcome.UNKNOWN if published else BrokerOutcome.NOT_SENT,
        scrub(f"{type(exc).__name__}: {exc}", secrets),
    )
    failure.__cause__ = exc
    return failure


def failed_evidence(
    kind: str,
    dest: Destination,
    message_id: str,
    failure: BrokerFailure,
    state: dict[str, Any],
    vetting: Vetting | None,
    credentials_digest: str | None,
    started: float,
    secrets: Iterable[str],
    **answer: Any,
) -> BrokerEvidence:
    """The evidence of a publish that was not accepted, from what the attempt got to
    (``state``: ``published``, ``conn``, ``reused``); ``answer``: what the broker said
    (``amqp=`` or ``jetstream=``). The detail never holds a secret."""
    conn = state.get("conn")
    vetting = vetting or failure.vetting
    return BrokerEvidence(
        outcome=failure.outcome,
        code=failure.code,
        type=kind,
        destination=dest.uri,
        message_id=message_id,
        published=bool(state["published"]),
        resolved=tuple(format_ip(a) for a in vetting.addresses) if vetting else (),
        denied=vetting.denied if vetting else (),
        drift=failure.drift or state.get("drift"),
        peer_address=conn.peer[0] if conn else None,
        peer_port=conn.peer[1] if conn else None,
        tls=dest.tls,
        certificate=getattr(conn, "certificate", None),
        allowance_used=conn.allowance if conn else False,
        reused=bool(state.get("reused")),
        credentials_digest=credentials_digest,
        elapsed_s=time.monotonic() - started,
        detail=scrub(failure.detail, secrets),
        error=failure,
        **answer,
    )


@dataclass(frozen=True, slots=True)
class Connected:
    """A stream opened by :meth:`BrokerNet.open_stream`: the peer it reached and its
    verified certificate (TLS)."""

    reader: asyncio.StreamReader
    writer: asyncio.StreamWriter
    peer: tuple[IPAddress, int]
    certificate: PeerCertificate | None


def guarded_factory(
    vetted: frozenset[tuple[IPAddress, int]],
) -> Any:
    """A socket factory for ``aiohappyeyeballs`` that refuses any sockaddr outside
    *vetted*: the last line before a connect."""

    def factory(addr_info: aiohappyeyeballs.AddrInfoType) -> socket.socket:
        family, type_, proto, _, sockaddr = addr_info
        try:
            addr: IPAddress | None = ipaddress.ip_address(sockaddr[0])
        except ValueError:
            addr = None
        if addr is None or (addr, int(sockaddr[1])) not in vetted:
            log.error("broker_socket_guard_refused", sockaddr=str(sockaddr[0]), port=sockaddr[1])
            raise BrokerFailure(
                FailureCode.REFUSED_ADDRESS.value,
                BrokerOutcome.REFUSED,
                "socket guard: sockaddr not vetted",
            )
        sock = socket.socket(family=family, type=type_, proto=proto)
        sock.setblocking(False)
        return sock

    return factory


class BrokerNet:
    """Vetting and guarded connects for broker hosts (one per engine process)."""

    def __init__(
        self,
        *,
        address_policy: AddressPolicy,
        resolver: HostResolver,
        ca_file: str | None = None,
        connect_timeout_s: float = 5.0,
        limits: BrokerLimits | None = None,
        proxy: EgressProxy | None = None,
    ) -> None:
        self.policy = address_policy
        #: the operator's forward proxy (``HOOKPROOF_EGRESS_PROXY``): brokers go through it too
        self.proxy = proxy
        #: what a broker peer may send and how long each step may take (:mod:`.bounds`)
        self.limits = limits or BrokerLimits()
        self.resolver = resolver
        self.ca_file = ca_file
        self.connect_timeout_s = connect_timeout_s
        self._ssl: ssl.SSLContext | None = None
        if address_policy.allow_pairs:
            log.warning(
                "broker_allowances_configured",
                pairs=sorted(f"{format_ip(a)}:{p}" for a, p in address_policy.allow_pairs),
            )

    @classmethod
    def from_policy(cls, policy: EgressPolicy, limits: BrokerLimits | None = None) -> BrokerNet:
        """The broker side of the egress configuration (5671 and 4222 join its ports)."""
        return cls(
            address_policy=AddressPolicy.build(
                set(policy.allowed_ports) | BROKER_PORTS, policy.allow_pairs
            ),
            resolver=HostResolver(
                policy.dns_servers,
                timeout_s=policy.dns_timeout_s,
                tries=policy.dns_tries,
                max_cache_s=policy.dns_cache_s,
            ),
            ca_file=policy.ca_file,
            connect_timeout_s=policy.connect_timeout_s,
            limits=limits,
            proxy=policy.proxy,
        )

    async def close(self) -> None:
        await self.resolver.close()

    def ssl_context(self) -> ssl.SSLContext:
        """Certificate and host name verification on; the extra CA bundle added."""
        if self._ssl is None:
            ctx = ssl.create_default_context(ssl.Purpose.SERVER_AUTH)
            if self.ca_file:
                ctx.load_verify_locations(cafile=self.ca_file)
            ctx.check_hostname = True
            ctx.verify_mode = ssl.CERT_REQUIRED
            self._ssl = ctx
        return self._ssl

    async def vet(
        self,
        dest: Destination,
        pinned: Iterable[str] | None = None,
        state: dict[str, Any] | None = None,
    ) -> Vetting:
        """Resolve and judge the broker host for this publish; raises :class:`BrokerFailure`
        (``refused``, carrying the vetting) when it may not be reached. With ``pinned`` the
        comparison is kept in ``state["drift"]`` (the evidence records it)."""
        if dest.ip is not None:
            answers: Sequence[IPAddress] = (dest.ip,)
        else:
            try:
                answers = await self.resolver.resolve(dest.host)
            except DnsFailure as exc:
                raise BrokerFailure(
                    FailureCode.DNS_FAILURE.value, BrokerOutcome.NOT_SENT, exc.detail
                ) from exc
        vetting = self.policy.vet(answers, dest.port)
        drift = self.policy.drift(tuple(pinned), vetting) if pinned is not None else None
        if state is not None:
            state["drift"] = drift
        if vetting.refusal is not None:
            raise BrokerFailure(
                vetting.refusal.value,
                BrokerOutcome.REFUSED,
                vetting.detail,
                vetting=vetting,
                drift=drift,
            )
        if not dest.tls and len(vetting.allowances) != len(vetting.addresses):
            raise BrokerFailure(
                BrokerCode.PLAIN_NOT_ALLOWED.value,
                BrokerOutcome.REFUSED,
                f"{dest.scheme}:// only to exact allowance pairs",
                vetting=vetting,
            )
        if drift is not None and drift.changed:
            # stricter than an HTTPS post (which follows a move between public addresses and
            # records it): the connection carries the tenant's broker credentials, so a moved
            # broker is refused before any socket and the drift guard suspends the
            # subscription until a new challenge pins the new addresses
            raise BrokerFailure(
                FailureCode.PIN_MISMATCH.value,
                BrokerOutcome.REFUSED,
                "the broker's addresses differ from the ones pinned at the challenge",
                vetting=vetting,
                drift=drift,
            )
        return vetting

    async def open_stream(
        self,
        dest: Destination,
        vetting: Vetting,
        guard: Guard,
        *,
        limit: int = 2**16,
        server_first: bool = False,
    ) -> Connected:
        """A TCP (and, for a TLS destination, verified TLS) stream to a vetted address, every
        received chunk checked by *guard* before the stream buffers it (:mod:`.guarded`).
        The TCP connect is bounded by ``connect_timeout_s``, TLS by ``limits.tls_handshake_s``."""
        vetted = vetting.vetted
        infos: list[aiohappyeyeballs.AddrInfoType] = []
        for addr in vetting.addresses:
            if (addr, dest.port) not in vetted:
                continue
            if addr.version == 6:
                infos.append(
                    (
                        socket.AF_INET6,
                        socket.SOCK_STREAM,
                        socket.IPPROTO_TCP,
                        "",
                        (str(addr), dest.port, 0, 0),
                    )
                )
            else:
                infos.append(
                    (
                        socket.AF_INET,
                        socket.SOCK_STREAM,
                        socket.IPPROTO_TCP,
                        "",
                        (str(addr), dest.port),
                    )
                )
        if not infos:
            raise BrokerFailure(
                FailureCode.REFUSED_ADDRESS.value, BrokerOutcome.REFUSED, "no vetted address"
            )
        tunnelled: tuple[IPAddress, int] | None = None
        try:
            async with asyncio.timeout(self.connect_timeout_s):
                if self.proxy is not None:  # CONNECT <vetted address>:<port>, TLS end to end
                    tunnelled = (self.first_vetted(dest, vetting)[0], dest.port)
                    sock = await open_tunnel(self.proxy, *tunnelled, server_first=server_first)
                else:
                    sock = await aiohappyeyeballs.start_connection(
                        infos,
                        happy_eyeballs_delay=_HAPPY_EYEBALLS_DELAY,
                        interleave=1,
                        socket_factory=guarded_factory(vetted),
                    )
            try:
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                reader, writer = await open_guarded(
                    sock,
                    guard,
                    limit=limit,
                    ssl_context=self.ssl_context() if dest.tls else None,
                    server_hostname=dest.host if dest.tls else None,
                    tls_handshake_s=self.limits.tls_handshake_s,
                )
            except BaseException:
                sock.close()
                raise
        except BrokerFailure:
            raise
        except PeerLimit as exc:
            raise BrokerFailure(exc.code.value, BrokerOutcome.NOT_SENT, exc.detail) from exc
        except Refusal as exc:  # the proxy: down, or it refused the tunnel
            raise BrokerFailure(exc.code.value, BrokerOutcome.NOT_SENT, exc.detail) from exc
        except TimeoutError as exc:
            raise BrokerFailure(
                FailureCode.CONNECT_TIMEOUT.value, BrokerOutcome.NOT_SENT, "connect timed out"
            ) from exc
        except ssl.SSLError as exc:
            raise BrokerFailure(
                FailureCode.TLS_ERROR.value, BrokerOutcome.NOT_SENT, f"TLS: {exc.reason or exc}"
            ) from exc
        except OSError as exc:
            raise BrokerFailure(
                FailureCode.CONNECT_FAILED.value,
                BrokerOutcome.NOT_SENT,
                f"connect: {exc.strerror or exc}",
            ) from exc
        peer_info = writer.get_extra_info("peername")
        try:
            peer = tunnelled or (ipaddress.ip_address(str(peer_info[0])), int(peer_info[1]))
        except (TypeError, ValueError, IndexError):
            peer = None
        if peer is None or peer not in vetted:  # unreachable while the guard works
            writer.close()
            raise BrokerFailure(
                FailureCode.REFUSED_ADDRESS.value, BrokerOutcome.REFUSED, "peer was not vetted"
            )
        certificate = None
        if dest.tls:
            ssl_object = writer.get_extra_info("ssl_object")
            der = ssl_object.getpeercert(binary_form=True) if ssl_object is not None else None
            certificate = describe_certificate(der) if der else None
        if peer in self.policy.allow_pairs:
            log.warning(
                "broker_allowance_used",
                address=format_ip(peer[0]),
                port=peer[1],
                host=dest.host,
            )
        return Connected(reader, writer, peer, certificate)

    def first_vetted(self, dest: Destination, vetting: Vetting) -> list[IPAddress]:
        """The vetted addresses in answer order (for a library that dials an IP literal)."""
        vetted = vetting.vetted
        return [a for a in vetting.addresses if (a, dest.port) in vetted]
