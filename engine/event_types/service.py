"""The event catalogue: define a type (check, decide, append), read one, page through them.

A definition is appended to ``event-type-<tenant>-<topic>`` with the head's version as the
expected version (compare-and-set); the ``event_types`` row follows inline in the same
transaction. Reads are always scoped by the caller's tenant: another tenant's topic of the
same name is another row, never found.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Any

import msgspec

from hookproof.errors import ValidationError
from hookproof.events import EventStore, Metadata
from hookproof.events.command import execute
from hookproof.events.event_type_events import EventTypeDefined, event_type_stream_id
from hookproof.schemas.api import EventTypeIn

from . import definition
from .decide import Define, Head, decide, head_of
from .errors import EventTypeNotFound
from .offload import SchemaValidator
from .repository import EventTypeRepository

__all__ = [
    "MAX_EXPORT_BYTES",
    "MAX_TYPES_PER_TENANT",
    "EventTypeService",
    "EventTypeView",
]

#: event types one tenant may define (a new topic past it: 400 ``event_type_limit``)
MAX_TYPES_PER_TENANT = 1_000
#: definitions one OpenAPI export may hold (past it: 400 ``catalogue_too_large``)
MAX_EXPORT_BYTES = 32 * 1024 * 1024


@dataclass(frozen=True)
class EventTypeView:
    tenant_id: str
    topic: str
    description: str
    versions: dict[str, dict[str, Any]]  # major -> {"schema", "example"}
    deprecated: bool
    version: int
    digest: str
    created_at: datetime
    updated_at: datetime

    @staticmethod
    def of(row: Any) -> EventTypeView:
        doc = msgspec.json.decode(row["definition"])
        return EventTypeView(
            row["tenant_id"],
            row["topic"],
            doc["description"],
            doc["versions"],
            doc["deprecated"],
            row["stream_version"],
            row["digest"],
            row["created_at"],
            row["updated_at"],
        )


class EventTypeService:
    def __init__(
        self,
        store: EventStore,
        *,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
        repository: EventTypeRepository | None = None,
        validator: SchemaValidator | None = None,
    ) -> None:
        self.store = store
        self.repository = repository or EventTypeRepository.of(store)
        self.clock = clock
        #: validates the examples (off the loop when dear); shared with ingest's gate
        self.validator = validator or SchemaValidator()

    async def get(self, tenant_id: str, topic: str) -> EventTypeView:
        row = await self.repository.get(tenant_id, topic)
        if row is None:
            raise EventTypeNotFound("no such event type")
        return EventTypeView.of(row)

    async def page(
        self, tenant_id: str, limit: int, after: str | None = None
    ) -> tuple[list[EventTypeView], str | None]:
        """One page in topic order, and the topic to continue after when there is more."""
        rows = await self.repository.page(tenant_id, after, limit + 1)
        more = len(rows) > limit
        items = [EventTypeView.of(r) for r in rows[:limit]]
        return items, (items[-1].topic if more and items else None)

    async def all(self, tenant_id: str) -> list[EventTypeView]:
        """Every type of the tenant (the OpenAPI export), at most ``MAX_EXPORT_BYTES`` of
        definitions."""
        out: list[EventTypeView] = []
        after: str | None = None
        size = 0
        while True:
            rows = await self.repository.page(tenant_id, after, 101)
            for r in rows[:100]:
                size += len(r["definition"])
                if size > MAX_EXPORT_BYTES:
                    raise ValidationError(
                        f"the catalogue holds more than {MAX_EXPORT_BYTES} bytes of definitions: "
                        "read it with GET /v1/event-types pages",
                        code="catalogue_too_large",
                    )
                out.append(EventTypeView.of(r))
            if len(rows) <= 100:
                return out
            after = rows[99]["topic"]

    async def define(
        self,
        tenant_id: str,
        topic: str,
        body: EventTypeIn,
        *,
        actor: str,
        expected_version: int | None = None,
    ) -> tuple[EventTypeView, bool]:
        """Check, then append the definition unless it is the current one. Returns the type
        and whether this call changed it."""
        definition.check_topic(topic)
        checked = definition.check(body)  # compiles and prices every schema and example
        for major, compiled, example, encoded in checked.examples():
            errors = await self.validator.errors(compiled, example, encoded)
            if errors:
                raise definition.example_invalid(major, errors)
        if (
            await self.repository.get(tenant_id, topic) is None
            and await self.repository.count(tenant_id) >= MAX_TYPES_PER_TENANT
        ):
            raise ValidationError(
                f"a tenant has at most {MAX_TYPES_PER_TENANT} event types",
                field="topic",
                code="event_type_limit",
            )
        done = await execute(
            self.store,
            event_type_stream_id(tenant_id, topic),
            head_of,
            self._decide,
            Define(
                tenant_id,
                topic,
                checked.description,
                checked.versions,
                checked.deprecated,
                checked.digest,
                "",  # the time of the attempt that decides (``_decide``)
                expected_version,
            ),
            metadata=Metadata(actor=actor),
        )
        return await self.get(tenant_id, topic), done.changed

    def _decide(self, head: Head | None, command: Define) -> list[EventTypeDefined]:
        return decide(head, replace(command, at=self.clock().isoformat()))
