"""Consumers: fold the stream, decide, append with the stream version (compare-and-set)."""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import Any, cast

import asyncpg
import msgspec

from hookproof.errors import ValidationError
from hookproof.events import Event, EventStore, Metadata
from hookproof.events.canonical import canonical_json
from hookproof.events.command import execute
from hookproof.events.consumer_events import consumer_stream_id
from hookproof.projections.consumers import ConsumerState, fold_consumer
from hookproof.schemas.api import CONSUMER_ID_PATTERN, ConsumerCreate, ConsumerPatch

from ..subscriptions.validation import validate_text
from .decide import Command, ConsumerNotFound, Create, Disable, Update, decide
from .repository import ConsumerRepository

__all__ = [
    "CONSUMER_ID",
    "MAX_METADATA",
    "ConsumerDisabledError",
    "ConsumerService",
    "UnknownConsumer",
    "check_consumer_id",
]

#: what a consumer id may be (chosen by the tenant)
CONSUMER_ID = re.compile(CONSUMER_ID_PATTERN)
#: the largest ``metadata`` object, as canonical JSON
MAX_METADATA = 4096

#: ``(conn, tenant, consumer, at, actor)``: ends the consumer's portal sessions in the
#: transaction that disables it (the portal's ``PortalSessionEnds``, given at construction)
SessionCloser = Callable[[asyncpg.Connection, str, str, str, str], Awaitable[int]]


class UnknownConsumer(ValidationError):
    code = "unknown_consumer"


class ConsumerDisabledError(ValidationError):
    code = "consumer_disabled"


def check_consumer_id(value: Any, field: str = "id") -> str:
    """A consumer id in its format, else 400 ``invalid_id`` (before any query)."""
    if not isinstance(value, str) or not CONSUMER_ID.match(value):
        raise ValidationError(
            f"{field} must be 1..64 of [A-Za-z0-9._:-]", field=field, code="invalid_id"
        )
    return value


def _metadata(value: dict[str, Any]) -> dict[str, Any]:
    if len(canonical_json(value)) > MAX_METADATA:
        raise ValidationError(
            f"metadata is at most {MAX_METADATA} bytes of JSON",
            field="metadata",
            code="metadata_too_large",
        )
    return value


class ConsumerService:
    def __init__(
        self,
        store: EventStore,
        *,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
        repository: ConsumerRepository | None = None,
        session_closer: SessionCloser | None = None,
    ) -> None:
        self.store = store
        self.repository = repository or ConsumerRepository.of(store)
        self.clock = clock
        self.session_closer = session_closer

    # -- reads --------------------------------------------------------------------------

    async def load(self, tenant_id: str, consumer_id: str) -> ConsumerState | None:
        return fold_consumer(
            await self.store.read_stream(consumer_stream_id(tenant_id, consumer_id))
        )

    async def get(self, tenant_id: str, consumer_id: str) -> ConsumerState:
        """This tenant's consumer, else 404 ``consumer_not_found`` (the stream is per tenant,
        so another tenant's consumer of the same id is never read)."""
        check_consumer_id(consumer_id)
        state = await self.load(tenant_id, consumer_id)
        if state is None or state.tenant_id != tenant_id:
            raise ConsumerNotFound("no such consumer")
        return state

    async def require_enabled(self, tenant_id: str, consumer_id: Any, field: str) -> str:
        """A consumer a subscription may name: 400 ``unknown_consumer`` / ``consumer_disabled``."""
        check_consumer_id(consumer_id, field)
        state = await self.load(tenant_id, consumer_id)
        if state is None or state.tenant_id != tenant_id:
            raise UnknownConsumer("no consumer with this id", field=field)
        if state.disabled:
            raise ConsumerDisabledError("this consumer is disabled", field=field)
        return cast(str, consumer_id)

    async def page(
        self, tenant_id: str, limit: int, after: tuple[datetime, str] | None = None
    ) -> tuple[list[dict[str, Any]], tuple[datetime, str] | None]:
        rows = await self.repository.page(tenant_id, after, limit + 1)
        more = len(rows) > limit
        rows = rows[:limit]
        items = [row_view(r) for r in rows]
        nxt = (rows[-1]["created_at"], rows[-1]["consumer_id"]) if more and rows else None
        return items, nxt

    # -- writes -------------------------------------------------------------------------

    async def create(self, tenant_id: str, body: ConsumerCreate, *, actor: str) -> ConsumerState:
        cid = check_consumer_id(body.id)
        name = validate_text(body.name, "name")
        return await self.execute(
            tenant_id, cid, Create(tenant_id, cid, name, _metadata(body.metadata)), actor=actor
        )

    async def update(
        self, tenant_id: str, consumer_id: str, body: ConsumerPatch, *, actor: str
    ) -> ConsumerState:
        await self.get(tenant_id, consumer_id)
        name = None if body.name is msgspec.UNSET else validate_text(body.name, "name")
        metadata = None if body.metadata is msgspec.UNSET else _metadata(body.metadata)
        return await self.execute(tenant_id, consumer_id, Update(name, metadata), actor=actor)

    async def disable(
        self, tenant_id: str, consumer_id: str, *, actor: str, reason: str | None = None
    ) -> ConsumerState:
        """Disable; its portal sessions end in the same transaction."""
        await self.get(tenant_id, consumer_id)
        if reason is not None:
            reason = validate_text(reason, "reason", max_len=500)
        async with self.repository.transaction() as conn:
            state = await self.execute(
                tenant_id, consumer_id, Disable(reason), actor=actor, conn=conn
            )
            if self.session_closer is not None:
                await self.session_closer(
                    conn, tenant_id, consumer_id, self.clock().isoformat(), actor
                )
        return state

    async def execute(
        self,
        tenant_id: str,
        consumer_id: str,
        command: Command,
        *,
        actor: str,
        conn: asyncpg.Connection | None = None,
    ) -> ConsumerState:
        """Fold, decide, append with the stream version as expected; re-decide on a race (a
        lost create is ``consumer_exists``)."""
        done = await execute(
            self.store,
            consumer_stream_id(tenant_id, consumer_id),
            fold_consumer,
            self._decide,
            command,
            metadata=Metadata(actor=actor),
            conn=conn,
        )
        result = fold_consumer(done.history)
        assert result is not None
        return result

    def _decide(self, state: ConsumerState | None, command: Command) -> list[Event]:
        return decide(state, command, self.clock())


def state_view(s: ConsumerState) -> dict[str, Any]:
    return {
        "id": s.consumer_id,
        "tenantId": s.tenant_id,
        "name": s.name,
        "metadata": s.metadata,
        "state": "DISABLED" if s.disabled else "ACTIVE",
        "disabled": s.disabled,
        "version": s.version,
        "createdAt": s.created_at,
        "updatedAt": s.updated_at,
    }


def row_view(r: Any) -> dict[str, Any]:
    return {
        "id": r["consumer_id"],
        "tenantId": r["tenant_id"],
        "name": r["name"],
        "metadata": msgspec.json.decode(r["metadata"]),
        "state": "DISABLED" if r["disabled"] else "ACTIVE",
        "disabled": r["disabled"],
        "version": r["stream_version"],
        "createdAt": r["created_at"].isoformat(),
        "updatedAt": r["updated_at"].isoformat(),
    }
