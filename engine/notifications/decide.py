"""Operator notifications as a pure decision: which log events are causes, and the business
event each cause becomes for one tenant. No I/O here (the service resolves tenants).

Topics (DESIGN section 11): ``hookproof.subscription.suspended``,
``hookproof.subscription.drift_detected``, ``hookproof.delivery.dead_lettered``,
``hookproof.key.compromised``, ``hookproof.rollout.paused``.

No loops: a dead letter of a delivery whose topic is itself a notification topic produces no
notification, and only the engine publishes under the reserved ``hookproof.`` prefix.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Final, cast

from hookproof.events import Event
from hookproof.events.delivery_events import DeadLettered
from hookproof.events.key_events import KeyRevoked, RevokeReason
from hookproof.events.rollout_events import RolloutPaused
from hookproof.events.subscription_events import DriftDetected, SubscriptionStateChanged

from ..challenge.disclosure import tenant_addresses, tenant_dead_letter_reason

__all__ = [
    "CAUSE_TYPES",
    "DEAD_LETTERED",
    "DRIFT_DETECTED",
    "KEY_COMPROMISED",
    "NOTIFICATION_PREFIX",
    "NOTIFICATION_TOPICS",
    "NOTIFICATION_VERSION",
    "ROLLOUT_PAUSED",
    "SUSPENDED",
    "Cause",
    "cause_of",
    "is_notification_topic",
    "names_notifications",
    "notification_event",
    "notification_event_id",
]

NOTIFICATION_PREFIX = "hookproof."
SUSPENDED = "hookproof.subscription.suspended"
DRIFT_DETECTED = "hookproof.subscription.drift_detected"
DEAD_LETTERED = "hookproof.delivery.dead_lettered"
KEY_COMPROMISED = "hookproof.key.compromised"
ROLLOUT_PAUSED = "hookproof.rollout.paused"
NOTIFICATION_TOPICS = (SUSPENDED, DRIFT_DETECTED, DEAD_LETTERED, KEY_COMPROMISED, ROLLOUT_PAUSED)
NOTIFICATION_VERSION = "1.0"


def is_notification_topic(topic: str) -> bool:
    """Topics under the reserved prefix: only the engine publishes them."""
    return topic.startswith(NOTIFICATION_PREFIX)


def names_notifications(topics: list[str]) -> bool:
    """A subscription receives notifications only when one of its topics names the reserved
    prefix explicitly (an exact topic, ``hookproof.*``, ``hookproof.delivery.*``, ...): a bare
    ``*`` is for the tenant's own events and never brings the engine's."""
    return any(is_notification_topic(t) for t in topics)


@dataclass(frozen=True)
class Cause:
    """A log event that calls for a notification: its topic, what it is about (the
    subject: a subscription, delivery, key or rollout id) and the facts it carries."""

    topic: str
    subject: str
    facts: dict[str, Any] = field(default_factory=dict)


def _at(value: Any) -> str:
    return value.isoformat() if isinstance(value, datetime) else str(value)


#: the log event types :func:`cause_of` may answer with a cause (the notifier decodes no other)
CAUSE_TYPES: Final = cast(
    frozenset[str],
    frozenset(
        cls.__struct_config__.tag
        for cls in (
            SubscriptionStateChanged,
            DriftDetected,
            DeadLettered,
            KeyRevoked,
            RolloutPaused,
        )
    ),
)


def cause_of(event: Event) -> Cause | None:
    """Is this log event a cause for a notification? (Tenants are resolved afterwards.)"""
    if isinstance(event, SubscriptionStateChanged) and event.to_state == "SUSPENDED":
        return Cause(
            SUSPENDED,
            event.subscription_id,
            {
                "subscriptionId": event.subscription_id,
                "generation": event.generation,
                "fromState": event.from_state,
                "command": event.command,
                "reason": event.reason,
                "at": event.at,
            },
        )
    if isinstance(event, DriftDetected):
        return Cause(
            DRIFT_DETECTED,
            event.subscription_id,
            {
                "subscriptionId": event.subscription_id,
                "generation": event.generation,
                "reason": event.reason,
                # a denied answer's addresses are the engine's view of DNS: withheld
                "addresses": tenant_addresses(event.reason, list(event.addresses))[0],
                "spkiSha256": event.spki_sha256,
                "at": event.at,
            },
        )
    if isinstance(event, DeadLettered):
        return Cause(
            DEAD_LETTERED,
            event.delivery_id,
            {
                "deliveryId": event.delivery_id,
                "attempt": event.attempt,
                "owner": event.owner,
                "reason": tenant_dead_letter_reason(event.reason),
                "replay": event.replay,
                "at": event.at,
            },
        )
    if isinstance(event, KeyRevoked) and event.reason == RevokeReason.COMPROMISED:
        return Cause(
            KEY_COMPROMISED,
            event.key_id,
            {
                "keyId": event.key_id,
                "previousState": str(event.previous_state),
                "at": _at(event.at),
            },
        )
    if isinstance(event, RolloutPaused):
        return Cause(
            ROLLOUT_PAUSED,
            event.rollout_id,
            {
                "rolloutId": event.rollout_id,
                "reason": event.reason,
                "keyId": event.key_id,
                "acceptance": event.acceptance,
                "baselineAcceptance": event.baseline_acceptance,
                "attempts": event.attempts,
                "at": event.at,
            },
        )
    return None


def notification_event_id(source_event_id: str, tenant_id: str) -> str:
    """Stable: one cause heard by one tenant is one business event, however often the
    notifier reads it (ingest is idempotent on the event id)."""
    return f"hookproof:{source_event_id}:{tenant_id}"


def notification_event(
    cause: Cause,
    *,
    tenant_id: str,
    source_event_id: str,
    source_version: int,
    occurred_at: datetime,
    extra: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The business event (``POST /v1/events`` shape) one tenant receives for ``cause``."""
    payload = {**cause.facts, **(extra or {}), "sourceEventId": source_event_id}
    return {
        "eventId": notification_event_id(source_event_id, tenant_id),
        "topic": cause.topic,
        "version": NOTIFICATION_VERSION,
        "aggregateId": cause.subject,
        "aggregateVersion": source_version,
        "occurredAt": _at(occurred_at),
        "payload": payload,
    }
