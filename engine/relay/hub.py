"""Each worker's relay sessions, and the exchanges through them across workers.

``serve --workers N`` lands a relay's WebSocket on one worker while the attempt that must go
through it may be claimed on any other. The choice here: a Postgres handoff, the same for one
worker or many (``0935_relay.sql``): the claiming worker inserts the exchange (only if a live
session is attached) and NOTIFYs ``q:<session>:<exchange>`` on ``hookproof_relay``; the worker
holding the session takes the row, sends it over its WebSocket, and records the relay's
report on the row (same session, delivery id and attempt, not yet reported), NOTIFYing
``r:<exchange>``; the claiming worker then removes the row and reads what it held. A report
can land only on the exchange it names, and never after its waiter is gone: no report is
credited to another attempt.

Each hub holds one pooled connection LISTENing on the channel (taken on first use); a session
counts as attached while that connection's backend lives, so a crashed worker's sessions lapse
with it. Waiters also look at their row once a second, so a notification lost with a dropped
listener delays an answer, never loses it.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import secrets
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Final

import asyncpg
import structlog

from hookproof.errors import ValidationError

from ..common.budget import Bucket
from ..destinations.relay.codes import LOCAL_ERRORS, RelayCode
from ..destinations.relay.exchange import ExchangeResult
from . import protocol
from .limits import REPORT_BURST, REPORTS_PER_S, SessionBudget
from .repository import CHANNEL, RelayRepository

__all__ = [
    "CHANNEL",
    "REPORT_REFUSED",
    "ExchangeResult",
    "LocalSession",
    "RelayHub",
    "new_session_id",
]

log = structlog.get_logger("hookproof.relay")

#: how often a waiter looks at its row beside the notification (seconds)
POLL_S: Final = 1.0
#: the code of a report refused with its session (numbers no exchange can have)
REPORT_REFUSED: Final = "relay_report_out_of_range"


@dataclass(slots=True)
class LocalSession:
    """A relay WebSocket this worker holds: ``send`` one text frame, ``close`` it."""

    session_id: str
    subscription_id: str
    send: Callable[[str], Awaitable[None]]
    close: Callable[[str], Awaitable[None]]


class RelayHub:
    def __init__(self, repository: RelayRepository, *, report_timeout_s: float) -> None:
        self.repository = repository
        self.report_timeout_s = report_timeout_s
        self._listener: asyncpg.Connection | None = None
        self._pid: int | None = None
        self._lock = asyncio.Lock()
        self._sessions: dict[str, LocalSession] = {}
        self._waiters: dict[str, asyncio.Future[None]] = {}
        self._tasks: set[asyncio.Task[None]] = set()
        #: each tenant's report budget (over its sessions on this worker), each session's counts
        self._buckets: dict[str, Bucket] = {}
        self._budgets: dict[str, SessionBudget] = {}

    # -- the LISTEN connection -------------------------------------------------------------

    async def _ensure(self) -> int:
        async with self._lock:
            if self._listener is not None and not self._listener.is_closed():
                assert self._pid is not None
                return self._pid
            self._listener, self._pid = await self.repository.listen(self._on_notify, self._on_lost)
            return self._pid

    def _on_lost(self, conn: asyncpg.Connection) -> None:
        """The listener died: this worker's sessions no longer count as attached; end them
        (the CLI reconnects)."""
        if conn is self._listener:
            self._listener = None
            for session in list(self._sessions.values()):
                self._spawn(session.close("listener_lost"))

    def _on_notify(self, conn: object, pid: int, channel: str, payload: str) -> None:
        kind, _, rest = payload.partition(":")
        if kind == "r":
            waiter = self._waiters.get(rest)
            if waiter is not None and not waiter.done():
                waiter.set_result(None)
        elif kind == "q":
            session_id, _, exchange_id = rest.partition(":")
            session = self._sessions.get(session_id)
            if session is not None:
                self._spawn(self._forward(session, exchange_id))
        elif kind == "x":
            replaced = self._sessions.get(rest)
            if replaced is not None:
                self._spawn(replaced.close("replaced"))

    def _spawn(self, coro: Awaitable[None]) -> None:
        task: asyncio.Task[None] = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    # -- the holding side ------------------------------------------------------------------

    async def attach(self, subscription_id: str, tenant_id: str, session: LocalSession) -> None:
        """``session`` becomes the subscription's one attached relay (replacing any other)."""
        pid = await self._ensure()
        self._sessions[session.session_id] = session
        self._budgets[session.session_id] = SessionBudget(tenant_id)
        try:
            replaced = await self.repository.attach(
                subscription_id, session.session_id, tenant_id, pid
            )
        except BaseException:
            self._sessions.pop(session.session_id, None)
            self._budgets.pop(session.session_id, None)
            raise
        log.info(
            "relay_attached",
            subscription_id=subscription_id,
            session_id=session.session_id,
            replaced=replaced,
        )

    async def detach(self, session_id: str) -> None:
        """The session ended: not attached any more; its waiting exchanges end now."""
        session = self._sessions.pop(session_id, None)
        budget = self._budgets.pop(session_id, None)
        await self.repository.detach(session_id)
        if session is not None:
            log.info(
                "relay_detached",
                subscription_id=session.subscription_id,
                session_id=session_id,
                reports=budget.taken if budget else 0,
                dropped=budget.dropped if budget else 0,
                suppressed=budget.suppressed if budget else 0,
            )

    async def _forward(self, session: LocalSession, exchange_id: str) -> None:
        row = await self.repository.take(exchange_id, session.session_id)
        if row is None:  # taken already, or its waiter gave up
            return
        frame = protocol.RelayRequest(
            exchange_id=exchange_id,
            kind=row["kind"],
            delivery_id=row["delivery_id"],
            attempt=row["attempt"],
            headers=json.loads(row["headers"]),
            body=protocol.b64(bytes(row["body"])),
        )
        try:
            await session.send(protocol.encode(frame))
        except Exception as exc:  # the socket went: the session's end settles the exchange
            log.info("relay_send_failed", session_id=session.session_id, error=type(exc).__name__)

    def counts(self, session_id: str) -> dict[str, int]:
        """A live session's report counts: ``taken``, ``dropped`` (over the tenant's budget),
        ``suppressed`` (warning lines left out)."""
        b = self._budgets.get(session_id)
        return (
            {}
            if b is None
            else {"taken": b.taken, "dropped": b.dropped, "suppressed": b.suppressed}
        )

    def _admit(self, session_id: str) -> SessionBudget | None:
        """The session's budget when its tenant may send one more frame now, else None (the
        frame is dropped unread and counted)."""
        budget = self._budgets.get(session_id) or SessionBudget("")  # "": not attached here
        bucket = self._buckets.get(budget.tenant_id)
        if bucket is None:
            bucket = self._buckets[budget.tenant_id] = Bucket(REPORTS_PER_S, REPORT_BURST)
        if bucket.take(time.monotonic()):
            budget.taken += 1
            return budget
        budget.dropped += 1
        if budget.may_log(time.monotonic()):
            log.warning("relay_reports_dropped", session_id=session_id, dropped=budget.dropped)
        return None

    def _warn(self, budget: SessionBudget, event: str, **fields: object) -> None:
        if budget.may_log(time.monotonic()):
            log.warning(event, suppressed=budget.suppressed, **fields)

    async def report(self, session_id: str, raw: str | bytes) -> bool:
        """A report frame from ``session_id``'s relay: recorded on the one exchange it names
        if that exchange is this session's, of that delivery id and attempt, sent and not yet
        answered; otherwise dropped (False) and logged (a bounded number of lines). Frames
        over the tenant's budget are dropped unread; a report with numbers no exchange can
        have raises :class:`ValidationError` (``relay_report_out_of_range``): the caller
        closes the session."""
        budget = self._admit(session_id)
        if budget is None:
            return False
        try:
            rep = protocol.decode_report(raw)
        except ValueError as exc:
            self._warn(budget, "relay_frame_refused", session_id=session_id, error=str(exc)[:200])
            return False
        bad = protocol.out_of_range(rep)
        if bad is not None:
            log.warning("relay_report_refused", session_id=session_id, field=bad)
            raise ValidationError(
                f"a relay report's {bad} is out of range", field=bad, code=REPORT_REFUSED
            )
        status, error = rep.status, rep.error
        if status is not None and not 100 <= status <= 599:
            status, error = None, RelayCode.REPORT_INVALID.value
        if status is None and error not in LOCAL_ERRORS:
            error = RelayCode.REPORT_INVALID.value
        if status is not None:
            error = None
        body = b""
        if rep.body is not None:
            try:
                body = protocol.unb64(rep.body)[: protocol.MAX_REPORT_BODY]
            except ValueError:
                body = b""
        landed = await self.repository.report(
            rep.exchange_id,
            session_id,
            rep.delivery_id,
            rep.attempt,
            status,
            error,
            body,
            (rep.content_type or "")[:200] or None,
            rep.answered_by,
        )
        if not landed:
            self._warn(
                budget,
                "relay_report_unmatched",
                session_id=session_id,
                exchange_id=rep.exchange_id[:64],
                delivery_id=rep.delivery_id[:64],
                attempt=rep.attempt,
            )
            return False
        if rep.answered_by is not None:
            log.info(
                "relay_challenge_answered_by_cli",
                session_id=session_id,
                challenge_id=rep.delivery_id[:64],
            )
        return True

    # -- the claiming side -----------------------------------------------------------------

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
    ) -> ExchangeResult:
        """Send one request through the subscription's attached relay (any worker's) and wait
        a bounded time for its report."""
        await self._ensure()
        exchange_id = "rx_" + secrets.token_hex(12)
        loop = asyncio.get_running_loop()
        waiter: asyncio.Future[None] = loop.create_future()
        self._waiters[exchange_id] = waiter
        try:
            opened = await self.repository.open(
                exchange_id, subscription_id, delivery_id, attempt, kind, headers, body
            )
            if opened is None:
                return ExchangeResult(attached=False)
            deadline = time.monotonic() + (timeout_s or self.report_timeout_s)
            while (left := deadline - time.monotonic()) > 0:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(asyncio.shield(waiter), min(POLL_S, left))
                    break
                if await self.repository.reported(exchange_id):
                    break
            row = await self.repository.close(exchange_id)
        finally:
            self._waiters.pop(exchange_id, None)
        if row is None:  # never happens: only this waiter removes its row
            return ExchangeResult(attached=True, session_id=opened)
        return ExchangeResult(
            attached=True,
            session_id=row["session_id"],
            sent=row["sent"],
            reported=row["reported"],
            status=row["status"],
            error=row["error"],
            response=bytes(row["response"] or b""),
            response_type=row["response_type"],
            answered_by=row["answered_by"],
        )

    async def close(self) -> None:
        for session in list(self._sessions.values()):
            with contextlib.suppress(Exception):
                await session.close("shutdown")
            with contextlib.suppress(Exception):
                await self.detach(session.session_id)
        for task in list(self._tasks):
            task.cancel()
        conn, self._listener = self._listener, None
        if conn is not None:
            with contextlib.suppress(Exception):
                await self.repository.unlisten(conn, self._on_notify)


def new_session_id() -> str:
    return "rs_" + secrets.token_hex(12)
