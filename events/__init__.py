"""The event catalogue and the append-only event store."""

from . import (
    archive_events,
    consumer_events,
    delivery_events,
    key_events,
    rollout_events,
    subscription_events,
)
from .catalogue import (
    Event,
    MalformedEvent,
    UnknownEventType,
    decode_event,
    encode_event,
    event_class,
    event_types,
    upcaster,
)
from .chain import BrokenLink, event_hash, verify_chain
from .store import (
    ANY,
    NO_STREAM,
    ArchiveSource,
    EventStore,
    ExpectedVersion,
    Metadata,
    Position,
    RecordedEvent,
    StreamAppend,
    category_of,
)

__all__ = [
    "ANY",
    "NO_STREAM",
    "ArchiveSource",
    "BrokenLink",
    "Event",
    "EventStore",
    "ExpectedVersion",
    "MalformedEvent",
    "Metadata",
    "Position",
    "RecordedEvent",
    "StreamAppend",
    "UnknownEventType",
    "archive_events",
    "category_of",
    "consumer_events",
    "decode_event",
    "delivery_events",
    "encode_event",
    "event_class",
    "event_hash",
    "event_types",
    "key_events",
    "rollout_events",
    "subscription_events",
    "upcaster",
    "verify_chain",
]
