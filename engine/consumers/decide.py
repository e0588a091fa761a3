"""Pure decisions for consumers: ``decide(state, command, now) -> events`` or a rejection."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from hookproof.errors import ConflictError, NotFound
from hookproof.events import Event
from hookproof.events.consumer_events import ConsumerCreated, ConsumerDisabled, ConsumerUpdated
from hookproof.projections.consumers import ConsumerState

__all__ = ["Command", "ConsumerNotFound", "Create", "Disable", "Update", "decide"]


class ConsumerNotFound(NotFound):
    code = "consumer_not_found"


@dataclass(frozen=True)
class Create:
    tenant_id: str
    consumer_id: str
    name: str
    metadata: dict[str, Any]


@dataclass(frozen=True)
class Update:
    name: str | None = None
    metadata: dict[str, Any] | None = None


@dataclass(frozen=True)
class Disable:
    reason: str | None = None


Command = Create | Update | Disable


def decide(state: ConsumerState | None, command: Command, now: datetime) -> list[Event]:
    at = now.isoformat()
    if isinstance(command, Create):
        if state is not None:
            raise ConflictError(
                "a consumer with this id exists", code="consumer_exists", id=command.consumer_id
            )
        return [
            ConsumerCreated(
                tenant_id=command.tenant_id,
                consumer_id=command.consumer_id,
                name=command.name,
                metadata=command.metadata,
                at=at,
            )
        ]
    if state is None:
        raise ConsumerNotFound("no such consumer")
    if isinstance(command, Update):
        name = state.name if command.name is None else command.name
        metadata = state.metadata if command.metadata is None else command.metadata
        changed = [
            f
            for f, new, old in (("name", name, state.name), ("metadata", metadata, state.metadata))
            if new != old
        ]
        if not changed:
            return []
        return [
            ConsumerUpdated(
                tenant_id=state.tenant_id,
                consumer_id=state.consumer_id,
                name=name,
                metadata=metadata,
                changed=changed,
                at=at,
            )
        ]
    if state.disabled:  # disabling twice changes nothing
        return []
    return [
        ConsumerDisabled(
            tenant_id=state.tenant_id, consumer_id=state.consumer_id, reason=command.reason, at=at
        )
    ]
