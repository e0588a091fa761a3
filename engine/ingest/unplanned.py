"""Why an accepted event reached no subscription: the tenant's subscriptions read once and
judged by :func:`.eligibility.why_unplanned`, the causes logged (``event_not_delivered``)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime

import msgspec
import structlog

from hookproof.events.subscription_events import SubscriptionConfig
from hookproof.schemas.api import EventIn

from ..filters import compile_filters
from ..subscriptions.filter_spec import effective_filters
from .candidates import filter_event
from .eligibility import SubscriptionFacts, Unplanned, why_unplanned
from .ingest_repository import IngestRepository

__all__ = ["explain_unplanned"]

log = structlog.get_logger("hookproof.ingest")


async def _facts(repo: IngestRepository, tenant_id: str) -> list[SubscriptionFacts]:
    facts = []
    for r in await repo.tenant_subscriptions(tenant_id):
        config = msgspec.json.decode(r["config"], type=SubscriptionConfig)
        spec = effective_filters(config)
        facts.append(
            SubscriptionFacts(
                r["subscription_id"],
                r["state"],
                tuple(r["topics"]),
                tuple(r["event_versions"]),
                compile_filters(spec.expressions) if spec is not None else None,
                r["consumer_id"],
            )
        )
    return facts


def _time(e: EventIn) -> str:
    """The event's ``occurredAt``; when the sender gave none, about when the engine took it."""
    if isinstance(e.occurred_at, str):
        return e.occurred_at
    return datetime.now(UTC).isoformat()


async def explain_unplanned(
    repo: IngestRepository, tenant_id: str, events: Sequence[tuple[EventIn, int]]
) -> list[list[Unplanned]]:
    """The causes for each of ``events`` (already validated: each with its major version),
    from one read of the tenant's subscriptions."""
    facts = await _facts(repo, tenant_id)
    out = []
    for e, major in events:
        causes = why_unplanned(
            facts,
            topic=e.topic,
            major=major,
            consumer_id=e.consumer_id,
            event=filter_event(tenant_id, e, _time(e)),
        )
        log.info(
            "event_not_delivered",
            tenant_id=tenant_id,
            event_id=e.event_id,
            topic=e.topic,
            reasons=[c.reason for c in causes],
        )
        out.append(causes)
    return out
