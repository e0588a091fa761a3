"""Operator notifications: the engine's own events, delivered through the same ledger."""

from .decide import (
    CAUSE_TYPES,
    DEAD_LETTERED,
    DRIFT_DETECTED,
    KEY_COMPROMISED,
    NOTIFICATION_TOPICS,
    ROLLOUT_PAUSED,
    SUSPENDED,
    Cause,
    cause_of,
    is_notification_topic,
    names_notifications,
)
from .service import Notifier

__all__ = [
    "CAUSE_TYPES",
    "DEAD_LETTERED",
    "DRIFT_DETECTED",
    "KEY_COMPROMISED",
    "NOTIFICATION_TOPICS",
    "ROLLOUT_PAUSED",
    "SUSPENDED",
    "Cause",
    "Notifier",
    "cause_of",
    "is_notification_topic",
    "names_notifications",
]
