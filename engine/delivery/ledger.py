"""The ledger state machine (one transition table) and the pure admission decision."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = [
    "LEDGER_TRANSITIONS",
    "Admit",
    "Defer",
    "Refuse",
    "admission",
    "diagram",
    "ledger_next",
]

LEDGER_TRANSITIONS: dict[tuple[str, str], str] = {
    ("PLANNED", "admit"): "DISPATCHING",
    ("RETRYABLE", "admit"): "DISPATCHING",
    ("UNKNOWN_TRANSPORT", "admit"): "DISPATCHING",
    ("DISPATCHING", "accepted"): "ENDPOINT_ACCEPTED",
    ("DISPATCHING", "failed"): "RETRYABLE",
    ("DISPATCHING", "lost"): "UNKNOWN_TRANSPORT",
    ("DISPATCHING", "exhausted"): "DEAD_LETTER",
    ("RETRYABLE", "exhausted"): "DEAD_LETTER",
    ("UNKNOWN_TRANSPORT", "exhausted"): "DEAD_LETTER",
    ("PLANNED", "quarantine"): "QUARANTINED",
    ("RETRYABLE", "quarantine"): "QUARANTINED",
    ("UNKNOWN_TRANSPORT", "quarantine"): "QUARANTINED",
    ("DEAD_LETTER", "replay"): "RETRYABLE",
    ("ENDPOINT_ACCEPTED", "redeliver"): "RETRYABLE",  # receipt contract: no receipt in time
    ("QUARANTINED", "replay"): "RETRYABLE",
    ("ENDPOINT_ACCEPTED", "confirm"): "APPLICATION_CONFIRMED",
    ("RETRYABLE", "confirm"): "APPLICATION_CONFIRMED",
    ("UNKNOWN_TRANSPORT", "confirm"): "APPLICATION_CONFIRMED",
    ("DISPATCHING", "confirm"): "APPLICATION_CONFIRMED",
    ("DEAD_LETTER", "confirm"): "APPLICATION_CONFIRMED",
}


def ledger_next(state: str, command: str) -> str | None:
    return LEDGER_TRANSITIONS.get((state, command))


def diagram() -> str:
    lines = ["stateDiagram-v2", "    [*] --> PLANNED: ingest"]
    lines += [f"    {s} --> {d}: {c}" for (s, c), d in sorted(LEDGER_TRANSITIONS.items())]
    return "\n".join(lines)


@dataclass(frozen=True)
class Admit:
    drain: bool = False  # an earlier generation's admitted delivery, draining to its endpoint


@dataclass(frozen=True)
class Refuse:
    reason: str  # stale_generation | subscription_closed


@dataclass(frozen=True)
class Defer:
    reason: str  # subscription_suspended | subscription_pending_challenge
    seconds: float


def admission(
    delivery: dict[str, Any], subscription: dict[str, Any] | None
) -> Admit | Refuse | Defer:
    """May this delivery get an attempt now? Decided against the subscription row read
    ``FOR SHARE`` in the admitting transaction (the fencing check)."""
    if subscription is None:
        return Refuse("subscription_missing")
    state = subscription["state"]
    if state in ("REVOKED", "EXPIRED"):
        return Refuse("subscription_closed")
    planned, current = delivery["generation"], subscription["generation"]
    if planned == current:
        if state in ("ACTIVE", "ROTATING"):
            return Admit()
        if state == "SUSPENDED":
            return Defer("subscription_suspended", 30.0)
        return Defer("subscription_pending_challenge", 15.0)
    # An older generation: only deliveries already admitted before may drain, by policy.
    if (
        delivery["attempt"] >= 1
        and subscription["old_generation_policy"] == "drain"
        and state != "SUSPENDED"
    ):
        return Admit(drain=True)
    return Refuse("stale_generation")
