"""The states of one egress connection and the events that move it: ONE table (pure).

After h11's ``_state.py``: :data:`CONNECTION_TRANSITIONS` maps ``(state, event)`` to the next
state, and :func:`next_state` refuses any pair not in it (:class:`ConnectionStateError`).
:class:`.connection.HttpConnection` changes its state only through :func:`next_state`.

- ``HANDSHAKE``: TCP connected, TLS handshake running.
- ``READY``: between exchanges, held by the pool's user (just opened, taken from the pool, or
  its answer read to the framed end and waiting to be pooled).
- ``BUSY``: one exchange in flight; the bytes read are that exchange's answer.
- ``IDLE``: pooled.
- ``DEAD``: closed (by us, ``close``; or by the transport, ``lost``).

A byte (or an EOF) that arrives in ``READY`` or ``IDLE`` is nobody's answer: the connection
closes (``close``; DESIGN.md section 5, "Connection reuse").
"""

from __future__ import annotations

from typing import Final

__all__ = [
    "CONNECTION_TRANSITIONS",
    "ConnectionEvent",
    "ConnectionState",
    "ConnectionStateError",
    "diagram",
    "next_state",
]


class ConnectionState:
    """The states of a connection (plain strings)."""

    HANDSHAKE: Final = "handshake"
    READY: Final = "ready"
    BUSY: Final = "busy"
    IDLE: Final = "idle"
    DEAD: Final = "dead"

    ALL: Final = (HANDSHAKE, READY, BUSY, IDLE, DEAD)


class ConnectionEvent:
    """What moves a connection (plain strings)."""

    HANDSHAKEN: Final = "handshaken"  # the TLS handshake completed
    START: Final = "start"  # an exchange begins (the request is about to be written)
    ANSWERED: Final = "answered"  # the answer was read to its framed end, nothing past it
    PARK: Final = "park"  # handed to the pool
    TAKE: Final = "take"  # taken out of the pool, nothing arrived while idle
    CLOSE: Final = "close"  # we close it (failure, refusal, stale bytes, the pool's bounds)
    LOST: Final = "lost"  # the transport reports the connection gone

    ALL: Final = (HANDSHAKEN, START, ANSWERED, PARK, TAKE, CLOSE, LOST)


_S = ConnectionState
_E = ConnectionEvent

#: ``(state, event) -> next state``; anything else is refused.
CONNECTION_TRANSITIONS: Final[dict[tuple[str, str], str]] = {
    (_S.HANDSHAKE, _E.HANDSHAKEN): _S.READY,
    (_S.HANDSHAKE, _E.CLOSE): _S.DEAD,
    (_S.HANDSHAKE, _E.LOST): _S.DEAD,
    (_S.READY, _E.START): _S.BUSY,
    (_S.READY, _E.PARK): _S.IDLE,
    (_S.READY, _E.CLOSE): _S.DEAD,
    (_S.READY, _E.LOST): _S.DEAD,
    (_S.BUSY, _E.ANSWERED): _S.READY,
    (_S.BUSY, _E.CLOSE): _S.DEAD,
    (_S.BUSY, _E.LOST): _S.DEAD,
    (_S.IDLE, _E.TAKE): _S.READY,
    (_S.IDLE, _E.START): _S.BUSY,
    (_S.IDLE, _E.CLOSE): _S.DEAD,
    (_S.IDLE, _E.LOST): _S.DEAD,
}


class ConnectionStateError(RuntimeError):
    """An event the table has no transition for in this state (a bug, never a peer's doing)."""

    code: Final = "connection_transition_refused"

    def __init__(self, state: str, event: str) -> None:
        super().__init__(f"connection in state {state!r} cannot take event {event!r}")
        self.state = state
        self.event = event


def next_state(state: str, event: str) -> str:
    """The state after ``event`` in ``state``; raises :class:`ConnectionStateError` if the
    table has no such transition."""
    try:
        return CONNECTION_TRANSITIONS[state, event]
    except KeyError:
        raise ConnectionStateError(state, event) from None


def diagram() -> str:
    """A Mermaid state diagram drawn from the table."""
    lines = ["stateDiagram-v2", f"    [*] --> {_S.HANDSHAKE}"]
    lines += [f"    {s} --> {d}: {e}" for (s, e), d in CONNECTION_TRANSITIONS.items()]
    lines.append(f"    {_S.DEAD} --> [*]")
    return "\n".join(lines)
