"""Projection ``attempt_stats``: attempts per subscription, hour (UTC) and outcome.

What ``GET /v1/subscriptions/{id}/attempt-stats`` answers from, so that a request reads at most
25 hours x a few outcomes of rows however busy the subscription was (it used to join every
delivery of the last 24 hours to its events). Kept by the projector in batches, never on the
delivery path: a pass folds every delivery event since its checkpoint in one statement on the
server (``attempt_stats.tail.sql``), so the counts move once per pass per bucket, not once per
attempt, and no event row comes to Python.

The fold (this module, pure; the rebuild runs it) and its SQL twin (``attempt_stats_fold.sql``)
count the same way:

- an accepted attempt (``delivery.endpoint_accepted``) counts as ``ENDPOINT_ACCEPTED``, a lost
  one (``delivery.attempt_lost``) as ``UNKNOWN_TRANSPORT``, a failed one
  (``delivery.attempt_failed``) as its ``outcome`` (``RETRYABLE`` or ``UNKNOWN_TRANSPORT``), in
  the UTC hour the event was recorded;
- a ``delivery.dead_lettered`` right after a failed attempt (the next version of the stream,
  in the same append or a later one) moves that attempt to ``DEAD_LETTER``, in its own hour;
- only buckets with attempts are rows: one whose count comes back to zero is deleted, so the
  table does not depend on how the log was paged;
- each row keeps a histogram of its attempts' durations (``latency``: one count per bucket of
  :data:`LATENCY_BOUNDS_MS`, fixed log-spaced bounds; an accepted or failed attempt counts in
  the bucket of its ``duration_ms``, a lost one has no duration and counts in none), moved
  with the attempt to ``DEAD_LETTER``; :func:`percentiles` reads p50/p90/p99 from a sum of
  them, so the charts' latency needs no scan of deliveries.

The archive takes back what the fold counted of the streams it removes (``unfold``, in its
removal transaction), so the rows stay the fold of the hot log: ``projections rebuild
--verify`` compares them with a rebuild like any projection.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any, Final

from hookproof.events import Position, RecordedEvent
from hookproof.events.delivery_events import AttemptFailed, DeliveryPlanned, EndpointAccepted
from hookproof.events.sqlfiles import render

from .base import Projection, Row
from .ledger import LedgerState
from .queries import PROJECTION_QUERIES

__all__ = [
    "DEAD_LETTER_OUTCOME",
    "LATENCY_BOUNDS_MS",
    "LATENCY_BUCKETS",
    "AttemptFold",
    "AttemptStats",
    "add_latency",
    "hour_of",
    "latency_bucket",
    "percentiles",
]

SQL = PROJECTION_QUERIES.named("attempt_stats.tail", "attempt_stats.apply", "attempt_stats.unfold")

_PLANNED: Final = "delivery.planned"
_ACCEPTED: Final = "delivery.endpoint_accepted"
_FAILED: Final = "delivery.attempt_failed"
_LOST: Final = "delivery.attempt_lost"
_DEAD: Final = "delivery.dead_lettered"
#: the outcome a failed attempt followed by its dead letter counts as (the outcomes are named
#: as the ledger states the attempt led to)
DEAD_LETTER_OUTCOME: Final = LedgerState.DEAD_LETTER.value
_ACCEPTED_AS: Final = LedgerState.ENDPOINT_ACCEPTED.value
_LOST_AS: Final = LedgerState.UNKNOWN_TRANSPORT.value
_PREFIX: Final = len("delivery-")

#: The latency histogram's bucket bounds in ms: 8 per decade from 1 ms to 100 s (41 bounds,
#: 42 buckets: below 1 ms, then [bound i-1, bound i), then 100 s and more). A bucket spans a
#: factor 10^(1/8) (1.33): a percentile read from it is within that factor. The SQL fold gets
#: them as its parameter $1 (``width_bucket``), so both folds bucket alike.
LATENCY_BOUNDS_MS: Final = tuple(round(10 ** (i / 8), 3) for i in range(41))
LATENCY_BUCKETS: Final = len(LATENCY_BOUNDS_MS) + 1


def latency_bucket(duration_ms: float) -> int:
    """The bucket of ``duration_ms``: how many bounds are at or below it (``width_bucket``)."""
    return bisect_right(LATENCY_BOUNDS_MS, duration_ms)


def add_latency(into: list[int], other: Sequence[int]) -> list[int]:
    """``into`` plus ``other``, bucket by bucket (in place; returned)."""
    for i, n in enumerate(other):
        into[i] += n
    return into


def percentiles(
    counts: Sequence[int], qs: Sequence[float] = (0.5, 0.9, 0.99)
) -> list[float] | None:
    """The ``qs`` quantiles (ms) of a histogram, interpolated linearly inside the bucket the
    rank falls in (as Prometheus' ``histogram_quantile``; the last bucket, open-ended, gives its
    lower bound); None for an empty one."""
    total = sum(counts)
    if total <= 0:
        return None
    out = []
    for q in qs:
        rank = q * total
        seen = 0
        for i, n in enumerate(counts):
            if n > 0 and seen + n >= rank:
                lo = LATENCY_BOUNDS_MS[i - 1] if i > 0 else 0.0
                if i >= len(LATENCY_BOUNDS_MS):
                    out.append(lo)
                else:
                    hi = LATENCY_BOUNDS_MS[i]
                    out.append(round(lo + (hi - lo) * (rank - seen) / n, 3))
                break
            seen += n
    return out


#: a delivery's (subscription, tenant), from its ``delivery.planned``
_Owner = tuple[str, str]


def hour_of(at: datetime) -> datetime:
    """The UTC hour ``at`` falls in (``date_trunc('hour', at, 'UTC')``)."""
    return at.astimezone(UTC).replace(minute=0, second=0, microsecond=0)


class AttemptFold(dict[Any, Row]):
    """A rebuild's in-memory table (bucket key -> row) and what the fold remembers per
    delivery: its tenant and subscription (from ``delivery.planned``), and its last failed
    attempt's version, hour and outcome (for a dead letter that follows it)."""

    def __init__(self) -> None:
        super().__init__()
        self.owners: dict[str, _Owner] = {}
        self.failed: dict[str, tuple[int, datetime, str, int]] = {}


class AttemptStats(Projection):
    name = "attempt_stats"
    table = "proj_attempt_stats"
    columns = ("subscription_id", "hour", "outcome", "tenant_id", "attempts", "latency")
    key_column = "subscription_id, hour, outcome"
    key_columns = ("subscription_id", "hour", "outcome")
    categories = ("delivery",)
    row_statements = False

    def new_state(self) -> AttemptFold:
        return AttemptFold()

    # -- the pure fold (rebuild, verify) -----------------------------------------------------

    def fold_page(self, events: Sequence[RecordedEvent], state: dict[Any, Row]) -> None:
        """Fold ``events`` (commit order) into ``state``, an :class:`AttemptFold`."""
        assert isinstance(state, AttemptFold)
        owners, failed = state.owners, state.failed
        for ev in events:
            kind = ev.type
            if not ev.stream_id.startswith("delivery-"):
                continue
            did = ev.stream_id[_PREFIX:]
            if kind == _PLANNED:
                plan = ev.decode()
                assert isinstance(plan, DeliveryPlanned)
                owners[did] = (plan.subscription_id, plan.tenant_id)
                continue
            owner = owners.get(did)
            if owner is None:  # no plan in the hot log: nothing to count it for
                continue
            if kind == _ACCEPTED:
                accepted = ev.decode()
                assert isinstance(accepted, EndpointAccepted)
                b = latency_bucket(accepted.duration_ms)
                _bump(state, owner, hour_of(ev.recorded_at), _ACCEPTED_AS, 1, b)
            elif kind == _LOST:
                _bump(state, owner, hour_of(ev.recorded_at), _LOST_AS, 1, None)
            elif kind == _FAILED:
                failure = ev.decode()
                assert isinstance(failure, AttemptFailed)
                hour, outcome = hour_of(ev.recorded_at), failure.outcome
                b = latency_bucket(failure.duration_ms)
                _bump(state, owner, hour, outcome, 1, b)
                failed[did] = (ev.stream_version, hour, outcome, b)
            elif kind == _DEAD:
                last = failed.pop(did, None)
                if last is not None and last[0] == ev.stream_version - 1:
                    _bump(state, owner, last[1], last[2], -1, last[3])
                    _bump(state, owner, last[1], DEAD_LETTER_OUTCOME, 1, last[3])

    # -- the incremental path, in the database ----------------------------------------------

    async def apply_tail(
        self, conn: Any, after: Position, limit: int, table: str
    ) -> tuple[int, Position | None]:
        """Fold the next page (at most ``limit`` delivery events after ``after``) into
        ``table`` in one statement: (events read, the last one's position)."""
        r = await conn.fetchrow(
            render(SQL["attempt_stats.tail"], table=table),
            LATENCY_BOUNDS_MS,
            str(after.tx_id),
            after.global_position,
            limit,
        )
        n = int(r["events"])
        return n, (Position(int(r["tx_id"]), int(r["global_position"])) if n else None)

    async def apply_incremental(
        self, conn: Any, events: Sequence[RecordedEvent], table: str
    ) -> int:
        """Fold given events (a rebuild's catch-up of its fresh table) into ``table``."""
        positions = [ev.global_position for ev in events if ev.stream_id.startswith("delivery-")]
        if not positions:
            return 0
        n = await conn.fetchval(
            render(SQL["attempt_stats.apply"], table=table), LATENCY_BOUNDS_MS, positions
        )
        return int(n)

    async def unfold(self, conn: Any, streams: Sequence[str]) -> int:
        """Take back what was folded of ``streams`` (the archive, before it removes them),
        in the caller's transaction, which must hold the checkpoint row's lock."""
        ids = [s for s in streams if s.startswith("delivery-")]
        if not ids:
            return 0
        n = await conn.fetchval(
            render(SQL["attempt_stats.unfold"], table=self.table), LATENCY_BOUNDS_MS, ids
        )
        return int(n)


def _bump(
    state: AttemptFold,
    owner: _Owner,
    hour: datetime,
    outcome: str,
    delta: int,
    bucket: int | None,
) -> None:
    subscription_id, tenant_id = owner
    key = (subscription_id, hour, outcome)
    row = state.get(key)
    if row is None:
        row = state[key] = {
            "subscription_id": subscription_id,
            "hour": hour,
            "outcome": outcome,
            "tenant_id": tenant_id,
            "attempts": 0,
            "latency": [0] * LATENCY_BUCKETS,
        }
    row["attempts"] += delta
    if bucket is not None:
        row["latency"][bucket] += delta
    if row["attempts"] == 0:
        del state[key]
