"""The endpoint challenge ``hookproof.challenge.v1``: protocol (pure) and challenger (I/O)."""

from .drift import DEFAULT_POLICY, DriftGuard, DriftPolicy, assess, drift_reason
from .protocol import BOUND_FIELDS, REASON_CODES, Challenge, build_challenge, check_response
from .service import ChallengeOutcome, Challenger

__all__ = [
    "BOUND_FIELDS",
    "DEFAULT_POLICY",
    "REASON_CODES",
    "Challenge",
    "ChallengeOutcome",
    "Challenger",
    "DriftGuard",
    "DriftPolicy",
    "assess",
    "build_challenge",
    "check_response",
    "drift_reason",
]
