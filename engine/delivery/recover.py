"""Recovery by time range: a subscription's deliveries in some states, last changed inside
``[since, until)``, go back to RETRYABLE with their identity (DESIGN section 11).

Each recovered delivery gets its own ``delivery.replay_requested`` (one more attempt, the
next attempt number, same deliveryId) and the call one ``deliveries.recovered`` on the
subscription's stream naming who asked, the range, the states and the count. Nothing here
sends: the dispatcher claims the deliveries like any other and applies the same admission
(fencing) to them, so an older generation's delivery drains to its own endpoint or is
quarantined by the subscription's old-generation policy, never sent to a newer endpoint.
Repeating a call recovers nothing new (the deliveries have left the states asked for).
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import structlog

from hookproof.errors import ConcurrencyConflict, ConflictError, NotFound, ValidationError
from hookproof.events import EventStore, Metadata, StreamAppend
from hookproof.events.delivery_events import (
    DeliveriesRecovered,
    DeliveryReplayRequested,
    delivery_stream_id,
)
from hookproof.projections.ledger import LEDGER_STATES, LedgerState, ledger_next
from hookproof.schemas.api import MAX_RECOVER

from ..subscriptions import SubscriptionService, stream_of
from ..subscriptions.validation import parse_time
from .repository import DeliveryRepository
from .streams import append_to_deliveries

__all__ = ["MAX_RECOVER", "RecoverResult", "Recovery", "recoverable_states"]

log = structlog.get_logger("hookproof.recover")
#: at most this many deliveries per call (``nextSince`` says where to go on)
_CHUNK = 500  # deliveries per append (one transaction each)


def recoverable_states() -> frozenset[str]:
    """Ledger states a recovery may take a delivery out of (the ledger's ``replay`` rule)."""
    return frozenset(s for s in LEDGER_STATES if ledger_next(s, "replay") is not None)


@dataclass(frozen=True)
class RecoverResult:
    recovered: int
    delivery_ids: list[str]
    next_since: str | None
    recovery_id: str | None

    def view(self) -> dict[str, Any]:
        out: dict[str, Any] = {"recovered": self.recovered, "deliveryIds": self.delivery_ids}
        if self.next_since is not None:
            out["nextSince"] = self.next_since
        if self.recovery_id is not None:
            out["recoveryId"] = self.recovery_id
        return out


class Recovery:
    def __init__(
        self,
        store: EventStore,
        subscriptions: SubscriptionService,
        *,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
        repository: DeliveryRepository | None = None,
    ) -> None:
        self.store = store
        self.subscriptions = subscriptions
        self.repository = repository or DeliveryRepository.of(store)
        self.clock = clock

    async def recover(
        self,
        subscription_id: str,
        *,
        tenant_id: str | None,
        since: str,
        until: str | None = None,
        states: Sequence[str] | None = None,
        limit: int | None = None,
        actor: str,
    ) -> RecoverResult:
        """``tenant_id`` None: the operator (any tenant's subscription)."""
        start = parse_time(since, "since")
        end = parse_time(until, "until") if until is not None else None
        if end is not None and end <= start:
            raise ValidationError("until must be after since", field="until")
        wanted = sorted(set(states or [LedgerState.DEAD_LETTER.value]))
        allowed = recoverable_states()
        bad = [s for s in wanted if s not in allowed]
        if bad:
            raise ValidationError(
                f"states must be among {', '.join(sorted(allowed))}",
                field="states",
                code="state_not_recoverable",
            )
        cap = MAX_RECOVER if limit is None else limit
        if not 1 <= cap <= MAX_RECOVER:
            raise ValidationError(f"limit must be 1..{MAX_RECOVER}", field="limit")
        if tenant_id is not None:
            state = await self.subscriptions.get(tenant_id, subscription_id)
        else:
            loaded = await self.subscriptions.load(subscription_id)
            if loaded is None:
                raise NotFound("no such subscription", code="subscription_not_found")
            state = loaded
        if state.state != "ACTIVE":
            raise ConflictError(
                f"a {state.state} subscription cannot be recovered into",
                code="subscription_not_active",
                state=state.state,
            )
        recovery_id = "rcv_" + secrets.token_hex(12)
        done: list[str] = []
        next_since: str | None = None

        async def candidates(limit: int) -> list[Any]:
            return await self.repository.recoverable(
                tenant_id, subscription_id, wanted, start, end, limit
            )

        for _round in range(5):  # a delivery that moved meanwhile: read the range again
            rows = await candidates(cap - len(done) + 1)
            more = len(rows) > cap - len(done)
            rows = rows[: cap - len(done)]
            try:
                for i in range(0, len(rows), _CHUNK):
                    chunk = rows[i : i + _CHUNK]
                    await self._append(chunk, recovery_id, actor)
                    done.extend(r["delivery_id"] for r in chunk)
            except ConcurrencyConflict:
                continue
            if more:
                following = await candidates(1)
                if following:
                    next_since = following[0]["updated_at"].isoformat()
            break
        else:
            raise ConflictError(
                "the deliveries in range kept changing; call again", code="recover_race"
            )
        if done:
            now = self.clock().isoformat()
            await self.store.append(
                [
                    StreamAppend(
                        stream_of(subscription_id),
                        [
                            DeliveriesRecovered(
                                subscription_id=subscription_id,
                                by=actor,
                                since=start.isoformat(),
                                until=end.isoformat() if end is not None else None,
                                states=wanted,
                                count=len(done),
                                recovery_id=recovery_id,
                                at=now,
                            )
                        ],
                        "any",
                        Metadata(actor=actor, correlation_id=recovery_id),
                    )
                ]
            )
        log.info(
            "deliveries_recovered",
            subscription_id=subscription_id,
            recovery_id=recovery_id,
            count=len(done),
            actor=actor,
            more=next_since is not None,
        )
        return RecoverResult(len(done), done, next_since, recovery_id if done else None)

    async def _append(self, rows: Sequence[Any], recovery_id: str, actor: str) -> None:
        now = self.clock().isoformat()
        await append_to_deliveries(
            self.store,
            [
                StreamAppend(
                    delivery_stream_id(r['delivery_id']),
                    [DeliveryReplayRequested(delivery_id=r["delivery_id"], by=actor, at=now)],
                    r["stream_version"],
                    Metadata(actor=actor, correlation_id=r["event_id"], causation_id=recovery_id),
                )
                for r in rows
            ],
        )
