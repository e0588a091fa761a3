"""The consumer decisions and fold, pure (no database): every command row by row."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from hookproof.engine.consumers.decide import (
    ConsumerNotFound,
    Create,
    Disable,
    Update,
    decide,
)
from hookproof.errors import ConflictError
from hookproof.events import Event
from hookproof.events.consumer_events import ConsumerCreated, ConsumerDisabled, ConsumerUpdated
from hookproof.projections.consumers import ConsumerState, evolve_consumer

NOW = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)


def fold(events: list[Event]) -> ConsumerState | None:
    state = None
    for i, e in enumerate(events, 1):
        state = evolve_consumer(state, e, i)
    return state


def created() -> list[Event]:
    return decide(None, Create("t1", "c1", "Name", {"plan": "pro"}), NOW)


def test_create_then_exists() -> None:
    events = created()
    assert events == [
        ConsumerCreated(
            tenant_id="t1",
            consumer_id="c1",
            name="Name",
            metadata={"plan": "pro"},
            at=NOW.isoformat(),
        )
    ]
    state = fold(events)
    assert state is not None and not state.disabled and state.version == 1
    with pytest.raises(ConflictError) as err:
        decide(state, Create("t1", "c1", "Again", {}), NOW)
    assert err.value.code == "consumer_exists"


@pytest.mark.parametrize("command", [Update(name="x"), Disable()])
def test_commands_on_no_consumer_are_not_found(command: Update | Disable) -> None:
    with pytest.raises(ConsumerNotFound):
        decide(None, command, NOW)


def test_update_names_what_changed_and_nothing_when_nothing_did() -> None:
    state = fold(created())
    assert decide(state, Update(name="Name", metadata={"plan": "pro"}), NOW) == []
    assert decide(state, Update(), NOW) == []
    [ev] = decide(state, Update(metadata={"plan": "free"}), NOW)
    assert isinstance(ev, ConsumerUpdated) and ev.changed == ["metadata"] and ev.name == "Name"
    after = fold([*created(), ev])
    assert after is not None and after.metadata == {"plan": "free"} and after.version == 2


def test_disable_once_then_nothing() -> None:
    state = fold(created())
    [ev] = decide(state, Disable("churned"), NOW)
    assert isinstance(ev, ConsumerDisabled) and ev.reason == "churned"
    after = fold([*created(), ev])
    assert after is not None and after.disabled and after.disabled_reason == "churned"
    assert decide(after, Disable(), NOW) == []
    # a disabled consumer can still be renamed (its history keeps its name)
    [renamed] = decide(after, Update(name="Old customer"), NOW)
    final = fold([*created(), ev, renamed])
    assert final is not None and final.disabled and final.name == "Old customer"


def test_fold_refuses_events_before_creation() -> None:
    with pytest.raises(ValueError):
        evolve_consumer(
            None, ConsumerDisabled(tenant_id="t", consumer_id="c", at=NOW.isoformat()), 1
        )
