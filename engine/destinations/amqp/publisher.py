"""Publishing to RabbitMQ (AMQP 0-9-1) with publisher confirms as evidence.

Built on aiormq (the protocol layer under aio-pika) because its public
:class:`aiormq.TransportFactory` lets the connection be opened by :class:`.net.BrokerNet`:
vetted addresses only, the guarded socket factory, TLS verified on the broker's host name.
aio-pika's ``connect`` does not pass a transport factory through.

Each pooled connection keeps one channel in confirm mode per destination (a channel the broker
closes, e.g. for an exchange that does not exist, takes no other destination's publishes with
it), opened with ``on_return_raises=False``: a ``basic.return`` of the mandatory message then
resolves the publish with the returned message instead of raising, and the ``basic.ack``
RabbitMQ sends after a return is ignored. So:

- ``basic.ack`` (and no return) -> accepted, ``amqp.confirmed``;
- the returned message -> rejected ``unroutable`` with the broker's reply code and text;
- ``basic.nack`` (aiormq's ``DeliveryError``) -> rejected ``broker_nack``;
- the channel closed by the broker for this publish (404 no exchange, 403 access refused)
  -> rejected ``broker_refused``;
- no confirmation within the timeout -> unknown ``confirm_timeout``; the connection lost
  after the message was handed over -> unknown ``connection_lost``.

Messages are persistent (``delivery_mode`` 2), ``mandatory``, ``message_id`` = delivery id,
``content_type`` and the header table from :mod:`.message`.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import aiormq
import aiormq.exceptions
import structlog
from aiormq import spec
from aiormq.abc import DeliveredMessage
from yarl import URL

from ...egress.addresses import format_ip
from ...egress.policy import Vetting
from ...egress.result import PeerCertificate
from ..brokers.bounds import AmqpFrames, ByteBudget, LimitCode, PeerLimit
from ..brokers.evidence import AmqpConfirmation, BrokerCode, BrokerEvidence, BrokerOutcome
from ..brokers.guarded import Guard
from ..brokers.message import BrokerMessage
from ..brokers.net import BrokerFailure, BrokerNet, Connected, failed_evidence, scrub, unforeseen
from ..brokers.pool import BrokerPool, BrokerPoolLimits, PoolKey
from ..brokers.spec import BrokerCredentials, Destination

__all__ = ["AmqpPublisher"]

log = structlog.get_logger("hookproof.destinations")

_PERSISTENT = 2


class _VettedTransport(aiormq.TransportFactory):
    """aiormq's transport, opened through :meth:`BrokerNet.open_stream` (public hook), every
    frame's announced size checked against ``frame_max`` and every byte against the
    connection's budget before aiormq's reader buffers it (:mod:`.guarded`). Once the stream
    is open, the protocol handshake gets ``limits.handshake_s`` (``deadline``)."""

    def __init__(
        self, net: BrokerNet, dest: Destination, vetting: Vetting, deadline: asyncio.Timeout
    ) -> None:
        self.net = net
        self.dest = dest
        self.vetting = vetting
        self.deadline = deadline
        self.guard = Guard(
            AmqpFrames(net.limits.amqp_frame_max).feed, ByteBudget(net.limits.budget_base)
        )
        self.connected: Connected | None = None

    async def create(
        self, url: URL, **kwargs: Any
    ) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        self.connected = await self.net.open_stream(self.dest, self.vetting, self.guard)
        loop = asyncio.get_running_loop()
        self.deadline.reschedule(loop.time() + self.net.limits.handshake_s)
        return self.connected.reader, self.connected.writer


@dataclass(eq=False)
class _AmqpConnection:
    connection: Any  # aiormq.Connection
    peer: tuple[str, int]
    certificate: PeerCertificate | None
    allowance: bool
    guard: Guard
    handshake_s: float
    opened_at: float = 0.0
    last_used: float = 0.0
    publishes: int = 0
    channels: dict[str, Any] = field(default_factory=dict)
    channel_locks: dict[str, asyncio.Lock] = field(default_factory=dict)

    def is_open(self) -> bool:
        return bool(self.connection.is_opened) and not self.connection.is_closed

    async def close(self) -> None:
        if not self.connection.is_closed:
            await self.connection.close()

    async def channel(self, uri: str) -> Any:
        """This destination's confirm-mode channel (reopened if the broker closed it):
        ``Channel.Open`` and ``Confirm.Select`` within ``handshake_s``, waiting included."""
        ch = self.channels.get(uri)
        if ch is not None and not ch.is_closed:
            return ch
        lock = self.channel_locks.setdefault(uri, asyncio.Lock())
        async with asyncio.timeout(self.handshake_s), lock:
            ch = self.channels.get(uri)
            if ch is None or ch.is_closed:
                ch = await self.connection.channel(publisher_confirms=True, on_return_raises=False)
                self.channels[uri] = ch
            return ch


def _url(dest: Destination, credentials: BrokerCredentials | None) -> URL:
    """The URL aiormq logs in with (censored in aiormq's own logs); never logged here."""
    vhost = dest.vhost or "/"
    url = URL.build(
        scheme=dest.scheme,
        host=dest.host,
        port=dest.port,
        # aiormq reads the vhost from the path ("/" is the default vhost; "%2F" is "/")
        path="/" if vhost == "/" else "/" + vhost.replace("/", "%2F"),
    )
    if credentials is not None and credentials.username is not None:
        url = url.with_user(credentials.username).with_password(credentials.password or "")
    return url.with_query({"heartbeat": "30"})


def _connect_failure(exc: Exception, opened: bool, secrets: tuple[str, ...]) -> BrokerFailure:
    """A failed AMQP connect as a failure (nothing was published). A deadline passed after
    the stream opened is the protocol handshake's (``broker_handshake_timeout``)."""
    if isinstance(exc, aiormq.exceptions.ProbableAuthenticationError):
        return BrokerFailure(
            BrokerCode.BROKER_AUTH_FAILED.value,
            BrokerOutcome.REJECTED,
            "the broker refused the credentials",
        )
    if isinstance(exc, aiormq.exceptions.ConnectionClosed):
        return BrokerFailure(
            BrokerCode.BROKER_REFUSED.value,
            BrokerOutcome.REJECTED,
            scrub(f"the broker closed the connection: {exc}", secrets),
        )
    if isinstance(exc, TimeoutError):
        if opened:
            return BrokerFailure(
                LimitCode.HANDSHAKE_TIMEOUT.value,
                BrokerOutcome.NOT_SENT,
                "no AMQP Connection.OpenOk within the handshake deadline",
            )
        return BrokerFailure("connect_timeout", BrokerOutcome.NOT_SENT, "AMQP connect timed out")
    return BrokerFailure(
        "connect_failed",
        BrokerOutcome.NOT_SENT,
        scrub(f"AMQP connect: {type(exc).__name__}: {exc}", secrets),
    )


class AmqpPublisher:
    """Confirmed, mandatory, persistent publishes to AMQP 0-9-1 destinations."""

    def __init__(
        self,
        net: BrokerNet,
        *,
        limits: BrokerPoolLimits | None = None,
        timeout_s: float = 10.0,
    ) -> None:
        self.net = net
        self.timeout_s = timeout_s
        self.brokers: BrokerPool[_AmqpConnection] = BrokerPool(limits)

    async def close(self) -> None:
        await self.brokers.close()

    async def publish(
        self,
        dest: Destination,
        message: BrokerMessage,
        credentials: BrokerCredentials | None = None,
        *,
        credentials_digest: str | None = None,
        pinned: Iterable[str] | None = None,
        owner: str | None = None,
    ) -> BrokerEvidence:
        """Publish *message* and return the broker's answer as evidence (never raises for
        a network or broker outcome)."""
        if dest.type != "amqp":
            raise ValueError("not an AMQP destination")
        started = time.monotonic()
        secrets = credentials.secrets() if credentials else ()
        state: dict[str, Any] = {"published": False, "owner": owner}
        vetting: Vetting | None = None
        try:
            vetting = await self.net.vet(dest, pinned, state)
            return await self._publish(
                dest, message, credentials, credentials_digest, vetting, state, started
            )
        except BrokerFailure as exc:
            failure = exc
        except Exception as exc:  # a library error we did not foresee: never accepted
            failure = unforeseen(exc, state["published"], secrets)
        return failed_evidence(
            "amqp",
            dest,
            message.message_id,
            failure,
            state,
            vetting,
            credentials_digest,
            started,
            secrets,
            amqp=state.get("confirmation"),
        )

    async def _open(
        self, dest: Destination, credentials: BrokerCredentials | None, vetting: Vetting
    ) -> _AmqpConnection:
        limits = self.net.limits
        # the TCP connect and TLS are bounded inside open_stream; the transport then sets the
        # protocol handshake's own deadline
        deadline = asyncio.timeout(
            self.net.connect_timeout_s + limits.tls_handshake_s + limits.handshake_s
        )
        transport = _VettedTransport(self.net, dest, vetting, deadline)
        connection = aiormq.Connection(
            _url(dest, credentials),
            transport_factory=transport,
            client_properties={"connection_name": "hookproof"},
        )
        secrets = credentials.secrets() if credentials else ()
        try:
            async with deadline:
                await connection.connect()
        except BrokerFailure:
            raise
        except Exception as exc:
            if transport.guard.refused is not None:  # past a bound: the socket is aborted
                refused = transport.guard.refused
                raise BrokerFailure(
                    refused.code.value, BrokerOutcome.NOT_SENT, refused.detail
                ) from exc
            raise _connect_failure(exc, transport.connected is not None, secrets) from exc
        assert transport.connected is not None
        peer = transport.connected.peer
        return _AmqpConnection(
            connection=connection,
            peer=(format_ip(peer[0]), peer[1]),
            certificate=transport.connected.certificate,
            allowance=peer in self.net.policy.allow_pairs,
            guard=transport.guard,
            handshake_s=limits.handshake_s,
        )

    async def _publish(
        self,
        dest: Destination,
        message: BrokerMessage,
        credentials: BrokerCredentials | None,
        credentials_digest: str | None,
        vetting: Vetting,
        state: dict[str, Any],
        started: float,
    ) -> BrokerEvidence:
        addresses = self.net.first_vetted(dest, vetting)
        key = PoolKey(
            "amqp",
            addresses[0],
            dest.port,
            dest.tls,
            dest.host,
            dest.vhost,
            credentials_digest,
            state["owner"],
        )
        # a pooled connection to any vetted address of the answer may carry it
        conn: _AmqpConnection | None = None
        for addr in addresses:
            probe = PoolKey(
                "amqp",
                addr,
                dest.port,
                dest.tls,
                dest.host,
                dest.vhost,
                credentials_digest,
                state["owner"],
            )
            if self.brokers.holds(probe):
                key = probe
                break
        conn, reused = await self.brokers.acquire(
            key, lambda: self._open(dest, credentials, vetting)
        )
        state["conn"], state["reused"] = conn, reused
        try:
            channel = await conn.channel(dest.uri)
        except Exception as exc:
            self.brokers.discard(key, conn, "channel_failed")
            if conn.guard.refused is not None:
                refused = conn.guard.refused
                raise BrokerFailure(
                    refused.code.value, BrokerOutcome.NOT_SENT, refused.detail
                ) from exc
            if isinstance(exc, TimeoutError):
                raise BrokerFailure(
                    LimitCode.HANDSHAKE_TIMEOUT.value,
                    BrokerOutcome.NOT_SENT,
                    "no AMQP Channel.OpenOk / Confirm.SelectOk within the handshake deadline",
                ) from exc
            raise BrokerFailure(
                "connect_failed", BrokerOutcome.NOT_SENT, f"channel: {type(exc).__name__}"
            ) from exc
        # what the broker may send back for this publish: a confirmation, or a return with
        # the message itself
        conn.guard.budget.grant(
            self.net.limits.budget_per_publish
            + len(message.body)
            + sum(len(k) + len(str(v)) for k, v in message.headers.items())
        )
        properties = spec.Basic.Properties(
            content_type=message.content_type,
            delivery_mode=_PERSISTENT,
            message_id=message.message_id,
            # the attempt's signing time (whole seconds, as AMQP carries it)
            timestamp=datetime.fromtimestamp(message.created, UTC) if message.created else None,
            headers=dict(message.headers),
        )
        state["published"] = True
        try:
            result = await channel.basic_publish(
                message.body,
                exchange=dest.exchange or "",
                routing_key=dest.routing_key or "",
                properties=properties,
                mandatory=True,
                timeout=self.timeout_s,
                # enqueue the frames and wait for the confirmation only: with ``wait=True``
                # each publish also waits, holding the channel's lock, until its frames are
                # drained to the socket, so the publishes of one destination go out one at a
                # time. A frame never written ends the confirmation with the connection's
                # error: still UNKNOWN, never accepted.
                wait=False,
            )
        except aiormq.exceptions.DeliveryError as exc:
            state["confirmation"] = AmqpConfirmation(nacked=True)
            raise BrokerFailure(
                BrokerCode.BROKER_NACK.value,
                BrokerOutcome.REJECTED,
                "the broker nacked the message",
            ) from exc
        except (
            aiormq.exceptions.ChannelNotFoundEntity,
            aiormq.exceptions.ChannelAccessRefused,
        ) as exc:
            reply = exc.args[0] if exc.args else ""
            raise BrokerFailure(
                BrokerCode.BROKER_REFUSED.value,
                BrokerOutcome.REJECTED,
                f"the broker closed the channel: {str(reply)[:200]}",
            ) from exc
        except TimeoutError as exc:
            self.brokers.discard(key, conn, "confirm_timeout")
            raise BrokerFailure(
                BrokerCode.CONFIRM_TIMEOUT.value,
                BrokerOutcome.UNKNOWN,
                f"no confirmation within {self.timeout_s:g} s",
            ) from exc
        except (
            aiormq.exceptions.AMQPError,
            OSError,
            asyncio.IncompleteReadError,
            RuntimeError,
            PeerLimit,
        ) as exc:
            self.brokers.discard(key, conn, "connection_lost")
            if conn.guard.refused is not None:  # the engine ended it: the peer went too far
                refused = conn.guard.refused
                raise BrokerFailure(
                    refused.code.value, BrokerOutcome.UNKNOWN, refused.detail
                ) from exc
            raise BrokerFailure(
                BrokerCode.CONNECTION_LOST.value,
                BrokerOutcome.UNKNOWN,
                f"the connection ended before the confirmation ({type(exc).__name__})",
            ) from exc
        base: dict[str, Any] = {
            "type": "amqp",
            "destination": dest.uri,
            "message_id": message.message_id,
            "published": True,
            "resolved": tuple(format_ip(a) for a in vetting.addresses),
            "peer_address": conn.peer[0],
            "peer_port": conn.peer[1],
            "tls": dest.tls,
            "certificate": conn.certificate,
            "allowance_used": conn.allowance,
            "reused": reused,
            "credentials_digest": credentials_digest,
            "drift": state.get("drift"),
        }
        if isinstance(result, DeliveredMessage):
            ret = result.delivery
            code = getattr(ret, "reply_code", None)
            text = getattr(ret, "reply_text", None)
            confirmation = AmqpConfirmation(returned=True, reply_code=code, reply_text=text)
            return BrokerEvidence(
                outcome=BrokerOutcome.REJECTED,
                code=BrokerCode.UNROUTABLE.value,
                amqp=confirmation,
                elapsed_s=time.monotonic() - started,
                detail=f"returned by the broker: {code} {text}",
                **base,
            )
        if isinstance(result, spec.Basic.Ack):
            return BrokerEvidence(
                outcome=BrokerOutcome.ACCEPTED,
                code=None,
                amqp=AmqpConfirmation(confirmed=True),
                elapsed_s=time.monotonic() - started,
                **base,
            )
        state["confirmation"] = AmqpConfirmation()
        raise BrokerFailure(
            BrokerCode.CONNECTION_LOST.value,
            BrokerOutcome.UNKNOWN,
            f"no confirmation ({type(result).__name__})",
        )
