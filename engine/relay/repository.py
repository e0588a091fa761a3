"""The relay's tables and its LISTEN connection (``0935_relay.sql``; queries ``relay_*``)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, Final

import asyncpg

from ..db.queries import ENGINE_QUERIES
from ..db.repository import PoolRepository, Record

__all__ = ["CHANNEL", "RelayRepository"]

#: the NOTIFY channel of every relay handoff (``q:``, ``r:``, ``x:`` payloads)
CHANNEL: Final = "hookproof_relay"

SQL = ENGINE_QUERIES.named(
    "relay_session_attach",
    "relay_session_detach",
    "relay_exchange_open",
    "relay_exchange_take",
    "relay_exchange_report",
    "relay_exchange_peek",
    "relay_exchange_close",
)


class RelayRepository(PoolRepository):
    async def listen(
        self,
        on_notify: Callable[..., object],
        on_lost: Callable[[asyncpg.Connection], object],
    ) -> tuple[asyncpg.Connection, int]:
        """A pooled connection LISTENing on :data:`CHANNEL`, and its backend pid."""
        conn = await self.pool.acquire()
        try:
            await conn.add_listener(CHANNEL, on_notify)
            conn.add_termination_listener(on_lost)
        except BaseException:
            await self.pool.release(conn)
            raise
        return conn, conn.get_server_pid()

    async def unlisten(self, conn: asyncpg.Connection, on_notify: Callable[..., object]) -> None:
        try:
            if not conn.is_closed():
                await conn.remove_listener(CHANNEL, on_notify)
        finally:
            await self.pool.release(conn)

    async def attach(
        self, subscription_id: str, session_id: str, tenant_id: str, pid: int
    ) -> str | None:
        """The session replaced by this attach, if any."""
        row = await self.pool.fetchrow(
            SQL["relay_session_attach"], subscription_id, session_id, tenant_id, pid
        )
        return None if row is None else str(row["replaced"])

    async def detach(self, session_id: str) -> None:
        await self.pool.execute(SQL["relay_session_detach"], session_id)

    async def open(
        self,
        exchange_id: str,
        subscription_id: str,
        delivery_id: str,
        attempt: int,
        kind: str,
        headers: dict[str, str],
        body: bytes,
    ) -> str | None:
        """The session the exchange went to, or None: no relay attached."""
        row = await self.pool.fetchrow(
            SQL["relay_exchange_open"],
            exchange_id,
            subscription_id,
            delivery_id,
            attempt,
            kind,
            json.dumps(headers),
            body,
        )
        return None if row is None else str(row["session_id"])

    async def take(self, exchange_id: str, session_id: str) -> Record | None:
        return await self.pool.fetchrow(SQL["relay_exchange_take"], exchange_id, session_id)

    async def report(
        self,
        exchange_id: str,
        session_id: str,
        delivery_id: str,
        attempt: int,
        status: int | None,
        error: str | None,
        body: bytes,
        content_type: str | None,
        answered_by: str | None = None,
    ) -> bool:
        row = await self.pool.fetchrow(
            SQL["relay_exchange_report"],
            exchange_id,
            session_id,
            delivery_id,
            attempt,
            status,
            error,
            body,
            content_type,
            answered_by,
        )
        return row is not None

    async def reported(self, exchange_id: str) -> bool:
        return bool(await self.pool.fetchval(SQL["relay_exchange_peek"], exchange_id))

    async def close(self, exchange_id: str) -> dict[str, Any] | None:
        row = await self.pool.fetchrow(SQL["relay_exchange_close"], exchange_id)
        return None if row is None else dict(row)
