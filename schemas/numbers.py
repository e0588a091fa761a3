"""The range of every number the API takes (issue 46, item 5), declared once.

Each bound is a ``msgspec.Meta``: the decoder refuses a value outside it (400
``number_out_of_range`` naming the field, ``engine/api/problems.py``) and the OpenAPI document
shows it as ``minimum``/``maximum`` (``msgspec.json.schema_components``), so the two cannot
drift. The ranges are what the engine's arithmetic and Postgres hold: a float is never NaN or
infinite (JSON has neither and the decoder refuses ``1e400``), never a denormal nor so small
that ``1 / x`` or ``x * t`` leaves float8's range (every float has a positive lower bound or
0), and every integer fits a Postgres ``int`` or ``bigint`` where it is stored.
"""

from __future__ import annotations

from typing import Annotated, Final

import msgspec

__all__ = [
    "AGGREGATE_VERSION_MAX",
    "ATTEMPTS_MAX",
    "ATTEMPT_NUMBER_MAX",
    "BURST_MAX",
    "DAY_S",
    "DELAY_MIN_S",
    "DUAL_WINDOW_MAX_S",
    "EVENT_VERSION_MAX",
    "PER_SECOND_MAX",
    "PER_SECOND_MIN",
    "TTL_MAX_S",
    "TTL_MIN_S",
    "WEEK_S",
    "AggregateVersion",
    "AttemptNumber",
    "Attempts",
    "Burst",
    "DualWindowS",
    "EventVersion",
    "GapTimeoutS",
    "InitialDelayS",
    "MaxDelayS",
    "Multiplier",
    "PerSecond",
    "Percent",
    "RetryAfterCapS",
    "TtlSeconds",
]

DAY_S: Final = 86_400
WEEK_S: Final = 7 * DAY_S
#: the most attempts a retry policy may ask for (a delivery's attempt number stays tiny)
ATTEMPTS_MAX: Final = 100
#: the shortest first retry delay: 1 ms (no denormal, ``delay * multiplier ** n`` stays finite)
DELAY_MIN_S: Final = 0.001
#: a rate below one request in 1,000 s is refused: ``1 / perSecond`` and ``perSecond * t``
#: stay well inside float8 (5e-324 once underflowed every claim: issue 46)
PER_SECOND_MIN: Final = 0.001
PER_SECOND_MAX: Final = 100_000
BURST_MAX: Final = 100_000
EVENT_VERSION_MAX: Final = 10_000
#: an event's aggregate version is a Postgres bigint (checked before: ``ingest/event_checks``)
AGGREGATE_VERSION_MAX: Final = 2**62
#: an attempt's number as a report or an answer names it (a Postgres ``int``: replays add
#: attempts beyond a policy's ``maxAttempts``)
ATTEMPT_NUMBER_MAX: Final = 2**31 - 1
DUAL_WINDOW_MAX_S: Final = 90 * DAY_S
TTL_MIN_S: Final = 60
TTL_MAX_S: Final = DAY_S


def _range(lo: float, hi: float, unit: str) -> msgspec.Meta:
    return msgspec.Meta(ge=lo, le=hi, description=f"{lo}..{hi} {unit}".rstrip())


Attempts = Annotated[int, _range(1, ATTEMPTS_MAX, "attempts")]
InitialDelayS = Annotated[float, _range(DELAY_MIN_S, DAY_S, "seconds")]
MaxDelayS = Annotated[float, _range(DELAY_MIN_S, WEEK_S, "seconds")]
Multiplier = Annotated[float, _range(1, 10, "")]
RetryAfterCapS = Annotated[float, _range(0, WEEK_S, "seconds")]
PerSecond = Annotated[float, _range(PER_SECOND_MIN, PER_SECOND_MAX, "requests per second")]
Burst = Annotated[int, _range(1, BURST_MAX, "requests")]
GapTimeoutS = Annotated[float, _range(0, DAY_S, "seconds")]
EventVersion = Annotated[int, _range(0, EVENT_VERSION_MAX, "")]
AggregateVersion = Annotated[int, _range(0, AGGREGATE_VERSION_MAX, "")]
DualWindowS = Annotated[float, _range(0, DUAL_WINDOW_MAX_S, "seconds")]
Percent = Annotated[int, _range(0, 100, "percent")]
AttemptNumber = Annotated[int, _range(1, ATTEMPT_NUMBER_MAX, "")]
TtlSeconds = Annotated[int, _range(TTL_MIN_S, TTL_MAX_S, "seconds")]
