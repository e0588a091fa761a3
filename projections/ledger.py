"""The delivery ledger state machine: one transition table, used by the fold, the admission
rule (``engine/delivery/admission.py``), the claim query (checked by a test) and the docs.

Each event of a ``delivery-<id>`` stream is one command (:func:`command_of`); the table says
which state it moves the delivery to from which state. Anything not listed is forbidden, and
the fold refuses it (:class:`LedgerTransitionForbidden`), so an event the table does not allow
can never be appended in the transaction that projects it.

Outcomes are appended at the version the admission left, or, when something else was recorded
meanwhile (a receipt, a lease taken over and a later attempt), after it. Such late evidence has
commands of its own (``late_accepted``, ``late_failed``, ``late_unknown``: an outcome arriving
in any state but DISPATCHING) and rows of its own (``_LATE``). It is always recorded as an
event, and it never takes a delivery backwards from ENDPOINT_ACCEPTED or
APPLICATION_CONFIRMED: a late failure there is evidence only.
"""

from __future__ import annotations

import enum
from typing import Final

from hookproof.events import Event
from hookproof.events import delivery_events as de

__all__ = [
    "ABSENT",
    "ACCEPTED_ON_ENTRY",
    "ADMITTING",
    "EVENT_COMMANDS",
    "EVIDENCE_ONLY",
    "LATE_COMMANDS",
    "LEDGER_STATES",
    "LEDGER_TRANSITIONS",
    "LOG_INDEXED",
    "NOT_THROUGH",
    "OPEN",
    "ORDER_RELEASING",
    "SUBSETS",
    "TERMINAL",
    "LedgerState",
    "LedgerTransitionForbidden",
    "Step",
    "command_of",
    "diagram",
    "ledger_next",
    "sources",
    "step",
    "transition",
]


class LedgerState(enum.StrEnum):
    PLANNED = "PLANNED"
    DISPATCHING = "DISPATCHING"
    ENDPOINT_ACCEPTED = "ENDPOINT_ACCEPTED"
    RETRYABLE = "RETRYABLE"
    UNKNOWN_TRANSPORT = "UNKNOWN_TRANSPORT"
    DEAD_LETTER = "DEAD_LETTER"
    APPLICATION_CONFIRMED = "APPLICATION_CONFIRMED"
    QUARANTINED = "QUARANTINED"
    SKIPPED = "SKIPPED"  # a dead letter given up: releases its aggregate (ordered delivery)


ABSENT: Final = "ABSENT"  # pseudo state before ``delivery.planned``
LEDGER_STATES: Final = tuple(s.value for s in LedgerState)

S = LedgerState
# Every state an admission has left behind: where late evidence may land.
_AFTER_ADMISSION: Final = tuple(s for s in S if s is not S.PLANNED)

# (state, command) -> state: the path an attempt normally takes.
_PATH: Final[dict[tuple[str, str], str]] = {
    (ABSENT, "plan"): S.PLANNED,
    (S.PLANNED, "admit"): S.DISPATCHING,
    (S.RETRYABLE, "admit"): S.DISPATCHING,
    (S.UNKNOWN_TRANSPORT, "admit"): S.DISPATCHING,
    (S.DISPATCHING, "accepted"): S.ENDPOINT_ACCEPTED,
    (S.DISPATCHING, "failed"): S.RETRYABLE,
    (S.DISPATCHING, "unknown"): S.UNKNOWN_TRANSPORT,  # request maybe written, no response
    (S.DISPATCHING, "lease_expired"): S.UNKNOWN_TRANSPORT,  # the dispatcher vanished
    (S.RETRYABLE, "dead_letter"): S.DEAD_LETTER,
    (S.UNKNOWN_TRANSPORT, "dead_letter"): S.DEAD_LETTER,
    (S.PLANNED, "quarantine"): S.QUARANTINED,
    (S.RETRYABLE, "quarantine"): S.QUARANTINED,
    (S.UNKNOWN_TRANSPORT, "quarantine"): S.QUARANTINED,
    (S.DEAD_LETTER, "replay"): S.RETRYABLE,
    (S.DEAD_LETTER, "skip"): S.SKIPPED,  # ordered delivery: POST /v1/deliveries/{id}/skip
    (S.PLANNED, "gap_skipped"): S.PLANNED,  # ordered delivery: goes on without missing versions
    (S.QUARANTINED, "replay"): S.RETRYABLE,
    (S.ENDPOINT_ACCEPTED, "redeliver"): S.RETRYABLE,  # receipt contract: no receipt in time
    (S.DISPATCHING, "confirm"): S.APPLICATION_CONFIRMED,
    (S.ENDPOINT_ACCEPTED, "confirm"): S.APPLICATION_CONFIRMED,
    (S.RETRYABLE, "confirm"): S.APPLICATION_CONFIRMED,
    (S.UNKNOWN_TRANSPORT, "confirm"): S.APPLICATION_CONFIRMED,
    (S.DEAD_LETTER, "confirm"): S.APPLICATION_CONFIRMED,
    (S.SKIPPED, "confirm"): S.APPLICATION_CONFIRMED,
}

#: an attempt's outcome (on time: the delivery is DISPATCHING) -> its command when late
LATE_COMMANDS: Final[dict[str, str]] = {
    "accepted": "late_accepted",
    "failed": "late_failed",
    "unknown": "late_unknown",
}
# Acceptance is never undone by an outcome: these states keep what they have on late evidence.
_ACCEPTED: Final = (S.ENDPOINT_ACCEPTED, S.APPLICATION_CONFIRMED)


def _late(state: LedgerState, outcome: str) -> str:
    """Where late evidence of ``outcome`` takes a delivery in ``state``: an accepted or
    confirmed delivery stays where it is (a late acceptance of an unconfirmed one is no news);
    any other state takes the outcome as it would have on DISPATCHING."""
    if state in _ACCEPTED:
        return state
    return _PATH[S.DISPATCHING, outcome]


# Late evidence: an outcome recorded after something else moved the delivery.
_LATE: Final[dict[tuple[str, str], str]] = {
    **{
        (s, late): _late(s, outcome)
        for s in _AFTER_ADMISSION
        if s is not S.DISPATCHING
        for outcome, late in LATE_COMMANDS.items()
    },
    (S.APPLICATION_CONFIRMED, "dead_letter"): S.APPLICATION_CONFIRMED,
    # a refused receipt is evidence only; it never moves the delivery
    **{(s, "receipt_conflict"): s for s in S},
}

# plain strings: the rows and the database hold the states as text
LEDGER_TRANSITIONS: Final[dict[tuple[str, str], str]] = {
    (str(src), cmd): str(dst) for (src, cmd), dst in {**_PATH, **_LATE}.items()
}

# The named subsets of the states, all derived from the table. SQL and console.js cannot import
# them: they spell them out, and tests/delivery/test_ledger_names.py holds every such list
# (queries, the live database's index predicates and functions, console.js) to one of these.

#: Ledger states a claim may admit from, i.e. waiting for an attempt: the claim query, the due
#: index and the queue metrics list exactly these.
ADMITTING: Final = frozenset(src for (src, cmd) in LEDGER_TRANSITIONS if cmd == "admit")
#: A delivery still on its way: waiting for an attempt or with one in flight.
OPEN: Final = ADMITTING | {LEDGER_TRANSITIONS[src, "admit"] for src in ADMITTING}
#: Nothing more happens to it by itself (an operator's replay or a receipt may still move it).
TERMINAL: Final = frozenset(LEDGER_STATES) - OPEN
#: Release the next version of an ordered aggregate (``ordering: "aggregate"``): accepted or
#: later, skipped or quarantined. A dead letter holds its aggregate until replayed or skipped.
ORDER_RELEASING: Final = TERMINAL - {S.DEAD_LETTER}
#: Did not get through (yet): failed and waiting for a retry, or given up on.
NOT_THROUGH: Final = frozenset(LEDGER_STATES) - {S.PLANNED, S.DISPATCHING} - set(_ACCEPTED)
#: The states the delivery log's state filter has an index of (deliveries_log_rare_state): all
#: but the queue's (waiting, in flight: the queue's own indexes hold them) and
#: ENDPOINT_ACCEPTED, where most rows rest. A confirmed row is written once more anyway (its
#: receipt), and a tenant without receipts has none: its filter must not walk the whole log.
LOG_INDEXED: Final = NOT_THROUGH | {S.APPLICATION_CONFIRMED}
#: States a delivery enters only by an acceptance, on time or late ("accepted",
#: "late_accepted"): the fold records ``accepted_at`` with every acceptance and nothing clears
#: it, so each of their rows has endpoint evidence, and the log's ``evidence=NONE`` filter can
#: match none of them (a confirmation may come without an acceptance: APPLICATION_CONFIRMED is
#: not one of them).
ACCEPTED_ON_ENTRY: Final = frozenset(
    dst
    for dst in LEDGER_STATES
    if (entries := {c for (src, c), to in LEDGER_TRANSITIONS.items() if to == dst != src})
    and entries <= {"accepted", LATE_COMMANDS["accepted"]}
)
#: Each subset by name (what the tests match the spelled-out lists against), with the sources
#: of the operator's commands.
SUBSETS: Final[dict[str, frozenset[str]]] = {
    "ADMITTING": ADMITTING,
    "OPEN": OPEN,
    "TERMINAL": TERMINAL,
    "ORDER_RELEASING": ORDER_RELEASING,
    "NOT_THROUGH": NOT_THROUGH,
    "LOG_INDEXED": LOG_INDEXED,
    "REPLAYABLE": frozenset(src for (src, cmd) in LEDGER_TRANSITIONS if cmd == "replay"),
    "SKIPPABLE": frozenset(src for (src, cmd) in LEDGER_TRANSITIONS if cmd == "skip"),
}

#: Rows that record evidence and move nothing: a late failure of an accepted or confirmed
#: delivery, a dead letter after a confirmation, a refused receipt. The fold writes only the
#: time (and releases a lease) for these.
EVIDENCE_ONLY: Final = frozenset(
    {(str(s), LATE_COMMANDS[o]) for s in _ACCEPTED for o in ("failed", "unknown")}
    | {(str(S.APPLICATION_CONFIRMED), "dead_letter")}
    | {(str(s), "receipt_conflict") for s in S}
)
assert all(LEDGER_TRANSITIONS[row] == row[0] for row in EVIDENCE_ONLY)


class LedgerTransitionForbidden(ValueError):
    """An event the ledger table does not allow in the delivery's current state."""

    def __init__(self, state: str, command: str) -> None:
        super().__init__(f"ledger: {command} is not allowed in {state}")
        self.state = state
        self.command = command


EVENT_COMMANDS: Final[dict[type[Event], str]] = {
    de.DeliveryPlanned: "plan",
    de.AttemptAdmitted: "admit",
    de.EndpointAccepted: "accepted",
    de.AttemptLost: "lease_expired",
    de.DeadLettered: "dead_letter",
    de.DeliveryQuarantined: "quarantine",
    de.ApplicationConfirmed: "confirm",
    de.ReceiptConflict: "receipt_conflict",
    de.DeliverySkipped: "skip",
    de.OrderingGapSkipped: "gap_skipped",
}


def command_of(event: Event, state: str | None = None) -> str:
    """The ledger command a delivery-stream event stands for in ``state`` (None: as if on
    time). An attempt's outcome in any state but DISPATCHING is late evidence."""
    command = EVENT_COMMANDS.get(type(event))
    if command is None:
        if isinstance(event, de.AttemptFailed):
            command = "unknown" if event.outcome == S.UNKNOWN_TRANSPORT else "failed"
        elif isinstance(event, de.DeliveryReplayRequested):
            return "redeliver" if event.by == de.REDELIVERY_ACTOR else "replay"
        else:
            raise ValueError(f"{event.type} is not a delivery ledger event")
    if state is not None and state != S.DISPATCHING and command in LATE_COMMANDS:
        return LATE_COMMANDS[command]
    return command


def ledger_next(state: str, command: str) -> str | None:
    """The state after ``command`` in ``state``, or None when the table forbids it."""
    return LEDGER_TRANSITIONS.get((state, command))


def _command_in(state: str, kind: type[Event]) -> str:
    command = EVENT_COMMANDS[kind]
    return LATE_COMMANDS.get(command, command) if state != S.DISPATCHING else command


#: One step of the table: (command, next state, evidence only: the row is in EVIDENCE_ONLY).
Step = tuple[str, str, bool]


def _step(src: str, command: str) -> Step | None:
    dst = LEDGER_TRANSITIONS.get((src, command))
    return None if dst is None else (command, dst, (src, command) in EVIDENCE_ONLY)


# The table read by event type, for the types that always stand for one command (all but a
# failure and a replay request, which say which in a field): (state, type) -> step.
_BY_TYPE: Final[dict[tuple[str, type[Event]], Step]] = {
    (src, kind): hit
    for src in (ABSENT, *LEDGER_STATES)
    for kind in EVENT_COMMANDS
    if (hit := _step(src, _command_in(src, kind))) is not None
}


def step(state: str | None, event: Event) -> Step:
    """``(command, next state, evidence only)`` for ``event`` in ``state`` (None: the delivery
    does not exist yet): the one lookup of the table that :func:`transition` and the running
    fold (``projections/deliveries.py``) share. Raises :class:`LedgerTransitionForbidden`."""
    src = state or ABSENT
    hit = _BY_TYPE.get((src, type(event)))
    if hit is None:
        command = command_of(event, src)  # raises on an event that is no ledger event
        hit = _step(src, command)
        if hit is None:
            raise LedgerTransitionForbidden(src, command)
    return hit


def transition(state: str | None, event: Event) -> str:
    """The state after ``event`` (``state`` None: the delivery does not exist yet)."""
    return step(state, event)[1]


def sources(command: str) -> frozenset[str]:
    """Every state the table allows ``command`` in."""
    return frozenset(src for (src, cmd) in LEDGER_TRANSITIONS if cmd == command)


def diagram() -> str:
    """A Mermaid diagram of the normal path, then every late-evidence row as a table."""
    lines = ["```mermaid", "stateDiagram-v2"]
    for (src, cmd), dst in _PATH.items():
        lines.append(f"    {'[*]' if src == ABSENT else src} --> {dst}: {cmd}")
    lines += [
        "```",
        "",
        "Late evidence (an outcome recorded after the delivery moved on) and evidence-only",
        "events:",
        "",
        "| state | command | next state |",
        "|---|---|---|",
    ]
    lines += [f"| {src} | {cmd} | {dst} |" for (src, cmd), dst in _LATE.items()]
    return "\n".join(lines)
