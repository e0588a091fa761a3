"""The subscription state machine: the table row by row, and decide as a pure function."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hookproof.engine.subscriptions import (
    GENERATION_FIELDS,
    STATES,
    TERMINAL,
    TRANSITIONS,
    Register,
    Transition,
    Update,
    decide,
    diagram,
    next_state,
)
from hookproof.engine.subscriptions.decide import TransitionForbidden
from hookproof.errors import PreconditionFailed
from hookproof.events.subscription_events import RetryPolicy, SubscriptionConfig
from hookproof.projections.subscriptions import SubscriptionState, evolve

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
CONFIG = SubscriptionConfig(
    endpoint="https://a.example/h",
    endpoint_digest="d" * 64,
    topics=["t"],
    event_versions=[1],
    region="eu",
    signature_algorithm="ed25519",
    owner="o",
    expires_at=(NOW + timedelta(days=1)).isoformat(),
)
COMMANDS = (
    "activate",
    "start_rotation",
    "suspend",
    "resume",
    "challenge",
    "revoke",
    "update",
    "regenerate",
    "expire",
)

EXPECTED_ROWS = {
    ("PENDING_CHALLENGE", "activate"): "ACTIVE",
    ("ROTATING", "activate"): "ACTIVE",
    ("ACTIVE", "start_rotation"): "ROTATING",
    ("ACTIVE", "suspend"): "SUSPENDED",
    ("ROTATING", "suspend"): "SUSPENDED",
    ("PENDING_CHALLENGE", "suspend"): "SUSPENDED",
    ("SUSPENDED", "resume"): "PENDING_CHALLENGE",
    ("ACTIVE", "challenge"): "PENDING_CHALLENGE",
    ("PENDING_CHALLENGE", "challenge"): "PENDING_CHALLENGE",
    ("ROTATING", "challenge"): "ROTATING",
}


def registered() -> SubscriptionState:
    [ev] = decide(None, Register("s1", "t1", CONFIG), NOW)
    return evolve(None, ev, 1)


def in_state(name: str) -> SubscriptionState:
    from dataclasses import replace

    return replace(registered(), state=name)


@pytest.mark.parametrize("state", STATES)
@pytest.mark.parametrize("command", COMMANDS)
def test_every_cell_of_the_table(state: str, command: str) -> None:
    expected = next_state(state, command)
    if command in ("update", "regenerate"):
        return  # exercised through Update below
    s = in_state(state)
    when = NOW + timedelta(days=2) if command == "expire" else NOW
    if expected is None:
        with pytest.raises(TransitionForbidden):
            decide(s, Transition(command), when)
    else:
        [ev] = decide(s, Transition(command), when)
        after = evolve(s, ev, s.version + 1)
        assert after.state == expected
        assert after.generation == s.generation + (1 if command == "revoke" else 0)


def test_table_rows_are_the_documented_ones() -> None:
    for row, target in EXPECTED_ROWS.items():
        assert TRANSITIONS[row] == target
    for s in ("PENDING_CHALLENGE", "ACTIVE", "ROTATING", "SUSPENDED"):
        assert TRANSITIONS[(s, "revoke")] == "REVOKED"
        assert TRANSITIONS[(s, "expire")] == "EXPIRED"
    assert not any(src in TERMINAL for src, _ in TRANSITIONS)
    assert "ACTIVE --> ROTATING: start_rotation" in diagram()


def test_expire_only_after_the_time() -> None:
    with pytest.raises(TransitionForbidden):
        decide(in_state("ACTIVE"), Transition("expire"), NOW)


@pytest.mark.parametrize(
    "field,value,bumps",
    [
        ("endpoint", "https://b.example/h", True),
        ("topics", ["u"], True),
        ("filter", {"a": 1}, True),
        ("event_versions", [1, 2], True),
        ("owner", "someone-else", True),
        ("retry_policy", RetryPolicy(max_attempts=3), False),
        ("expires_at", (NOW + timedelta(days=9)).isoformat(), False),
        ("region", "us", False),
        ("old_generation_policy", "quarantine", False),
    ],
)
def test_generation_bumps_for_exactly_the_binding_fields(field: str, value, bumps: bool) -> None:  # type: ignore[no-untyped-def]
    s = in_state("ACTIVE")
    [ev] = decide(s, Update(1, {field: value}), NOW)
    after = evolve(s, ev, 2)
    assert after.generation == (2 if bumps else 1)
    assert after.state == ("PENDING_CHALLENGE" if bumps else "ACTIVE")
    assert (field in GENERATION_FIELDS) == bumps


def test_stale_generation_is_412() -> None:
    with pytest.raises(PreconditionFailed) as err:
        decide(in_state("ACTIVE"), Update(7, {"owner": "x"}), NOW)
    assert err.value.extra["currentGeneration"] == 1


@given(st.lists(st.sampled_from(COMMANDS + ("patch-endpoint", "patch-retry")), max_size=30))
def test_no_sequence_reaches_a_forbidden_state(commands: list[str]) -> None:
    s = registered()
    seen = [s.state]
    for i, c in enumerate(commands):
        before = s
        if c == "patch-endpoint":
            cmd: Update | Transition = Update(s.generation, {"endpoint": f"https://x{i}.example/"})
        elif c == "patch-retry":
            cmd = Update(s.generation, {"retry_policy": RetryPolicy(max_attempts=i % 9 + 1)})
        elif c in ("update", "regenerate"):
            continue
        else:
            cmd = Transition(c)
        when = NOW + timedelta(days=2)
        try:
            events = decide(s, cmd, when)
        except (TransitionForbidden, PreconditionFailed):
            continue
        for ev in events:
            s = evolve(s, ev, s.version + 1)
        command = (
            c
            if isinstance(cmd, Transition)
            else ("regenerate" if s.generation != before.generation else "update")
        )
        if events:
            assert TRANSITIONS[(before.state, command)] == s.state
        assert s.generation >= before.generation
        seen.append(s.state)
    assert all(state in STATES for state in seen)
    # nothing leaves a terminal state
    for a, b in zip(seen, seen[1:], strict=False):
        if a in TERMINAL:
            assert b == a
