"""How long an archival run pauses between its steps, so it does not take delivery's share.

Pure: no clock, no database. A run works in steps (collect a segment, write it, anchor it,
one removal transaction); after each it asks :func:`pause_after` how long to wait. The rule
is a duty cycle: a step that worked ``w`` seconds is followed by ``w * (1 - duty) / duty``
seconds of pause, so archival uses at most ``duty`` of the wall time of its process and its
database connection. While delivery lags (the oldest due delivery has waited longer than
``max_lag_s``) the duty drops to ``min_duty``: archival yields most of the machine to
delivery, unless archival itself has fallen behind: when the oldest stream it archives
became archivable more than ``max_behind_s`` ago, the full ``duty`` applies again whatever
delivery's lag. So the hot table stays bounded (about the production of
``retention + max_behind_s``) under a sustained overload too. The defaults leave the lag
rule off (``min_duty == duty``): in the retention benchmark delivery lagged because the hot
tables grew, and yielding made them grow further (docs/retention.md).
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Throttle", "pause_after"]


@dataclass(frozen=True)
class Throttle:
    """``duty``: share of wall time archival may work while delivery keeps up;
    ``min_duty``: its share while delivery lags; ``max_lag_s``: the lag (age of the oldest
    due delivery) beyond which delivery counts as lagging; ``max_behind_s``: how late archival
    may fall (past the cutoff) before it takes its full share anyway; ``pause_s``: the least
    pause."""

    duty: float = 0.5
    min_duty: float = 0.5
    max_lag_s: float = 2.0
    max_behind_s: float = 120.0
    pause_s: float = 0.02

    def __post_init__(self) -> None:
        if not (0.0 < self.min_duty <= 1.0 and 0.0 < self.duty <= 1.0):
            raise ValueError("archive duty cycles must be in (0, 1]")
        if self.pause_s < 0 or self.max_lag_s < 0 or self.max_behind_s < 0:
            raise ValueError("archive pause, lag and behind must not be negative")


def pause_after(
    worked_s: float, lag_s: float | None, throttle: Throttle, *, behind_s: float = 0.0
) -> float:
    """Seconds to pause after a step that worked ``worked_s`` seconds, given delivery's lag
    (``None``: nothing due, no lag) and how far archival is behind its cutoff."""
    lagging = lag_s is not None and lag_s > throttle.max_lag_s
    if behind_s > throttle.max_behind_s:
        lagging = False
    duty = min(throttle.duty, throttle.min_duty) if lagging else throttle.duty
    return max(throttle.pause_s, max(worked_s, 0.0) * (1.0 - duty) / duty)
