"""A repost that omits ``occurredAt``: compared with the time its event was stored with.

The engine fills an omitted ``occurredAt`` with the time it accepts the event, so the same
event posted again without one (a retry from another process, an SDK that never pins a time)
would otherwise differ from what was stored by that time alone and be a payload conflict.
Omitting ``occurredAt`` never makes a conflict; a value the sender sets is compared as sent.
"""

from __future__ import annotations

from typing import Any, Protocol, Self, TypeVar

from hookproof.schemas.api import EventIn

from .ingest_repository import Connection, IngestRepository

__all__ = ["with_stored_times"]


class _Posted(Protocol):
    @property
    def key(self) -> tuple[str, str]: ...

    @property
    def tenant_id(self) -> str: ...

    @property
    def event(self) -> EventIn: ...

    @property
    def digest(self) -> str: ...

    @property
    def filled(self) -> bool: ...

    def at_time(self, occurred_at: str) -> Self: ...


Item = TypeVar("Item", bound=_Posted)


async def with_stored_times(
    repo: IngestRepository, conn: Connection, again: list[Item], stored: dict[Any, Any]
) -> list[Item]:
    """``again`` (events already stored, ``stored`` their rows by key), each one that omitted
    ``occurredAt`` and differs only by it re-made with the stored time (body and digest)."""
    odd = [it for it in again if it.filled and stored[it.key]["payload_digest"] != it.digest]
    if not odd:
        return again
    rows = await repo.occurred_at(
        conn, [it.tenant_id for it in odd], [it.event.event_id for it in odd]
    )
    times = {(r["tenant_id"], r["event_id"]): r["occurred_at"] for r in rows}
    out = []
    for it in again:  # one item per key in a group: only the odd ones are in ``times``
        at = times.get(it.key) if it.filled else None
        out.append(it if at is None else it.at_time(at))
    return out
