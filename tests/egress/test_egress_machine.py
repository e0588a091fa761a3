"""The egress connection's transition table alone (after h11's own tests of ``_state.py``):
every allowed transition, every refused one, and random event sequences."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hookproof.engine.egress.machine import (
    CONNECTION_TRANSITIONS,
    ConnectionEvent,
    ConnectionState,
    ConnectionStateError,
    diagram,
    next_state,
)

S, E = ConnectionState, ConnectionEvent

#: The table written out by hand: a change to the table must change this too.
EXPECTED = {
    (S.HANDSHAKE, E.HANDSHAKEN): S.READY,
    (S.HANDSHAKE, E.CLOSE): S.DEAD,
    (S.HANDSHAKE, E.LOST): S.DEAD,
    (S.READY, E.START): S.BUSY,
    (S.READY, E.PARK): S.IDLE,
    (S.READY, E.CLOSE): S.DEAD,
    (S.READY, E.LOST): S.DEAD,
    (S.BUSY, E.ANSWERED): S.READY,
    (S.BUSY, E.CLOSE): S.DEAD,
    (S.BUSY, E.LOST): S.DEAD,
    (S.IDLE, E.TAKE): S.READY,
    (S.IDLE, E.START): S.BUSY,
    (S.IDLE, E.CLOSE): S.DEAD,
    (S.IDLE, E.LOST): S.DEAD,
}

PAIRS = list(itertools.product(S.ALL, E.ALL))


def test_table_is_the_expected_one() -> None:
    assert CONNECTION_TRANSITIONS == EXPECTED
    assert {s for s, _ in EXPECTED} | set(EXPECTED.values()) == set(S.ALL)
    assert {e for _, e in EXPECTED} == set(E.ALL)


@pytest.mark.parametrize(("state", "event"), sorted(EXPECTED))
def test_allowed_transition(state: str, event: str) -> None:
    assert next_state(state, event) == EXPECTED[state, event]


@pytest.mark.parametrize(("state", "event"), [p for p in PAIRS if p not in EXPECTED])
def test_refused_transition(state: str, event: str) -> None:
    with pytest.raises(ConnectionStateError) as info:
        next_state(state, event)
    assert (info.value.state, info.value.event) == (state, event)
    assert info.value.code == "connection_transition_refused"


def test_dead_is_final_and_ready_is_not_done() -> None:
    assert all(s != S.DEAD for s, _ in EXPECTED)
    assert not hasattr(S, "DONE") and S.READY == "ready"


def test_unknown_names_are_refused() -> None:
    with pytest.raises(ConnectionStateError):
        next_state("done", E.PARK)
    with pytest.raises(ConnectionStateError):
        next_state(S.READY, "finish")


def test_diagram_draws_every_transition() -> None:
    drawn = diagram().splitlines()
    assert drawn[0] == "stateDiagram-v2" and f"    [*] --> {S.HANDSHAKE}" in drawn
    for (s, e), d in EXPECTED.items():
        assert f"    {s} --> {d}: {e}" in drawn


@given(st.lists(st.sampled_from(E.ALL), max_size=40))
def test_event_sequences(events: list[str]) -> None:
    """Any sequence: each step is either the table's transition or refused with the state
    unchanged; only HANDSHAKEN leaves HANDSHAKE for READY, DEAD takes nothing, and a
    connection is BUSY only right after START."""
    state = S.HANDSHAKE
    for event in events:
        before = state
        try:
            state = next_state(state, event)
        except ConnectionStateError:
            assert (before, event) not in EXPECTED
            continue
        assert state == EXPECTED[before, event]
        assert before != S.DEAD
        if state == S.BUSY:
            assert event == E.START and before in (S.READY, S.IDLE)
        if before == S.HANDSHAKE:
            assert state == (S.READY if event == E.HANDSHAKEN else S.DEAD)
        if event in (E.CLOSE, E.LOST):
            assert state == S.DEAD


def test_the_connection_changes_state_only_through_the_table() -> None:
    """``HttpConnection`` assigns its state in ``__init__`` and in ``_move`` (``next_state``)."""
    import inspect

    from hookproof.engine.egress import connection as wire

    source = inspect.getsource(wire)
    assert source.count("self._state = ") == 1
    assert source.count("self._state: str = ConnectionState.HANDSHAKE") == 1
    assert "self._state = next_state(self._state, event)" in source
    assert "self.state = " not in source
