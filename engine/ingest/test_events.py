"""Test events: the event catalogue's example, sent to one endpoint through the normal
delivery path (ingest, the ledger, the dispatcher), marked as a test
(:mod:`.test_event_ids`)."""

from __future__ import annotations

import secrets
from datetime import UTC, datetime

from hookproof.errors import ConflictError, ValidationError
from hookproof.projections.subscriptions import SubscriptionState
from hookproof.schemas.api import EventIn, TestEventIn

from ..delivery.test_event_ids import TEST_EVENT_PREFIX
from ..event_types.service import EventTypeService
from ..filters import compile_filters, from_hookproof_event
from ..subscriptions.filter_spec import effective_filters
from ..subscriptions.matching import topic_matches
from .ingest import IngestResult, IngestService

__all__ = ["TestEventSender"]


def _topic(state: SubscriptionState, asked: str | None) -> str:
    topics = state.config.topics
    if asked is None:
        exact = [t for t in topics if "*" not in t]
        if len(exact) != 1:
            raise ValidationError(
                "name the topic to test (the subscription takes several or a pattern)",
                field="topic",
                code="topic_required",
            )
        return exact[0]
    if not topic_matches(topics, asked):
        raise ValidationError(
            "the subscription does not take this topic", field="topic", code="topic_not_subscribed"
        )
    return asked


class TestEventSender:
    """Builds a test event from the catalogue and ingests it for one subscription."""

    __test__ = False  # not a pytest class

    def __init__(self, ingest: IngestService, event_types: EventTypeService) -> None:
        self.ingest = ingest
        self.event_types = event_types

    async def send(
        self, state: SubscriptionState, body: TestEventIn, *, actor: str
    ) -> IngestResult:
        """``state``: the caller's subscription (already checked to be visible to it)."""
        if state.state != "ACTIVE":
            raise ConflictError(
                f"a {state.state} subscription receives no events", code="subscription_not_active"
            )
        topic = _topic(state, body.topic)
        kind = await self.event_types.get(state.tenant_id, topic)  # 404 event_type_not_found
        examples = {
            int(major): v["example"]
            for major, v in kind.versions.items()
            if "example" in v and int(major) in state.config.event_versions
        }
        major = body.version if body.version is not None else max(examples, default=None)
        if major is None or major not in examples:
            raise ConflictError(
                "the catalogue has no example of this topic at a version the subscription takes",
                code="no_example",
            )
        payload = examples[major]
        event = EventIn(
            event_id=TEST_EVENT_PREFIX + secrets.token_hex(12),
            topic=topic,
            version=f"{major}.0",
            aggregate_id="hookproof-test",
            aggregate_version=0,
            occurred_at=datetime.now(UTC).isoformat(),
            payload=payload,
            consumer_id=state.config.consumer_id,
        )
        spec = effective_filters(state.config)
        if spec is not None and not compile_filters(spec.expressions).matches(
            from_hookproof_event(event, tenant_id=state.tenant_id)
        ):
            raise ConflictError(
                "the subscription's filters leave the example out", code="example_filtered_out"
            )
        return await self.ingest.ingest(
            state.tenant_id, event, actor=actor, only=state.subscription_id
        )
