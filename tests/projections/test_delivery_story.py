"""The one reading of a delivery stream (``projections/delivery_story.py``): over generated valid
streams (every ledger state reachable), the fold's ledger is the projection's row, and the
delivery view (``GET /v1/deliveries/{id}``'s reader over the real store) and the audit timeline
agree with the fold: state, attempt count, last outcome, evidence per attempt, receipt."""

from __future__ import annotations

import uuid
from typing import Any

import asyncpg
import msgspec
import pytest
from hypothesis import HealthCheck, find, given, settings

from hookproof.engine.audit import delivery_timeline
from hookproof.engine.challenge.disclosure import tenant_reason
from hookproof.engine.delivery.repository import DeliveryRepository
from hookproof.engine.delivery.story_view import delivery_view
from hookproof.engine.delivery.views import DeliveryReader
from hookproof.events import NO_STREAM, Event, EventStore, Metadata, StreamAppend
from hookproof.events.delivery_events import (
    AttemptFailed,
    AttemptLost,
    EndpointAccepted,
    delivery_stream_id,
)
from hookproof.projections.deliveries import DeliveryLedger, evolve_delivery
from hookproof.projections.delivery_story import Attempt, DeliveryStory, read_story, tell
from hookproof.projections.inline import InlineProjection
from hookproof.projections.ledger import LEDGER_STATES

from .story_streams import Stream, streams

RELAY_REPORTED = "RELAY_REPORTED"


def _story(stream: Stream) -> DeliveryStory:
    story = read_story(stream.pairs())
    assert story is not None
    return story


def _shown(attempt: Attempt, kind: str) -> str:
    """The outcome an attempt is shown with: its last outcome's state (a relay's acceptance
    is what the relay reported)."""
    state = attempt.state
    return RELAY_REPORTED if kind == "relay" and state == "ENDPOINT_ACCEPTED" else state


def assert_view_agrees(view: dict[str, Any], story: DeliveryStory, kind: str) -> None:
    ledger = story.ledger
    assert view["state"] == ledger.state
    assert view["attempt"] == len(view["attempts"]) == len(story.attempts) == ledger.attempt
    for shown, attempt in zip(view["attempts"], story.attempts, strict=True):
        assert shown["attempt"] == attempt.number
        assert shown["keyId"] == attempt.admitted.key_id
        assert shown["outcome"] == _shown(attempt, kind)
        last = attempt.outcome
        answered = [o for o in attempt.outcomes if not isinstance(o, AttemptLost)]
        if last is None:
            assert "completedAt" not in shown and "status" not in shown
        else:
            assert shown["completedAt"] == last.at
        if isinstance(last, AttemptLost):
            assert shown["code"] == "dispatcher_lost"
        elif isinstance(last, AttemptFailed):
            assert shown["code"] == tenant_reason(last.code)
        if answered:  # what came back: the latest answer's status, peer and broker record
            assert shown["status"] == answered[-1].status
            assert shown["peerAddress"] == answered[-1].peer_address
            broker = answered[-1].broker
            if isinstance(broker, dict):
                assert shown["broker"]["outcome"] == broker["outcome"]
        else:
            assert "status" not in shown and "broker" not in shown
        recorded = attempt.request
        assert shown["request"]["recorded"] == (recorded is not None)
    if story.last_attempt is not None:  # the last outcome
        assert view["attempts"][-1]["outcome"] == _shown(story.last_attempt, kind)
    accepted = any(isinstance(o, EndpointAccepted) for a in story.attempts for o in a.outcomes)
    endpoint = RELAY_REPORTED if kind == "relay" else "ENDPOINT_ACCEPTED"
    assert (view["evidence"]["endpoint"] == endpoint) == accepted
    confirmation = story.confirmation
    assert (view["evidence"]["application"] == "CONFIRMED") == (confirmation is not None)
    assert (view["evidence"]["application"] == "UNOBSERVABLE") == (not story.planned.receipts)
    if confirmation is None:
        assert "applicationReceipt" not in view
    else:
        receipt = view["applicationReceipt"]
        assert (receipt["operationId"], receipt["confirmedAt"]) == (
            confirmation.operation_id,
            confirmation.at,
        )
    assert len(view.get("receiptConflicts", [])) == len(story.conflicts)
    if story.planned.ordering_gap_timeout_s is not None:
        assert len(view["ordering"]["gapsSkipped"]) == len(story.gaps)


@settings(max_examples=300, deadline=None)
@given(streams())
def test_the_folds_ledger_is_the_projections_row(stream: Stream) -> None:
    row: dict[str, Any] | None = None
    story: DeliveryStory | None = None
    for event, version in stream.pairs():
        row = evolve_delivery(row, event, version)
        story = tell(story, event, version)
        assert story.ledger.row() == row and list(story.ledger.row()) == list(row)
        assert story.last is event
    assert story == _story(stream)


@pytest.mark.parametrize("state", LEDGER_STATES)
def test_every_ledger_state_is_reachable_by_the_generated_streams(state: str) -> None:
    found = find(
        streams(),
        lambda s: _story(s).ledger.state == state,
        settings=settings(max_examples=5000, database=None),
    )
    assert _story(found).ledger.state == state


@settings(max_examples=300, deadline=None)
@given(streams())
def test_the_rendered_view_agrees_with_the_fold(stream: Stream) -> None:
    story = _story(stream)
    view = delivery_view(story.ledger.row(), story, verified_generation=None, body=None)
    assert_view_agrees(view, story, stream.kind)


def _fresh(events: list[Event]) -> tuple[str, list[Event]]:
    """The events under a delivery id no earlier example used (hypothesis reuses the database)."""
    did = "dlv_" + uuid.uuid4().hex[:28]
    return did, [msgspec.structs.replace(e, delivery_id=did) for e in events]  # type: ignore[type-var]


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(streams())
async def test_the_delivery_view_and_the_timeline_agree_with_the_fold(
    pool: asyncpg.Pool, stream: Stream
) -> None:
    did, events = _fresh(stream.events)
    store = EventStore(pool, inline=[InlineProjection(DeliveryLedger())])
    await store.append(
        [StreamAppend(delivery_stream_id(did), events, NO_STREAM, Metadata(actor="test"))]
    )
    story = read_story((e, v) for v, e in enumerate(events, start=1))
    assert story is not None

    view = await DeliveryReader(store, DeliveryRepository(pool)).delivery("t1", did)
    assert_view_agrees(view, story, stream.kind)

    timeline = await delivery_timeline(store, did)
    state = timeline.state
    assert state is not None
    assert state["state"] == story.ledger.state
    assert state["attempt"] == len(story.attempts)
    assert state["evidence"] == view["evidence"]
    steps: list[str] = []
    told: DeliveryStory | None = None
    for v, e in enumerate(events, start=1):
        told = tell(told, e, v)
        steps.append(told.ledger.state)
    assert [e.state for e in timeline.entries] == steps
    for attempt in story.attempts:
        lines = [
            e.outcome
            for e in timeline.entries
            if e.outcome.startswith(f"attempt {attempt.number}: ")
        ]
        assert len(lines) == len(attempt.outcomes)  # evidence per attempt: each outcome a line
        if attempt.outcomes:
            assert lines[-1].split()[2] == _shown(attempt, stream.kind)
    confirmed = [e for e in timeline.entries if e.outcome.startswith("APPLICATION_CONFIRMED")]
    assert len(confirmed) == (story.confirmation is not None)
    assert (state["application"] == "CONFIRMED") == (story.confirmation is not None)
