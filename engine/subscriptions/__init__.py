"""Subscriptions as generational resources: state machine, decisions, service."""

from .decide import GENERATION_FIELDS, PROOF_FIELDS, Register, Transition, Update, decide
from .machine import ELIGIBLE, STATES, TERMINAL, TRANSITIONS, diagram, next_state
from .service import SubscriptionService, stream_of

__all__ = [
    "ELIGIBLE",
    "GENERATION_FIELDS",
    "PROOF_FIELDS",
    "STATES",
    "TERMINAL",
    "TRANSITIONS",
    "Register",
    "SubscriptionService",
    "Transition",
    "Update",
    "decide",
    "diagram",
    "next_state",
    "stream_of",
]
