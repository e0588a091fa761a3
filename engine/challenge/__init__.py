"""The endpoint challenge ``hookproof.challenge.v1``: protocol (pure) and challenger (I/O)."""

from .protocol import BOUND_FIELDS, Challenge, build_challenge, check_response
from .service import ChallengeOutcome, Challenger

__all__ = [
    "BOUND_FIELDS",
    "Challenge",
    "ChallengeOutcome",
    "Challenger",
    "build_challenge",
    "check_response",
]
