"""One exchange's bytes: :class:`WireAdapter` sends one request under one :class:`Attempt`
(DESIGN.md section 5) over a connection the pool hands out (:class:`.pool.Connector`).

The pieces: the per-request context (:mod:`.context`), the vetting resolver and socket guard
(:mod:`.guard`), the pool and its rules (:mod:`.pool`), the request head (:mod:`.head`), the
connection and its state table (:mod:`.connection`, :mod:`.machine`), the answer's byte budget
(:mod:`.budget`, :mod:`.reader`) and the classification of failures (:mod:`.errors`). The
adapter writes the head and body in one TLS record and reads the answer to its framed end; the
connection goes back to the pool only if the exchange ended cleanly
(:meth:`.connection.HttpConnection.reusable`).

No redirect is followed, no proxy is read from the environment, nothing is decompressed; time
(the attempt's deadline, the connect timeout) and the response body are bounded. Nothing here
decides policy: the transport vets, the adapter only refuses what was not vetted.
"""

from __future__ import annotations

import asyncio
import ssl
from typing import Final

from ..common.memo import BoundedMemo
from .addresses import IPAddress
from .connection import Response
from .context import CURRENT, Attempt
from .errors import Refusal, classify_exception
from .failures import FailureCode
from .guard import VettedResolver, guarded_socket
from .head import Target, request_head
from .pool import Connector, PoolLimits
from .proxy import EgressProxy

__all__ = [
    "Attempt",
    "Connector",
    "Refusal",
    "VettedResolver",
    "WireAdapter",
    "classify_exception",
    "guarded_socket",
    "request_head",
]

#: The old name of :class:`.head.Target` (tests and benches import it from here).
_Target = Target


#: URL targets kept per worker (~1 KiB each): as many as the HTTPS destination's subscription
#: states (engine/destinations/https/adapter.py), so a fan-out to 10,000 sites does not keep
#: one per URL.
_TARGET_MEMO: Final = 2_048


def _text(raw: bytes) -> str:
    return raw.decode("utf-8", "surrogateescape")


class WireAdapter:
    """One :class:`Connector`; :meth:`send` moves one request's bytes over the connection it
    hands out (pooled or new) and reads the answer to its framed end."""

    def __init__(
        self,
        ssl_ctx: ssl.SSLContext,
        *,
        limits: PoolLimits,
        max_connections: int,
        connect_timeout_s: float,
        max_response_bytes: int,
        allow_pairs: frozenset[tuple[IPAddress, int]] = frozenset(),
        proxy: EgressProxy | None = None,
    ) -> None:
        self._ssl = ssl_ctx
        self.proxy = proxy
        self.allow_pairs = allow_pairs
        self.limits = limits
        self.max_connections = max_connections
        self.max_response_bytes = max_response_bytes
        self._connect_timeout_s = connect_timeout_s
        self._targets: BoundedMemo[str, Target] = BoundedMemo(_TARGET_MEMO)
        self._slots: asyncio.Semaphore | None = None
        self.connector: Connector | None = None

    def start(self) -> None:
        if self.connector is not None:
            return
        self.connector = Connector(
            limits=self.limits,
            ssl_ctx=self._ssl,
            connect_timeout_s=self._connect_timeout_s,
            allow_pairs=self.allow_pairs,
            proxy=self.proxy,
        )
        self._slots = asyncio.Semaphore(self.max_connections)

    async def close(self) -> None:
        connector, self.connector = self.connector, None
        if connector is not None:
            await connector.close()

    def _target(self, url: str) -> Target:
        target = self._targets.get(url)
        if target is None:
            target = Target(url)
            self._targets.put(url, target)
        return target

    async def send(self, attempt: Attempt, body: bytes, headers: list[tuple[str, str]]) -> None:
        """POST under ``attempt`` (set as the current attempt around the request); what came
        back is recorded on ``attempt``."""
        assert self.connector is not None and self._slots is not None
        token = CURRENT.set(attempt)
        try:
            await self._post(attempt, body, headers)
        finally:
            CURRENT.reset(token)
        if attempt.facts is not None:
            attempt.facts.last_used = asyncio.get_running_loop().time()

    async def _post(self, attempt: Attempt, body: bytes, headers: list[tuple[str, str]]) -> None:
        loop = asyncio.get_running_loop()
        slots = self._slots
        assert slots is not None
        # the deadline covers waiting for a slot, connecting, writing and reading the whole
        # body: the time left until the attempt's deadline (DNS already took its share)
        try:
            async with asyncio.timeout_at(max(attempt.deadline, loop.time() + 0.001)):
                async with slots:
                    await self._exchange(attempt, headers, body)
        except Exception as exc:  # classified into a stable code below
            attempt.code, attempt.detail = classify_exception(
                attempt, exc, attempt.head_at is not None
            )
            return
        if attempt.location is not None and attempt.code is None:
            attempt.code = FailureCode.REDIRECT
            attempt.detail = f"redirect to {attempt.location!r}"

    async def _exchange(
        self, attempt: Attempt, headers: list[tuple[str, str]], body: bytes
    ) -> None:
        connector = self.connector
        assert connector is not None
        target = self._target(attempt.endpoint.url)
        conn = await connector.acquire(target, attempt)
        response: Response | None = None
        try:
            # an invalid field fails here, connected and before a byte is written
            head = request_head(target, headers, len(body), close=not self.limits.enabled)
            response = conn.start(self.max_response_bytes)
            attempt.headers_sent = True  # from here on the request may have started
            conn.write(head + body)  # one TLS record, one send for a webhook body
            while conn.paused and not conn.finished and not conn.lost:
                await conn.wait()
            if not conn.paused and not conn.lost:
                attempt.body_sent = attempt.body_len
                attempt.written_at = attempt.now()
            while not conn.finished:
                await conn.wait()
            if response.head_at is not None:
                attempt.head_at = response.head_at - attempt.t0
            if response.status is not None:
                attempt.status = status = response.status
                attempt.headers = tuple((_text(n), _text(v)) for n, v in response.headers)
                if 300 <= status < 400:
                    attempt.location = next(
                        (v for n, v in attempt.headers if n.lower() == "location"), ""
                    )
            if response.too_large is not None:
                attempt.chunks = response.chunks
                attempt.code = FailureCode.RESPONSE_TOO_LARGE
                attempt.detail = response.too_large
                return
            if response.error is not None:
                raise response.error
            attempt.chunks = response.chunks
        finally:
            if response is not None:
                attempt.received = response.received
                attempt.truncated = response.truncated
            conn.end()
            connector.release(conn)
