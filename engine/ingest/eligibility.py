"""Why an accepted event was planned for no subscription: one reason per cause (pure).

Ingest plans a delivery for each ACTIVE (or ROTATING) subscription of the tenant whose
topics, accepted major versions, consumer and filter all admit the event. When none does, the
answer ``{"deliveries": []}`` says why, counting the tenant's subscriptions by the first rule
that turned each away, in the order a newcomer would check them: topic, consumer, version,
filter, state.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from ..filters import CompiledFilters, FilterEvent
from ..notifications.decide import is_notification_topic, names_notifications
from ..subscriptions.matching import topic_matches

__all__ = ["SubscriptionFacts", "Unplanned", "why_unplanned"]

#: the subscription states ingest plans for
_PLANNED_STATES = frozenset({"ACTIVE", "ROTATING"})


@dataclass(frozen=True, slots=True)
class SubscriptionFacts:
    """What planning looks at in one subscription."""

    subscription_id: str
    state: str
    topics: tuple[str, ...]
    event_versions: tuple[int, ...]
    filters: CompiledFilters | None
    consumer_id: str | None


@dataclass(frozen=True, slots=True)
class Unplanned:
    """One cause: a stable ``reason`` code, what to do about it, how many subscriptions
    (``filter_unmatched``: and each one's id and the digest of the filters that decided)."""

    reason: str
    detail: str
    subscriptions: int
    filters: tuple[tuple[str, str], ...] = ()

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "reason": self.reason,
            "detail": self.detail,
            "subscriptions": self.subscriptions,
        }
        if self.filters:
            out["filters"] = [
                {"subscriptionId": sid, "filtersDigest": digest, "held": False}
                for sid, digest in self.filters
            ]
        return out


def _first_refusal(
    s: SubscriptionFacts, topic: str, major: int, consumer_id: str | None, event: FilterEvent
) -> tuple[str, str] | None:
    """(reason, state) of the first rule that turns ``s`` away; None when it admits."""
    if not topic_matches(list(s.topics), topic) or (
        is_notification_topic(topic) and not names_notifications(list(s.topics))
    ):
        return "topic_unmatched", s.state
    if s.consumer_id != consumer_id:
        if consumer_id is None:
            return "consumer_id_missing", s.state
        return "consumer_mismatch", s.state
    if major not in s.event_versions:
        return "event_version_unaccepted", s.state
    if s.filters is not None and not s.filters.matches(event):
        return "filter_unmatched", s.state
    if s.state == "PENDING_CHALLENGE":
        return "pending_challenge", s.state
    if s.state not in _PLANNED_STATES:
        return "subscription_not_active", s.state
    return None


def _detail(reason: str, n: int, topic: str, major: int, states: set[str]) -> str:
    subs = f"{n} subscription{'s' if n != 1 else ''}"
    verb = "are" if n != 1 else "is"
    return {
        "topic_unmatched": f"{subs} of this tenant list no topic matching {topic!r}",
        "consumer_id_missing": (
            f"{subs} for {topic!r} belong{'s' if n == 1 else ''} to a consumer: an event reaches"
            " a consumer's subscriptions only when it names that consumerId"
        ),
        "consumer_mismatch": (
            f"{subs} for {topic!r} belong{'s' if n == 1 else ''} to another consumer or to none:"
            " an event with a consumerId reaches only that consumer's subscriptions"
        ),
        "event_version_unaccepted": (
            f"{subs} for {topic!r} do{'es' if n == 1 else ''} not accept major version {major}"
            " (their eventVersions)"
        ),
        "filter_unmatched": f"{subs} for {topic!r} ha{'s' if n == 1 else 've'} filters this"
        " event does not satisfy (filters: each one's filtersDigest; POST /v1/filters/evaluate"
        " shows why)",
        "pending_challenge": (
            f"{subs} for {topic!r} {verb} PENDING_CHALLENGE: the endpoint has not answered the"
            " challenge yet (GET /v1/subscriptions/{id} shows lastReason; POST"
            " /v1/subscriptions/{id}/challenge tries again)"
        ),
        "subscription_not_active": (
            f"{subs} for {topic!r} {verb} not ACTIVE ({', '.join(sorted(states))})"
        ),
    }[reason]


_ORDER = (
    "pending_challenge",
    "consumer_id_missing",
    "consumer_mismatch",
    "event_version_unaccepted",
    "filter_unmatched",
    "subscription_not_active",
    "topic_unmatched",
)


def why_unplanned(
    subscriptions: Iterable[SubscriptionFacts],
    *,
    topic: str,
    major: int,
    consumer_id: str | None,
    event: FilterEvent,
) -> list[Unplanned]:
    """The causes, most telling first (``no_subscriptions`` when the tenant has none); empty
    when some subscription admits the event after all (it was created since)."""
    counts: dict[str, int] = {}
    states: dict[str, set[str]] = {}
    filtered: list[tuple[str, str]] = []
    seen = 0
    for s in subscriptions:
        seen += 1
        refusal = _first_refusal(s, topic, major, consumer_id, event)
        if refusal is None:
            return []
        reason, state = refusal
        if reason == "filter_unmatched" and s.filters is not None:
            filtered.append((s.subscription_id, s.filters.digest))
        counts[reason] = counts.get(reason, 0) + 1
        states.setdefault(reason, set()).add(state)
    if seen == 0:
        return [
            Unplanned(
                "no_subscriptions",
                "this tenant has no subscriptions yet: POST /v1/subscriptions registers one",
                0,
            )
        ]
    return [
        Unplanned(
            r,
            _detail(r, counts[r], topic, major, states[r]),
            counts[r],
            tuple(filtered) if r == "filter_unmatched" else (),
        )
        for r in _ORDER
        if r in counts
    ]
