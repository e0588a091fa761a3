"""Publishing to NATS JetStream with the PubAck as evidence.

nats-py opens its own sockets and has no transport hook, so the broker host is vetted here
(:meth:`.net.BrokerNet.vet`) and nats-py is given only a vetted address, as an IP literal (no
name is resolved inside the library), with TLS verifying the broker's host name
(``tls_hostname``). It never dials anything else: reconnects are off (a lost connection is
dropped from the pool and the next publish vets again), so the ``connect_urls`` a server
advertises are never used. A ``tls://`` destination does the TLS handshake first
(``tls_handshake_first``): nats-py otherwise starts TLS only when the server's first INFO asks
for it, and a server that does not would get the credentials in the clear. The broker must
accept TLS-first clients (nats-server 2.10.4+: ``tls { handshake_first: true }`` or a
fallback delay).

Evidence: a PubAck whose ``stream`` is the declared one (sent as ``Nats-Expected-Stream``, so
JetStream refuses to store it anywhere else) is acceptance, recorded with ``seq`` and
``duplicate`` (the same ``Nats-Msg-Id`` inside the stream's duplicate window: acceptance of
the earlier publish, which the stream holds once). No stream listening on the subject
(``jetstream_no_stream``: a plain NATS publish, never counted), another stream
(``jetstream_wrong_stream``) and other JetStream errors are rejections; no PubAck in time or a
lost connection after the publish is unknown.
"""

from __future__ import annotations

import asyncio
import contextlib
import ssl
import time
from asyncio import FIRST_COMPLETED
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import nats.errors
import nats.js.errors
import structlog
from nats.aio.client import Client as NATS
from nats.aio.client import RawCredentials

from ...egress.addresses import format_ip
from ...egress.policy import Vetting
from ..brokers.bounds import ByteBudget, LimitCode, NatsLines, PeerLimit
from ..brokers.evidence import BrokerCode, BrokerEvidence, BrokerOutcome, JetStreamAck
from ..brokers.guarded import Guard
from ..brokers.message import BrokerMessage
from ..brokers.net import BrokerFailure, BrokerNet, failed_evidence, scrub, unforeseen
from ..brokers.pool import BrokerPool, BrokerPoolLimits, PoolKey
from ..brokers.spec import BrokerCredentials, Destination
from .socket_relay import NatsRelay

__all__ = ["NatsPublisher"]

log = structlog.get_logger("hookproof.destinations")

_WRONG_STREAM = 10060  # JetStream: "expected stream does not match"
#: how long a publish may still get its PubAck after the broker closed the connection
_LAST_WORDS_S = 0.5


@dataclass(eq=False)
class _NatsConnection:
    client: Any  # nats.aio.client.Client
    js: Any  # its JetStreamContext
    peer: tuple[str, int]
    allowance: bool
    relay: NatsRelay
    guard: Guard
    opened_at: float = 0.0
    last_used: float = 0.0
    publishes: int = 0

    def is_open(self) -> bool:
        return bool(self.client.is_connected) and not self.relay.ended.done()

    async def close(self) -> None:
        try:
            if not self.client.is_closed:
                async with asyncio.timeout(2.0):
                    await self.client.close()
        finally:
            await self.relay.close()


class NatsPublisher:
    """JetStream publishes acknowledged by the declared stream."""

    def __init__(
        self,
        net: BrokerNet,
        *,
        limits: BrokerPoolLimits | None = None,
        timeout_s: float = 10.0,
    ) -> None:
        self.net = net
        self.timeout_s = timeout_s
        self.brokers: BrokerPool[_NatsConnection] = BrokerPool(limits)

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
        """Publish *message* and return JetStream's answer as evidence (never raises for a
        network or broker outcome)."""
        if dest.type != "nats":
            raise ValueError("not a NATS destination")
        started = time.monotonic()
        secrets = credentials.secrets() if credentials else ()
        state: dict[str, Any] = {"published": False, "owner": owner}
        vetting: Vetting | None = None
        try:
            vetting = await self.net.vet(dest, pinned, state)
            conn, key, reused = await self._connection(
                dest, credentials, credentials_digest, vetting, state
            )
            ack = await self._send(dest, message, conn, key, state)
        except BrokerFailure as exc:
            failure = exc
        except Exception as exc:  # a library error we did not foresee: never accepted
            failure = unforeseen(exc, state["published"], secrets)
        else:
            return BrokerEvidence(
                outcome=BrokerOutcome.ACCEPTED,
                code=None,
                type="nats",
                destination=dest.uri,
                message_id=message.message_id,
                jetstream=ack,
                published=True,
                resolved=tuple(format_ip(a) for a in vetting.addresses),
                peer_address=conn.peer[0],
                peer_port=conn.peer[1],
                tls=dest.tls,
                allowance_used=conn.allowance,
                reused=reused,
                credentials_digest=credentials_digest,
                drift=state.get("drift"),
                elapsed_s=time.monotonic() - started,
            )
        return failed_evidence(
            "nats",
            dest,
            message.message_id,
            failure,
            state,
            vetting,
            credentials_digest,
            started,
            secrets,
            jetstream=state.get("ack"),
        )

    async def _connection(
        self,
        dest: Destination,
        credentials: BrokerCredentials | None,
        credentials_digest: str | None,
        vetting: Vetting,
        state: dict[str, Any],
    ) -> tuple[_NatsConnection, PoolKey, bool]:
        addresses = self.net.first_vetted(dest, vetting)
        keys = [
            PoolKey(
                "nats", a, dest.port, dest.tls, dest.host, None, credentials_digest, state["owner"]
            )
            for a in addresses
        ]
        key = next((k for k in keys if self.brokers.holds(k)), keys[0])
        conn, reused = await self.brokers.acquire(
            key, lambda: self._open(dest, credentials, vetting)
        )
        state["conn"], state["reused"] = conn, reused
        return conn, key, reused

    async def _open(
        self, dest: Destination, credentials: BrokerCredentials | None, vetting: Vetting
    ) -> _NatsConnection:
        """The broker's socket opened by the engine (bounded, :mod:`.socket_relay`), nats-py
        connected to it through the relay within ``limits.handshake_s``."""
        limits = self.net.limits
        guard = Guard(
            NatsLines(
                max_payload=limits.nats_max_payload,
                control_line=limits.nats_control_line,
                info_line=limits.nats_info_line,
            ).feed,
            ByteBudget(limits.budget_base),
        )
        upstream = await self.net.open_stream(
            dest,
            vetting,
            guard,
            limit=2 * limits.nats_info_line,
            server_first=not dest.tls,  # plain NATS sends INFO first; TLS-first waits
        )
        relay = NatsRelay(upstream)
        secrets = credentials.secrets() if credentials else ()

        async def on_error(exc: Exception) -> None:
            log.info("broker_nats_error", error=type(exc).__name__)

        options: dict[str, Any] = {
            "servers": [await relay.start()],
            "name": "hookproof",
            "allow_reconnect": False,
            "max_reconnect_attempts": 0,
            "connect_timeout": max(1, int(limits.handshake_s + 1)),
            "dont_randomize": True,
            "no_echo": True,
            "error_cb": on_error,
        }
        if credentials is not None:
            if credentials.token is not None:
                options["token"] = credentials.token
            elif credentials.creds is not None:
                options["user_credentials"] = RawCredentials(credentials.creds)
            else:
                options["user"] = credentials.username
                options["password"] = credentials.password
        client = NATS()
        connecting = asyncio.ensure_future(client.connect(**options))
        try:
            async with asyncio.timeout(limits.handshake_s):
                first: set[asyncio.Future[Any]] = {connecting, relay.ended}
                await asyncio.wait(first, return_when=FIRST_COMPLETED)
                refused = relay.ended.result() if relay.ended.done() else None
                if refused is not None and not connecting.done():  # a bound ended it first
                    connecting.cancel()
                    with contextlib.suppress(BaseException):
                        await connecting
                    raise refused
                await connecting  # the broker's own answer (a -ERR, or its leaving)
        except BaseException as exc:
            if not connecting.done():
                connecting.cancel()
            with contextlib.suppress(BaseException):
                await connecting  # its own failure is retrieved here
            # a failed connect may leave tasks behind; nats-py's close can then wait on tasks
            # that never started, hence the bound
            with contextlib.suppress(Exception):
                async with asyncio.timeout(1.0):
                    await client.close()
            await relay.close()
            if isinstance(exc, PeerLimit):
                raise BrokerFailure(exc.code.value, BrokerOutcome.NOT_SENT, exc.detail) from exc
            if isinstance(exc, TimeoutError):
                raise BrokerFailure(
                    LimitCode.HANDSHAKE_TIMEOUT.value,
                    BrokerOutcome.NOT_SENT,
                    "no NATS INFO / PONG within the handshake deadline",
                ) from exc
            if isinstance(exc, Exception):
                raise self._connect_failure(exc, secrets) from exc
            raise
        peer = upstream.peer
        allowance = peer in self.net.policy.allow_pairs
        return _NatsConnection(
            client,
            client.jetstream(timeout=self.timeout_s),
            (format_ip(peer[0]), peer[1]),
            allowance,
            relay,
            guard,
        )

    async def _acked(
        self, conn: _NatsConnection, dest: Destination, body: bytes, headers: dict[str, str]
    ) -> Any:
        """JetStream's answer to the publish, or the bound that ended the connection first
        (raised: :class:`PeerLimit`; a broker that left is nats-py's own error)."""
        publishing = asyncio.ensure_future(
            conn.js.publish(
                dest.subject,
                body,
                timeout=self.timeout_s,
                stream=dest.stream,
                headers=headers,
            )
        )
        await asyncio.wait({publishing, conn.relay.ended}, return_when=FIRST_COMPLETED)
        if not publishing.done():  # the connection ended first
            refused = conn.relay.ended.result()
            if refused is None:  # the broker left: what it sent before reaches nats-py
                await asyncio.wait({publishing}, timeout=_LAST_WORDS_S)
            if not publishing.done():
                publishing.cancel()
                with contextlib.suppress(BaseException):
                    await publishing
                raise refused or nats.errors.ConnectionClosedError()
        return publishing.result()

    @staticmethod
    def _connect_failure(exc: Exception, secrets: tuple[str, ...]) -> BrokerFailure:
        """A failed NATS connect as a failure (no message was published)."""
        if (
            isinstance(exc, nats.errors.AuthorizationError)
            or "authorization violation" in str(exc).lower()
        ):
            return BrokerFailure(
                BrokerCode.BROKER_AUTH_FAILED.value,
                BrokerOutcome.REJECTED,
                "the broker refused the credentials",
            )
        if isinstance(exc, TimeoutError):
            return BrokerFailure(
                "connect_timeout", BrokerOutcome.NOT_SENT, "NATS connect timed out"
            )
        code = "tls_error" if isinstance(exc, ssl.SSLError) else "connect_failed"
        return BrokerFailure(
            code,
            BrokerOutcome.NOT_SENT,
            scrub(f"NATS connect: {type(exc).__name__}: {exc}", secrets),
        )

    async def _send(
        self,
        dest: Destination,
        message: BrokerMessage,
        conn: _NatsConnection,
        key: PoolKey,
        state: dict[str, Any],
    ) -> JetStreamAck:
        headers = dict(message.headers)
        headers["Nats-Msg-Id"] = message.message_id
        assert dest.subject is not None and dest.stream is not None
        # what the broker may send back for this publish: its PubAck
        conn.guard.budget.grant(self.net.limits.budget_per_publish)
        state["published"] = True
        try:
            ack = await self._acked(conn, dest, message.body, headers)
        except PeerLimit as exc:
            self.brokers.discard(key, conn, exc.code.value)
            raise BrokerFailure(exc.code.value, BrokerOutcome.UNKNOWN, exc.detail) from exc
        except nats.js.errors.NoStreamResponseError as exc:
            raise BrokerFailure(
                BrokerCode.JETSTREAM_NO_STREAM.value,
                BrokerOutcome.REJECTED,
                "no JetStream stream took the subject (no acknowledgement)",
            ) from exc
        except nats.js.errors.APIError as exc:
            wrong = exc.err_code == _WRONG_STREAM
            raise BrokerFailure(
                BrokerCode.JETSTREAM_WRONG_STREAM.value
                if wrong
                else BrokerCode.JETSTREAM_ERROR.value,
                BrokerOutcome.REJECTED,
                f"JetStream: code={exc.code} err_code={exc.err_code} {str(exc.description)[:200]}",
            ) from exc
        except (nats.errors.TimeoutError, TimeoutError) as exc:
            self.brokers.discard(key, conn, "confirm_timeout")
            raise BrokerFailure(
                BrokerCode.CONFIRM_TIMEOUT.value,
                BrokerOutcome.UNKNOWN,
                f"no PubAck within {self.timeout_s:g} s",
            ) from exc
        except (nats.errors.Error, OSError) as exc:
            self.brokers.discard(key, conn, "connection_lost")
            raise BrokerFailure(
                BrokerCode.CONNECTION_LOST.value,
                BrokerOutcome.UNKNOWN,
                f"the connection ended before the PubAck ({type(exc).__name__})",
            ) from exc
        got = JetStreamAck(
            stream=str(ack.stream),
            seq=int(ack.seq),
            duplicate=bool(ack.duplicate),
            domain=ack.domain,
        )
        if got.stream != dest.stream:
            state["ack"] = got
            raise BrokerFailure(
                BrokerCode.JETSTREAM_WRONG_STREAM.value,
                BrokerOutcome.REJECTED,
                "the PubAck came from another stream",
            )
        return got
