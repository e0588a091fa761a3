"""Wake-ups from the log: a pooled connection LISTENing for appended events.

The one place outside the store that holds a LISTEN connection. ``refresh`` replaces it once
the server dropped it (a Postgres restart), so notifications wake the caller again.
"""

from __future__ import annotations

from collections.abc import Callable
from types import TracebackType

import asyncpg

from .store import NOTIFY_CHANNEL, EventStore

__all__ = ["Listening"]


class Listening:
    """``async with Listening(store, callback):`` LISTENs on the events channel with
    ``callback`` (acquired on entry, released on exit). ``on_lost`` hears the error of a
    listener that could not be removed on exit (the server dropped it)."""

    def __init__(
        self,
        store: EventStore,
        callback: Callable[..., object],
        *,
        on_lost: Callable[[BaseException], object] | None = None,
    ) -> None:
        self.store = store
        self.callback = callback
        self.on_lost = on_lost
        self._conn: asyncpg.Connection | None = None

    async def __aenter__(self) -> Listening:
        conn = self._conn = await self.store.pool.acquire()
        try:
            await conn.add_listener(NOTIFY_CHANNEL, self.callback)
        except BaseException:
            await self.__aexit__(None, None, None)
            raise
        return self

    async def refresh(self) -> None:
        """Listen again on a fresh connection if the server dropped this one; raises while
        the database is unreachable (the caller's tick fails and tries on the next one)."""
        assert self._conn is not None, "refresh() outside 'async with'"
        self._conn = await self.store.relisten(self._conn, self.callback)

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        conn, self._conn = self._conn, None
        if conn is None:
            return
        try:
            await conn.remove_listener(NOTIFY_CHANNEL, self.callback)
        except Exception as lost:  # a listener the server dropped (a restart)
            if self.on_lost is not None:
                self.on_lost(lost)
        finally:
            await self.store.pool.release(conn)
