"""The subscriptions planning may choose for an event, and their ``filters`` (DESIGN.md 16).

A candidate is a subscription row as planning needs it. Its filters are compiled once per
(subscription, generation) and kept (:class:`CompiledCache`); for each group, the candidates
with filters go into a :class:`FilterIndex`, so an event's filters are evaluated only for the
subscriptions whose required equality it satisfies (the database already left out those whose
index key the group's events lack: ``ingest_candidates.sql``).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import asyncpg
import msgspec

from hookproof.events.delivery_events import FilterDecision
from hookproof.schemas.api import EventIn

from ..destinations.registry import room_key
from ..filters import (
    CompiledFilters,
    FilterEvent,
    FilterIndex,
    compile_filters,
    event_keys,
    from_hookproof_event,
    key_text,
)
from ..notifications.decide import is_notification_topic, names_notifications
from ..subscriptions.filter_spec import legacy_to_filters

__all__ = [
    "Candidate",
    "CompiledCache",
    "EventFilters",
    "FilterPlan",
    "filter_event",
    "group_keys",
    "ordering_of",
]


@dataclass(frozen=True, slots=True)
class Candidate:
    """A subscription row as planning needs it (its config decoded once per group)."""

    subscription_id: str
    tenant_id: str
    generation: int
    endpoint: str
    endpoint_digest: str  # the room key (``destinations.registry.room_key``)
    topics: list[str]
    event_versions: list[int]
    #: the filter expressions (a legacy ``filter`` converted); None: no filters
    filters: list[Any] | None
    filters_digest: str | None  # None for a legacy filter: computed when compiled
    owner: str
    receipts: bool
    max_attempts: int
    hears_notifications: bool
    gap_timeout_s: float | None  # ordering: "aggregate" (None: unordered)
    consumer_id: str | None  # None: a consumer-less subscription

    @staticmethod
    def of(r: asyncpg.Record) -> Candidate:
        config = msgspec.json.decode(r["config"])
        spec = config.get("filters")
        legacy = config.get("filter")
        return Candidate(
            r["subscription_id"],
            r["tenant_id"],
            r["generation"],
            r["endpoint"],
            room_key(r["subscription_id"], r["endpoint"], r["endpoint_digest"]),
            list(r["topics"]),
            list(r["event_versions"]),
            spec["expressions"] if spec else (legacy_to_filters(legacy) if legacy else None),
            spec["digest"] if spec else None,
            config["owner"],
            config.get("receipt_key") is not None,
            config["retry_policy"]["max_attempts"],
            names_notifications(r["topics"]),
            (
                float(config.get("ordering_gap_timeout_s", 60.0))
                if config.get("ordering", "none") == "aggregate"
                else None
            ),
            r["consumer_id"],
        )


def ordering_of(c: Candidate, e: EventIn) -> dict[str, Any]:
    """``ordering: "aggregate"``: the delivery carries its aggregate, version and gap timeout.
    The engine's own notifications are never held: their versions are not the tenant's."""
    if c.gap_timeout_s is None or is_notification_topic(e.topic):
        return {}
    return {
        "aggregate_id": e.aggregate_id,
        "aggregate_version": e.aggregate_version,
        "ordering_gap_timeout_s": c.gap_timeout_s,
    }


class CompiledCache:
    """Compiled filters by (subscription, generation): filters are a bound field, so one
    generation has one set. Bounded: the oldest entries go first."""

    def __init__(self, size: int = 65_536) -> None:
        self.size = size
        self._compiled: dict[tuple[str, int], CompiledFilters] = {}

    def get(self, c: Candidate) -> CompiledFilters:
        key = (c.subscription_id, c.generation)
        found = self._compiled.get(key)
        if found is None or (c.filters_digest is not None and found.digest != c.filters_digest):
            found = compile_filters(c.filters)
            while len(self._compiled) >= self.size:
                del self._compiled[next(iter(self._compiled))]
            self._compiled[key] = found
        return found


def filter_event(tenant_id: str, e: EventIn, occurred_at: str) -> FilterEvent:
    """The filters' view of an event being planned (``occurred_at``: its time, the
    sender's or, when it gave none, the engine's)."""
    wire = msgspec.to_builtins(e)
    wire["occurredAt"] = occurred_at
    return from_hookproof_event(wire, tenant_id=tenant_id)


def group_keys(events: Iterable[FilterEvent]) -> list[str] | None:
    """The index keys the group's events satisfy (as text); None when one of them has too
    many to list (then no subscription is left out by its key)."""
    out: set[str] = set()
    for event in events:
        keys = event_keys(event)
        if keys is None:
            return None
        out.update(key_text(k) for k in keys)
    return sorted(out)


class FilterPlan:
    """One tenant's filtered candidates of one group, indexed: which hold for an event, and
    the decisions to record."""

    def __init__(self, cache: CompiledCache, candidates: Iterable[Candidate]) -> None:
        self.index: FilterIndex[str] = FilterIndex()
        self.compiled: dict[str, CompiledFilters] = {}
        for c in candidates:
            if c.filters is not None:
                compiled = cache.get(c)
                self.compiled[c.subscription_id] = compiled
                self.index.add(c.subscription_id, compiled)

    def for_event(self, event: FilterEvent) -> EventFilters:
        return EventFilters(self, event)


class EventFilters:
    """One event against a :class:`FilterPlan`: the decisions taken, in order."""

    def __init__(self, plan: FilterPlan, event: FilterEvent) -> None:
        self.plan = plan
        self.event = event
        self._candidates: set[str] | None = None
        self.decisions: list[FilterDecision] = []

    def holds(self, c: Candidate) -> tuple[bool, str | None]:
        """Whether ``c``'s filters hold (True for none) and their digest. Evaluated only for
        a subscription the index keeps; each evaluation is recorded."""
        compiled = self.plan.compiled.get(c.subscription_id)
        if compiled is None:
            return True, None
        if self._candidates is None:
            self._candidates = set(self.plan.index.candidates(self.event))
        if c.subscription_id not in self._candidates:
            return False, compiled.digest
        held = compiled.matches(self.event)
        self.decisions.append(
            FilterDecision(
                subscription_id=c.subscription_id,
                generation=c.generation,
                filters_digest=compiled.digest,
                held=held,
            )
        )
        return held, compiled.digest

    def refused(self) -> list[FilterDecision]:
        """The evaluated filters that did not hold (those that held are on the deliveries)."""
        return [d for d in self.decisions if not d.held]
