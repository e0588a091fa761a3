"""The claim as a pure plan over typed claim rows (the dispatcher is its thin I/O shell).

``plan_claim`` decides, row by row, what a claim does: quarantine (refused admission),
dead-letter (attempts exhausted, whatever ended the last one), admit (within the endpoint's
room), or leave the row for a later claim. ``claim_appends`` turns the plan and the signing
keys into the events to append in the claiming transaction.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, TypeVar

import msgspec

from hookproof.events import Metadata, StreamAppend
from hookproof.events.delivery_events import (
    AttemptAdmitted,
    DeadLettered,
    DeliveryQuarantined,
    OrderingGapSkipped,
    delivery_stream_id,
)
from hookproof.events.subscription_events import RetryPolicy, TransformationSpec
from hookproof.projections.ledger import LedgerState

from ..keys.signing import DEFAULT_PROFILE
from .admission import ClaimRow, Exhausted, Refuse, admission, claimable
from .ordering import gap_to_skip

__all__ = [
    "PARK_S",
    "STEAL_AFTER_S",
    "ClaimPlan",
    "KeyScope",
    "Send",
    "claim_appends",
    "claim_row",
    "claim_rows",
    "claim_shares",
    "dead_letter_event",
    "fair_pick",
    "key_scope",
    "plan_claim",
]

KeyScope = tuple[str, str]  # (scope, algorithm): one signing key per scope per claim

#: a sibling process's endpoints are claimed by others once their rows have been due this long
STEAL_AFTER_S = 0.5


def claim_shares(
    slot: tuple[int, int], steal_after_s: float = STEAL_AFTER_S
) -> list[tuple[int, int, bool, float]]:
    """``dispatch_claim``'s share arguments ($3-$6), in the order one claim tries them.

    Process ``index`` of ``count`` claims its own share of the endpoints first, so each
    subscriber site is served by one process and reuses its pooled connections; then the
    other shares' rows due for ``steal_after_s`` (a busy or dead sibling's work moves on).
    """
    index, count = slot
    if count <= 1:
        return [(1, 0, True, 0.0)]
    return [(count, index, True, 0.0), (count, index, False, steal_after_s)]


def claim_row(record: Mapping[str, Any]) -> ClaimRow:
    """A typed row from a ``dispatch_claim`` record (decodes the subscription's config)."""
    config = msgspec.json.decode(record["sub_config"])
    # an earlier generation's transformation is not in the current config: none is applied
    current = record["generation"] == record["sub_generation"]
    shaping = config.get("transformation") if current else None
    return ClaimRow(
        delivery_id=record["delivery_id"],
        event_id=record["event_id"],
        tenant_id=record["tenant_id"],
        subscription_id=record["subscription_id"],
        generation=record["generation"],
        endpoint=record["endpoint"],
        endpoint_digest=record["endpoint_digest"],
        payload_digest=record["payload_digest"],
        owner=record["owner"],
        state=record["state"],
        attempt=record["attempt"],
        max_attempts=record["max_attempts"],
        last_code=record["last_code"],
        stream_version=record["stream_version"],
        sub_state=record["sub_state"],
        sub_generation=record["sub_generation"],
        sub_version=record["sub_version"],
        signature_algorithm=config["signature_algorithm"],
        signature_profile=config.get("signature_profile") or DEFAULT_PROFILE,
        old_generation_policy=config.get("old_generation_policy", "drain"),
        # the delivery's own limit (a replay grants one more attempt than the policy had)
        retry_policy=msgspec.convert(
            {**(config.get("retry_policy") or {}), "max_attempts": record["max_attempts"]},
            RetryPolicy,
        ),
        aggregate_id=record.get("aggregate_id"),
        aggregate_version=record.get("aggregate_version"),
        ordering_gap_timeout_s=record.get("ordering_gap_timeout_s"),
        gap_skipped=bool(record.get("gap_skipped")),
        ordered_below=record.get("ordered_below"),
        created_at=record.get("created_at"),
        head_hash=record.get("head_hash"),
        format=config.get("format") or "hookproof",
        transformation=msgspec.convert(shaping, TransformationSpec) if shaping else None,
    )


#: how long a subscription whose claimed row cannot be read is left out of claims
PARK_S = 60.0


def claim_rows(
    records: Iterable[Mapping[str, Any]],
) -> tuple[list[ClaimRow], dict[str, str]]:
    """The readable rows of a claim, and ``{subscription_id: reason}`` of those that are not
    (issue 46: one subscription's stored config, e.g. a number out of every range, never
    fails the claim of the others; the dispatcher logs it and parks that subscription)."""
    rows: list[ClaimRow] = []
    parked: dict[str, str] = {}
    for record in records:
        sid = record["subscription_id"]
        if sid in parked:
            continue
        try:
            rows.append(claim_row(record))
        except (msgspec.MsgspecError, KeyError, TypeError, ValueError, OverflowError) as exc:
            parked[sid] = f"unreadable_config:{type(exc).__name__}"
    if parked:
        rows = [r for r in rows if r.subscription_id not in parked]
    return rows, parked


T = TypeVar("T")


def fair_pick(candidates: Sequence[T], limit: int, tenant: Callable[[T], Hashable]) -> list[T]:
    """The rows one claim takes of ``candidates`` (in due order, each endpoint's already within
    its room): at most ``limit``, in turns by tenant, each tenant's oldest first (every
    tenant's first row, then every tenant's second, ...; a turn in due order of the rows).
    No tenant takes more than one row beyond another's while that other has a candidate left
    (issue 46: one tenant's backlog, due first, never fills a claim another's row waits for).
    ``dispatch_claim.sql`` and ``dispatch_claim_endpoints.sql`` choose the same way (``turn``);
    returned in due order."""
    if limit <= 0:
        return []
    seen: dict[Hashable, int] = {}
    turns: list[tuple[int, int]] = []
    for i, row in enumerate(candidates):
        k = seen.get(tenant(row), 0)
        seen[tenant(row)] = k + 1
        turns.append((k, i))
    return [candidates[i] for _, i in sorted(sorted(turns)[:limit], key=lambda t: t[1])]


def key_scope(row: ClaimRow) -> KeyScope:
    alg = row.signature_algorithm
    return (row.subscription_id if alg == "hmac-sha256" else "engine", alg)


@dataclass(frozen=True, slots=True)
class Send:
    row: ClaimRow
    drain: bool


@dataclass
class ClaimPlan:
    quarantine: list[tuple[ClaimRow, Refuse]] = field(default_factory=list)
    dead_letter: list[tuple[ClaimRow, Exhausted]] = field(default_factory=list)
    send: list[Send] = field(default_factory=list)
    left: list[ClaimRow] = field(default_factory=list)  # no room at the endpoint (or not ours)

    def key_scopes(self) -> list[KeyScope]:
        return list(dict.fromkeys(key_scope(s.row) for s in self.send))


def plan_claim(rows: Iterable[ClaimRow], room: Callable[[str], int]) -> ClaimPlan:
    """What to do with each claimed row. ``room(endpoint_digest)``: attempts it may still take."""
    plan = ClaimPlan()
    taken: dict[str, int] = {}
    for row in rows:
        if not claimable(row):
            plan.left.append(row)
            continue
        verdict = admission(row)
        if isinstance(verdict, Refuse):
            plan.quarantine.append((row, verdict))
        elif isinstance(verdict, Exhausted):
            plan.dead_letter.append((row, verdict))
        else:
            digest = row.endpoint_digest
            if room(digest) - taken.get(digest, 0) <= 0:
                plan.left.append(row)  # enough in flight there; a later claim takes it
                continue
            taken[digest] = taken.get(digest, 0) + 1
            plan.send.append(Send(row, verdict.drain))
    return plan


def dead_letter_event(
    delivery_id: str, attempt: int, owner: str, reason: str, at: datetime
) -> DeadLettered:
    return DeadLettered(
        delivery_id=delivery_id,
        attempt=attempt,
        owner=owner,
        reason=reason,
        replay=f"POST /v1/deliveries/{delivery_id}/replay",
        at=at.isoformat(),
    )


@dataclass(frozen=True, slots=True)
class Admitted:
    """A send the claim admitted: its attempt number and the version after the admission."""

    row: ClaimRow
    attempt: int
    key: Any
    key_generation: int
    version: int


def claim_appends(
    plan: ClaimPlan,
    keys: Mapping[KeyScope, tuple[Any, int]],
    *,
    now: datetime,
    dispatcher: str,
    lease_s: float,
    extra: Callable[[ClaimRow], Mapping[str, Any]] | None = None,
) -> tuple[list[StreamAppend], list[Admitted]]:
    """The appends of one claim and the admitted sends. A send whose key scope has no key
    (e.g. no ACTIVE key after a compromise) is left for a later claim."""
    at = now.isoformat()
    lease_until = (now + timedelta(seconds=lease_s)).isoformat()
    appends: list[StreamAppend] = []

    def append(row: ClaimRow, *events: Any) -> None:
        meta = Metadata(actor=f"dispatcher:{dispatcher}", correlation_id=row.event_id)
        appends.append(
            StreamAppend(
                delivery_stream_id(row.delivery_id),
                list(events),
                row.stream_version,
                meta,
                expected_hash=row.head_hash,  # the claim read the head: not read again
            )
        )

    for row, refused in plan.quarantine:
        append(
            row,
            DeliveryQuarantined(
                delivery_id=row.delivery_id,
                reason=refused.reason,
                planned_generation=row.generation,
                current_generation=row.sub_generation,
                subscription_state=row.sub_state,
                at=at,
            ),
        )
    for row, spent in plan.dead_letter:
        append(row, dead_letter_event(row.delivery_id, row.attempt, row.owner, spent.reason, now))
    admitted: list[Admitted] = []
    for send in plan.send:
        row = send.row
        found = keys.get(key_scope(row))
        if found is None:
            continue
        key, key_generation = found
        attempt = row.attempt + 1
        before = []
        gap = gap_to_skip(row, now)
        if gap is not None:  # ordered delivery: the missing versions waited long enough
            assert row.aggregate_id is not None
            before.append(
                OrderingGapSkipped(
                    delivery_id=row.delivery_id,
                    aggregate_id=row.aggregate_id,
                    missing_from=gap.missing_from,
                    missing_to=gap.missing_to,
                    waited_s=round(gap.waited_s, 3),
                    at=at,
                )
            )
        append(
            row,
            *before,
            AttemptAdmitted(
                delivery_id=row.delivery_id,
                attempt=attempt,
                generation=row.generation,
                subscription_version=row.sub_version,
                endpoint=row.endpoint,
                payload_digest=row.payload_digest,
                key_id=key.key_id,
                key_generation=key_generation,
                signature_alg=key.alg,
                dispatcher=dispatcher,
                lease_until=lease_until,
                drain=send.drain,
                reconciles=row.state == LedgerState.UNKNOWN_TRANSPORT,
                at=at,
                **(extra(row) if extra is not None else {}),  # a rollout's signing decision
            ),
        )
        version = row.stream_version + 1 + len(before)
        admitted.append(Admitted(row, attempt, key, key_generation, version))
    return appends, admitted
