"""The attempt statistics as ``attempt-stats`` answers them: rows of ``proj_attempt_stats``
(subscription, hour, outcome, attempts, latency histogram) put into the window's buckets,
one per hour or per UTC day, each with its counts by outcome and its latency percentiles,
and the window's percentiles over all its attempts. Pure: the rows are read by the caller.

The percentiles come from the sum of the buckets' histograms
(:func:`hookproof.projections.attempt_stats.percentiles`): within a factor 10^(1/8) (1.33) of
the true value, never from a scan of deliveries. An attempt without a duration (lost with its
dispatcher) counts in ``counts`` but in no percentile: ``latency.count`` says how many did.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any

from hookproof.projections.attempt_stats import LATENCY_BUCKETS, add_latency, percentiles

__all__ = ["INTERVALS", "Window", "latency_view", "stats_view"]

#: ``interval`` of ``attempt-stats``: a bucket per hour or per UTC day
INTERVALS = ("hour", "day")


class Window:
    """The buckets of a window: ``hours`` whole hours ending with the current one
    (``interval="hour"``), or the ``hours // 24`` UTC days ending with today (``"day"``).
    ``start`` is the first row's hour to read; ``place`` maps a row's hour to its bucket."""

    def __init__(self, now: datetime, hours: int, interval: str = "hour") -> None:
        this_hour = now.replace(minute=0, second=0, microsecond=0)
        if interval == "day":
            days = max(1, hours // 24)
            first = this_hour.replace(hour=0) - timedelta(days=days - 1)
            starts = [first + timedelta(days=i) for i in range(days)]
            self.step = timedelta(days=1)
        else:
            first = this_hour - timedelta(hours=hours - 1)
            starts = [first + timedelta(hours=i) for i in range(hours)]
            self.step = timedelta(hours=1)
        self.start = first
        self.starts = starts
        self.text = [h.isoformat() for h in starts]
        self.interval = interval

    def place(self, hour: datetime) -> int | None:
        """The bucket of a row's hour, None outside the window."""
        if hour < self.start:
            return None
        i = int((hour - self.start) / self.step)
        return i if i < len(self.starts) else None


def latency_view(histogram: Sequence[int]) -> dict[str, Any] | None:
    """``{"p50", "p90", "p99", "count"}`` (ms; count: attempts with a duration) or None."""
    qs = percentiles(histogram)
    if qs is None:
        return None
    return {"p50": qs[0], "p90": qs[1], "p99": qs[2], "count": sum(histogram)}


def stats_view(subscription_id: str, window: Window, rows: Sequence[Any]) -> dict[str, Any]:
    """``{"subscriptionId", "since", "interval", "latency", "buckets"}``: one bucket per hour
    (or day) of the window, oldest first, each ``{"hour", "counts": {outcome: n},
    "latency"}`` (rows outside the window are left out); ``latency`` of the whole window."""
    counts: list[dict[str, int]] = [{} for _ in window.text]
    hists: list[list[int]] = [[0] * LATENCY_BUCKETS for _ in window.text]
    total = [0] * LATENCY_BUCKETS
    for r in rows:
        i = window.place(r["hour"])
        if i is None:
            continue
        counts[i][r["outcome"]] = counts[i].get(r["outcome"], 0) + int(r["attempts"])
        add_latency(hists[i], r["latency"])
        add_latency(total, r["latency"])
    return {
        "subscriptionId": subscription_id,
        "since": window.text[0],
        "interval": window.interval,
        "latency": latency_view(total),
        "buckets": [
            {"hour": h, "counts": c, "latency": latency_view(x)}
            for h, c, x in zip(window.text, counts, hists, strict=True)
        ],
    }
