"""The eventIds of test events (``POST /v1/subscriptions/{id}/test-events``): a reserved
space, so a delivery whose event id starts with :data:`TEST_EVENT_PREFIX` is a test in every
view of the log, and no tenant's own event can pass for one (pure)."""

from __future__ import annotations

from hookproof.errors import ValidationError

# one definition, the SDK's: its receivers confirm such an event without applying it
from hookproof_subscriber.applier import TEST_EVENT_PREFIX

__all__ = ["TEST_EVENT_PREFIX", "check_event_id_space", "is_test_event"]


def is_test_event(event_id: str) -> bool:
    return event_id.startswith(TEST_EVENT_PREFIX)


def check_event_id_space(event_id: str, test: bool) -> None:
    """A test event's id is in the reserved space, any other event's is not
    (``reserved_event_id``)."""
    if test != is_test_event(event_id):
        raise ValidationError(
            f"eventIds starting {TEST_EVENT_PREFIX!r} are reserved for test events",
            field="eventId",
            code="reserved_event_id",
        )
