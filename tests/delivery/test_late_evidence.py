"""Late evidence: an outcome recorded after the delivery moved on (a receipt confirmed it, or a
later attempt was accepted after the first one's lease ran out). It has its own commands in the
ledger table, is recorded as an event, and never takes an accepted delivery backwards."""

from __future__ import annotations

import asyncio

from hypothesis import given
from hypothesis import strategies as st

from hookproof.config import Settings
from hookproof.engine.runtime.daemon import Engine
from hookproof.projections import ledger as lt
from hookproof.projections.deliveries import evolve_delivery

from ..audit import history as h
from .conftest import (
    Subscriber,
    active_subscription,
    delivery,
    dispatch_all,
    publish,
    stalled_dispatcher,
)

ACCEPTED = ("ENDPOINT_ACCEPTED", "APPLICATION_CONFIRMED")
#: the outcomes an attempt ends with, and their late forms
OUTCOMES = {"accepted": "late_accepted", "failed": "late_failed", "unknown": "late_unknown"}


def outcome(command: str, attempt: int = 1):  # type: ignore[no-untyped-def]
    return {
        "accepted": lambda: h.accepted("d1", attempt),
        "failed": lambda: h.failed("d1", attempt),
        "unknown": lambda: h.failed("d1", attempt, "UNKNOWN_TRANSPORT"),
    }[command]()


def accepted_row() -> dict:  # type: ignore[type-arg]
    row = evolve_delivery(None, h.planned("d1"), 1)
    row = evolve_delivery(row, h.admitted("d1", 1), 2)
    return evolve_delivery(row, h.accepted("d1", 1), 3)


def test_an_outcome_after_the_delivery_moved_on_is_late_evidence() -> None:
    for on_time, late in OUTCOMES.items():
        event = outcome(on_time)
        assert lt.command_of(event) == on_time
        assert lt.command_of(event, "DISPATCHING") == on_time
        for state in lt.LEDGER_STATES:
            if state != "DISPATCHING" and lt.ledger_next(state, late) is not None:
                assert lt.command_of(event, state) == late


def test_outcomes_on_time_only_from_dispatching_and_late_only_from_elsewhere() -> None:
    for on_time, late in OUTCOMES.items():
        assert lt.sources(on_time) == {"DISPATCHING"}
        assert "DISPATCHING" not in lt.sources(late)
        assert lt.sources(late) == set(lt.LEDGER_STATES) - {"PLANNED", "DISPATCHING"}


def test_the_table_never_takes_an_accepted_delivery_backwards_on_late_evidence() -> None:
    for state in ACCEPTED:
        for late in OUTCOMES.values():
            after = lt.ledger_next(state, late)
            assert after in ACCEPTED and ACCEPTED.index(after) >= ACCEPTED.index(state)


def test_a_late_failure_keeps_an_accepted_delivery_accepted_and_unscheduled() -> None:
    row = accepted_row()
    for late in ("failed", "unknown"):
        after = evolve_delivery(row, outcome(late, attempt=1), 4)
        assert after["state"] == "ENDPOINT_ACCEPTED"
        assert after["next_attempt_at"] is None and after["unknown_since"] is None
        assert after["accepted_at"] == row["accepted_at"] and after["last_code"] is None


@given(st.lists(st.sampled_from(sorted(OUTCOMES)), min_size=1, max_size=8))
def test_no_sequence_of_late_outcomes_undoes_an_acceptance(commands: list[str]) -> None:
    row = accepted_row()
    for version, command in enumerate(commands, start=4):
        row = evolve_delivery(row, outcome(command), version)
        assert row["state"] == "ENDPOINT_ACCEPTED"


# -- through the dispatcher and the database ------------------------------------------------


async def test_a_lost_attempts_late_failure_after_a_later_acceptance_changes_nothing(
    engine: Engine, tenant: str, subscriber: Subscriber, settings: Settings
) -> None:
    """Attempt 1 stalls past its lease and fails; attempt 2 is accepted; then attempt 1's
    failure is recorded. It is evidence in the stream, and the delivery stays accepted."""
    policy = {"retryPolicy": {"initialDelayS": 0.01, "maxDelayS": 0.01}}
    subscriber.modes["flip"] = "fail500"
    await active_subscription(engine, tenant, subscriber.url("flip"), **policy)
    [d] = (await publish(engine, tenant, "evt-late")).deliveries
    did = d["deliveryId"]
    real = engine.services.dispatcher
    stalled = stalled_dispatcher(engine, settings, "stalled")
    [job] = await stalled.claim()
    failure = await stalled.destination.deliver(stalled.message_for(job), job.row)
    assert failure.status == 500
    assert await real.reconcile_leases() == 1
    subscriber.modes["flip"] = "ok"
    await dispatch_all(engine)
    assert (await delivery(engine, tenant, did))["state"] == "ENDPOINT_ACCEPTED"

    await stalled.record(job, failure, 0.01)  # attempt 1's outcome, late

    log = [e.decode() for e in await engine.store.read_stream(f"delivery-{did}")]
    assert type(log[-1]).__name__ == "AttemptFailed" and log[-1].attempt == 1  # type: ignore[attr-defined]
    view = await delivery(engine, tenant, did)
    assert view["state"] == "ENDPOINT_ACCEPTED", view
    await asyncio.sleep(0.05)  # past the failure's retry time: nothing is due
    await dispatch_all(engine)
    assert [r.headers["Webhook-Attempt"] for r in subscriber.deliveries("flip")] == ["1", "2"]
