"""Pure decisions for the event catalogue: ``decide(head, command) -> events`` or a rejection.

The service checks and compiles the definition first (``definition.check``); here only what
the stream's head decides: a definition equal to the current one is no change (no event), an
``If-Match`` version that is not the head's is refused.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from hookproof.errors import PreconditionFailed
from hookproof.events.event_type_events import EventTypeDefined, EventTypeVersion

if TYPE_CHECKING:
    from hookproof.events import RecordedEvent

__all__ = ["Define", "Head", "decide", "head_of"]


@dataclass(frozen=True)
class Head:
    """What the stream says now: its version and the digest of its definition."""

    version: int
    digest: str


def head_of(events: Sequence[RecordedEvent]) -> Head | None:
    """The fold of an ``event-type-...`` stream: its last definition's version and digest
    (None: never defined). Only that last event is decoded."""
    if not events:
        return None
    last = events[-1]
    defined = last.decode()
    assert isinstance(defined, EventTypeDefined)
    return Head(last.stream_version, defined.digest)


@dataclass(frozen=True)
class Define:
    tenant_id: str
    topic: str
    description: str
    versions: dict[str, tuple[Any, Any]]  # major -> (schema, example), already checked
    deprecated: bool
    digest: str
    at: str
    expected_version: int | None = None  # If-Match


def decide(head: Head | None, command: Define) -> list[EventTypeDefined]:
    current = head.version if head is not None else 0
    if command.expected_version is not None and command.expected_version != current:
        raise PreconditionFailed(
            f"the event type is at version {current}, not {command.expected_version}",
            code="version_mismatch",
            currentVersion=current,
            etag=f'"{current}"',
        )
    if head is not None and head.digest == command.digest:
        return []
    return [
        EventTypeDefined(
            tenant_id=command.tenant_id,
            topic=command.topic,
            description=command.description,
            versions={
                m: EventTypeVersion(schema=s, example=e)
                for m, (s, e) in sorted(command.versions.items(), key=lambda kv: int(kv[0]))
            },
            deprecated=command.deprecated,
            digest=command.digest,
            at=command.at,
        )
    ]
