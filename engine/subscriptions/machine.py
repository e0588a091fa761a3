"""The subscription state machine as one transition table (used to decide and to draw)."""

from __future__ import annotations

__all__ = [
    "ELIGIBLE",
    "STATES",
    "TERMINAL",
    "TRANSITIONS",
    "diagram",
    "next_state",
]

STATES = ("PENDING_CHALLENGE", "ACTIVE", "ROTATING", "SUSPENDED", "REVOKED", "EXPIRED")
TERMINAL = frozenset({"REVOKED", "EXPIRED"})
#: States in which new delivery attempts may be admitted.
ELIGIBLE = frozenset({"ACTIVE", "ROTATING"})
_OPEN = ("PENDING_CHALLENGE", "ACTIVE", "ROTATING", "SUSPENDED")

TRANSITIONS: dict[tuple[str, str], str] = {
    ("PENDING_CHALLENGE", "activate"): "ACTIVE",
    ("ROTATING", "activate"): "ACTIVE",  # proved the next key generation
    ("ACTIVE", "start_rotation"): "ROTATING",
    ("ACTIVE", "suspend"): "SUSPENDED",
    ("ROTATING", "suspend"): "SUSPENDED",
    ("PENDING_CHALLENGE", "suspend"): "SUSPENDED",
    ("SUSPENDED", "resume"): "PENDING_CHALLENGE",  # resume goes through a new challenge
    ("ACTIVE", "challenge"): "PENDING_CHALLENGE",  # re-verification on demand
    ("PENDING_CHALLENGE", "challenge"): "PENDING_CHALLENGE",
    ("ROTATING", "challenge"): "ROTATING",
    **{(s, "update"): s for s in _OPEN},  # retry policy, expiry: same generation
    **{(s, "regenerate"): "PENDING_CHALLENGE" for s in _OPEN},  # endpoint/topic/... changed
    **{(s, "revoke"): "REVOKED" for s in _OPEN},
    **{(s, "expire"): "EXPIRED" for s in _OPEN},
}


def next_state(state: str, command: str) -> str | None:
    """The state after ``command`` in ``state``, or None when the table forbids it."""
    return TRANSITIONS.get((state, command))


def diagram() -> str:
    """A Mermaid state diagram drawn from the table."""
    lines = ["stateDiagram-v2", "    [*] --> PENDING_CHALLENGE: register"]
    for (src, cmd), dst in sorted(TRANSITIONS.items()):
        if src == dst:
            continue
        lines.append(f"    {src} --> {dst}: {cmd}")
    lines.extend(f"    {s} --> [*]" for s in sorted(TERMINAL))
    return "\n".join(lines)
