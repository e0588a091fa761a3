"""Is a failure the database being unavailable (for now), not a bug? The adapters' one answer.

During a Postgres restart the driver raises many things: connection errors (SQLSTATE class
08), ``CannotConnectNowError`` and the shutdown errors (57), ``TooManyConnectionsError`` (53),
``InterfaceError``/``InternalClientError`` from a connection that died under it, ``OSError`` (a
refused port, a missing Unix socket) and pool acquire timeouts. A transaction the server
rolled back (40: serialization, deadlock) may be retried too. These become
:class:`~hookproof.errors.DatabaseUnavailable` (503, ``Retry-After``), keeping the original as
``__cause__``; anything else stays what it is.
"""

from __future__ import annotations

import traceback

import asyncpg

from hookproof.errors import DatabaseUnavailable

__all__ = ["database_unavailable", "from_driver"]

_TRANSIENT = (
    asyncpg.PostgresConnectionError,  # 08: the connection failed or does not exist
    asyncpg.OperatorInterventionError,  # 57: shutting down, cannot connect now
    asyncpg.InsufficientResourcesError,  # 53: too many connections, out of memory or disk
    asyncpg.InternalClientError,  # the protocol state of a connection that died mid-call
)
_ROLLED_BACK = asyncpg.TransactionRollbackError  # 40: serialization failure, deadlock
_CLOSED_WORDS = ("closed", "connection was", "pool is closing", "connection lost")


def from_driver(exc: BaseException) -> bool:
    """Raised from inside the database driver (some frame of its traceback is asyncpg's)."""
    return any(
        frame.f_globals.get("__name__", "").startswith("asyncpg")
        for frame, _ in traceback.walk_tb(exc.__traceback__)
    )


def _transient(exc: BaseException) -> bool:
    if isinstance(exc, (*_TRANSIENT, _ROLLED_BACK)):
        return True
    if isinstance(exc, asyncpg.InterfaceError):  # not e.g. a wrong argument count (a bug)
        return any(w in str(exc).lower() for w in _CLOSED_WORDS)
    if isinstance(exc, OSError):  # ConnectionError, a missing socket, TimeoutError
        return from_driver(exc)
    return False


def database_unavailable(exc: BaseException) -> DatabaseUnavailable | None:
    """The typed 503 for ``exc`` when it (or what it was raised from) says the database is
    unavailable for now; None otherwise."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, DatabaseUnavailable):
            return current
        if _transient(current):
            rolled_back = isinstance(current, _ROLLED_BACK)
            err = DatabaseUnavailable(
                "the database rolled the transaction back; retry"
                if rolled_back
                else "the database is unavailable for now; retry later",
                code="database_busy" if rolled_back else None,
            )
            if rolled_back:
                err.retry_after_s = 1
            err.__cause__ = exc
            return err
        current = current.__cause__ or current.__context__
    return None
