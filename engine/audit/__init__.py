"""Event-replay auditing: timelines and as-of views, chain verification, release gates.

Everything here is computed from the event log alone (never from a projection), so it can
answer for what happened even when a projection is wrong.
"""

from .gates import GateResult, gate_report, gates_failed
from .timeline import (
    delivery_timeline,
    event_timeline,
    parse_as_of,
    subscription_timeline,
)
from .verify import VerifyReport, verify_log

__all__ = [
    "GateResult",
    "VerifyReport",
    "delivery_timeline",
    "event_timeline",
    "gate_report",
    "gates_failed",
    "parse_as_of",
    "subscription_timeline",
    "verify_log",
]
