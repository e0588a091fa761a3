"""Which database answers a read: the hot standby when it has the caller's own writes, else
the primary (docs/standby.md).

A write through the API notes the primary's WAL insert position for its tenant (and answers
it in ``Hookproof-Write-Position``); a read of that tenant (or one carrying the position back
in ``Hookproof-Read-After``, for a read that lands on another worker process) goes to the
standby once the standby has replayed past it, waiting at most ``HOOKPROOF_READ_WAIT_MS``,
else to the primary. A standby that cannot be reached is logged (``standby_unavailable``) and
left alone for :data:`RETRY_DOWN_S`; the primary answers meanwhile, never an error.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TypeVar

import asyncpg
import structlog

from hookproof.config import Settings
from hookproof.errors import StoreError
from hookproof.events import EventStore

from ..archive import SegmentArchive
from ..common.clock import Clock
from ..db.db_errors import database_unavailable
from ..delivery.log_repository import DeliveryLog
from ..delivery.repository import DeliveryRepository
from ..delivery.views import DeliveryReader
from ..subscriptions import SubscriptionService
from .repository import WalPositions

__all__ = ["RETRY_DOWN_S", "ReadRouter", "ReadSide"]

log = structlog.get_logger("hookproof.standby")

T = TypeVar("T")

#: how long a standby found unreachable is left alone before a read tries it again
RETRY_DOWN_S = 5.0
#: how often a read that waits for the standby asks how far it has replayed
POLL_S = 0.005
#: tenants whose last write position is remembered (the oldest are forgotten past it)
MAX_TENANTS = 100_000

_READ_ERRORS = (OSError, asyncpg.PostgresError, asyncpg.InterfaceError, StoreError)


@dataclass(frozen=True, slots=True)
class ReadSide:
    """The read services over one database: ``name`` is ``primary`` or ``standby``."""

    name: str
    store: EventStore
    subscriptions: SubscriptionService
    reader: DeliveryReader
    #: the delivery log's pages (``GET /v1/deliveries``)
    log: DeliveryLog


class ReadRouter:
    """Picks the side that answers each read (``standby`` None: always the primary)."""

    def __init__(
        self,
        primary: ReadSide,
        *,
        primary_positions: WalPositions | None = None,
        standby: ReadSide | None = None,
        standby_positions: WalPositions | None = None,
        wait_s: float = 0.25,
    ) -> None:
        self.primary = primary
        self.standby = standby
        self.primary_positions = primary_positions
        self.standby_positions = standby_positions
        self.wait_s = wait_s
        #: per tenant, the primary's WAL position after its last write through this process
        self.written: dict[str, int] = {}
        #: the standby's replay position when last asked (it only moves forward)
        self.replayed = 0
        self.down_until = 0.0

    @classmethod
    def with_standby(
        cls,
        primary: ReadSide,
        primary_pool: asyncpg.Pool,
        standby_pool: asyncpg.Pool,
        settings: Settings,
        clock: Clock,
    ) -> ReadRouter:
        """A router over ``primary`` and the standby ``standby_pool`` reaches: an event store
        (archived streams read back; it never appends), subscriptions and the ledger's reads."""
        store = EventStore(standby_pool, archive=SegmentArchive(settings.archive_dir))
        standby = ReadSide(
            name="standby",
            store=store,
            subscriptions=SubscriptionService(store, settings, clock=clock),
            reader=DeliveryReader(store, DeliveryRepository(standby_pool)),
            log=DeliveryLog(standby_pool),
        )
        log.info("standby_reads_configured", wait_ms=round(settings.read_wait_s * 1000))
        return cls(
            primary,
            primary_positions=WalPositions(primary_pool),
            standby=standby,
            standby_positions=WalPositions(standby_pool),
            wait_s=settings.read_wait_s,
        )

    @property
    def enabled(self) -> bool:
        return self.standby is not None

    async def note_write(self, tenant_id: str | None) -> int | None:
        """After a write committed: the primary's WAL position, remembered for ``tenant_id``
        (None without a standby, or when the primary could not say)."""
        if self.standby is None or self.primary_positions is None:
            return None
        try:
            position = await self.primary_positions.insert_position()
        except _READ_ERRORS as exc:  # the write stands; its reads go to the primary anyway
            log.warning("write_position_unknown", error=type(exc).__name__)
            return None
        if tenant_id is not None:
            if len(self.written) >= MAX_TENANTS and tenant_id not in self.written:
                self.written.pop(next(iter(self.written)))
            self.written[tenant_id] = max(position, self.written.get(tenant_id, 0))
        return position

    async def run(
        self,
        tenant_id: str | None,
        read: Callable[[ReadSide], Awaitable[T]],
        *,
        after: int | None = None,
    ) -> T:
        """``read`` on the standby when it has every write the caller must see (its tenant's
        last, and ``after``), else on the primary; a standby that fails mid-read is logged
        and the primary answers."""
        standby = self.standby
        if standby is None or not await self._caught_up(tenant_id, after):
            return await read(self.primary)
        try:
            return await read(standby)
        except _READ_ERRORS as exc:
            self._failed(exc)
            return await read(self.primary)

    async def _caught_up(self, tenant_id: str | None, after: int | None) -> bool:
        if time.monotonic() < self.down_until or self.standby_positions is None:
            return False
        need = max(self.written.get(tenant_id, 0) if tenant_id else 0, after or 0)
        if need <= self.replayed:
            return True
        deadline = time.monotonic() + self.wait_s
        while True:
            try:
                self.replayed = max(self.replayed, await self.standby_positions.replay_position())
            except _READ_ERRORS as exc:
                self._failed(exc)
                return False
            if need <= self.replayed:
                if tenant_id is not None and self.written.get(tenant_id, 0) <= self.replayed:
                    self.written.pop(tenant_id, None)
                return True
            if time.monotonic() >= deadline:
                log.info("standby_behind", behind_bytes=need - self.replayed, waited_s=self.wait_s)
                return False
            await asyncio.sleep(POLL_S)

    def _failed(self, exc: BaseException) -> None:
        """A standby read failed: unreachable, leave it alone a while; else this read only."""
        if database_unavailable(exc) is not None:
            if time.monotonic() >= self.down_until:
                log.warning(
                    "standby_unavailable",
                    error=type(exc).__name__,
                    fallback="primary",
                    retry_in_s=RETRY_DOWN_S,
                )
            self.down_until = time.monotonic() + RETRY_DOWN_S
        else:
            log.warning("standby_read_failed", error=type(exc).__name__, fallback="primary")
