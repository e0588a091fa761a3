"""The event catalogue and the append-only event store."""

from . import delivery_events, subscription_events
from . import key_events

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
    EventStore,
    ExpectedVersion,
    Metadata,
    Position,
    RecordedEvent,
    StreamAppend,
    category_of,
)

__all__ = [
    "delivery_events",
    "subscription_events",
    "key_events",
    "ANY",
    "NO_STREAM",
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
    "category_of",
    "decode_event",
    "encode_event",
    "event_class",
    "event_hash",
    "event_types",
    "upcaster",
    "verify_chain",
]
