"""Receiving ``applicationReceipt.v1``: verify, bind to the delivery, deduplicate, confirm.

A receipt moves a delivery only when every check passed, in this order: the body is a
receipt; the subscription exists and has a receipt key; the RFC 9421 signature verifies
under that key (profile ``hookproof.receipt.v1``, ``@target-uri`` = the engine's receipts
URL); it claims the registered key generation; the delivery belongs to the named
subscription and event and was planned under the receipt contract. Then, per
``(subscriptionId, eventId)`` (one delivery): a payload digest other than the delivered one
is a ``ReceiptConflict`` (409, evidence unchanged); an already confirmed delivery answers
the same again (200, no new event); otherwise ``ApplicationConfirmed`` (201).
"""

from __future__ import annotations

import asyncio
import contextlib
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import msgspec
import structlog

from hookproof.errors import ConcurrencyConflict
from hookproof.events import EventStore, Metadata, StreamAppend
from hookproof.events.delivery_events import (
    ApplicationConfirmed,
    ReceiptConflict,
    ReceiptRefusalsCounted,
    delivery_stream_id,
)
from hookproof.events.subscription_events import ReceiptKey, SubscriptionConfig
from hookproof.projections.deliveries import evolve_delivery
from hookproof_subscriber import content_digest, parse_receipt
from hookproof_subscriber.receipts import ReceiptError

from ..common.jsonscan import TooDeep, check_depth
from ..delivery.admission import ledger_next
from ..delivery.streams import append_to_deliveries
from ..delivery.views import evidence_of
from ..observe.metrics import EngineMetrics
from .decide import ACCEPTED_STATUS, DUPLICATE_STATUS, REASONS
from .decide import verify_receipt_signature as _verify
from .repository import ReceiptRepository

__all__ = ["MAX_RECEIPT_BYTES", "ReceiptMetrics", "ReceiptOutcome", "ReceiptService"]

log = structlog.get_logger("hookproof.receipts")
MAX_RECEIPT_BYTES = 16 * 1024
_CONFIRM_RETRIES = 8
_ID = re.compile(r"^[A-Za-z0-9._:\-]{1,200}$")


def _bounded(value: str | None, limit: int = 80) -> str | None:
    """An attacker-supplied string as it may appear in a log line: short, printable."""
    if value is None:
        return None
    text = value[:limit].encode("ascii", "backslashreplace").decode()
    return text + "..." if len(value) > limit else text


class ReceiptMetrics:
    """Receipt outcomes and refusals as prometheus counters (on the engine's registry)."""

    def __init__(self, metrics: EngineMetrics | None = None) -> None:
        self.registry_metrics = metrics or EngineMetrics()  # standalone: a registry of its own
        self.registry_metrics.known_reasons(sorted(set(REASONS) - {"receipt_conflict"}))

    def count(self, outcome: str) -> None:  # accepted | duplicate | conflict
        self.registry_metrics.receipts.labels(outcome).inc()

    def reject(self, reason: str) -> None:
        self.registry_metrics.receipts.labels("rejected").inc()
        self.registry_metrics.receipts_rejected.labels(reason).inc()


class RefusalTally:
    """Refusals per existing subscription, by reason code, since the last flush (bounded)."""

    MAX_SUBSCRIPTIONS = 10_000

    def __init__(self, clock: Callable[[], datetime]) -> None:
        self.clock = clock
        self.since = clock()
        self.counts: dict[str, dict[str, int]] = {}
        self.untracked = 0

    def count(self, subscription_id: str, reason: str) -> None:
        per = self.counts.get(subscription_id)
        if per is None:
            if len(self.counts) >= self.MAX_SUBSCRIPTIONS:
                self.untracked += 1  # still counted in the metrics
                return
            per = self.counts[subscription_id] = {}
        per[reason] = per.get(reason, 0) + 1

    async def flush(self, store: EventStore) -> int:
        """One ``receipts.refusals_counted`` per subscription with refusals since the last
        flush, appended by the engine itself (``system:receipts``). Returns how many."""
        counts, since, until = self.counts, self.since, self.clock()
        self.counts, self.since = {}, until
        if self.untracked:
            log.warning("receipt_refusals_untracked", refusals=self.untracked)
            self.untracked = 0
        appends = [
            StreamAppend(
                f"receipts-{sid}",
                [
                    ReceiptRefusalsCounted(
                        subscription_id=sid,
                        counts=dict(sorted(per.items())),
                        since=since.isoformat(),
                        until=until.isoformat(),
                    )
                ],
                "any",
                Metadata(actor="system:receipts"),
            )
            for sid, per in sorted(counts.items())
        ]
        for i in range(0, len(appends), 500):
            await store.append(appends[i : i + 500])
        return len(appends)

    async def run(self, store: EventStore, interval_s: float, stop: asyncio.Event) -> None:
        """Flush every ``interval_s`` until ``stop``; a last flush on the way out."""
        while not stop.is_set():
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), interval_s)
            try:
                await self.flush(store)
            except Exception as exc:  # the next tick tries again with what it has
                log.warning("receipt_refusals_not_recorded", error=type(exc).__name__)


@dataclass(frozen=True)
class ReceiptOutcome:
    """The answer: ``status`` and a JSON ``body`` (problem+json when ``problem``)."""

    status: int
    body: dict[str, Any]
    problem: bool = False

    @property
    def code(self) -> str:
        return str(self.body.get("code") or self.body.get("receipt"))


def _problem(code: str, detail: str, **extra: Any) -> ReceiptOutcome:
    status = REASONS.get(code, 400)
    body: dict[str, Any] = {
        "type": f"https://hookproof.dev/problems/{code}",
        "title": "Receipt conflict" if code == "receipt_conflict" else "Receipt refused",
        "status": status,
        "detail": detail,
        "code": code,
    }
    body.update({k: v for k, v in extra.items() if v is not None})
    return ReceiptOutcome(status, body, problem=True)


class ReceiptService:
    """``submit(method, url, headers, body)``: the whole of ``POST /v1/receipts``."""

    def __init__(
        self,
        store: EventStore,
        *,
        receipts_url: str | None = None,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
        metrics: ReceiptMetrics | None = None,
        repository: ReceiptRepository | None = None,
    ) -> None:
        self.store = store
        self.repository = repository or ReceiptRepository.of(store)
        #: the signed ``@target-uri``; None: derived from each request (scheme, Host, path)
        self.receipts_url = receipts_url
        self.clock = clock
        self.metrics = metrics or ReceiptMetrics()
        self.refusals = RefusalTally(clock)

    # -- refusals -----------------------------------------------------------------------

    async def _reject(
        self,
        code: str,
        detail: str,
        *,
        subscription_id: str | None = None,
        event_id: str | None = None,
        delivery_id: str | None = None,
        key_id: str | None = None,
        key_generation: int | None = None,
    ) -> ReceiptOutcome:
        # Input no key has authenticated never creates an event: a refusal is counted in
        # the metrics and logged for the operator (ids bounded), and nothing is appended.
        self.metrics.reject(code)
        if subscription_id is not None:  # only ever an existing subscription's id
            self.refusals.count(subscription_id, code)
        log.info(
            "receipt_rejected",
            reason=code,
            subscription_id=_bounded(subscription_id),
            event_id=_bounded(event_id),
            delivery_id=_bounded(delivery_id),
            key_id=_bounded(key_id),
            key_generation=key_generation,
        )
        return _problem(code, detail, subscriptionId=subscription_id, eventId=event_id)

    async def refuse_too_large(self) -> ReceiptOutcome:
        return await self._reject(
            "body_too_large", f"receipts are at most {MAX_RECEIPT_BYTES} bytes"
        )

    # -- the flow -----------------------------------------------------------------------

    async def submit(
        self, method: str, url: str, headers: Mapping[str, str] | Any, body: bytes
    ) -> ReceiptOutcome:
        if len(body) > MAX_RECEIPT_BYTES:
            return await self.refuse_too_large()
        try:
            check_depth(body)
            receipt = parse_receipt(body)
        except (ReceiptError, TooDeep, RecursionError) as exc:
            return await self._reject("malformed", str(exc) or "receipt body is not JSON")
        sid, eid, did = receipt.subscription_id, receipt.event_id, receipt.delivery_id
        if not all(isinstance(v, str) and _ID.match(v) for v in (sid, eid, did)):
            return await self._reject(
                "malformed",
                "subscriptionId, eventId and deliveryId must be 1..200 of [A-Za-z0-9._:-]",
            )
        # one bounded read of the subscription's current state: never its stream, folded
        sub = await self.repository.subscription(sid)
        if sub is None:
            return await self._reject("delivery_not_found", "no such delivery")
        ids = {"subscription_id": sid, "event_id": eid, "delivery_id": did}
        current = msgspec.json.decode(sub["config"], type=SubscriptionConfig).receipt_key
        if current is None:
            return await self._reject(
                "no_receipt_contract", "this subscription has no registered receipt key", **ids
            )
        verdict = _verify(
            method,
            self.receipts_url or url,
            headers,
            body,
            current=current,
            history=[
                msgspec.json.decode(k, type=ReceiptKey) for k in reversed(sub["receipt_keys"])
            ],
            now=int(self.clock().timestamp()),
        )
        if verdict.reason != "ok":
            code = verdict.reason if verdict.reason in REASONS else "bad_signature"
            return await self._reject(
                code,
                verdict.detail or "receipt signature refused",
                key_id=verdict.key_id,
                key_generation=verdict.generation,
                **ids,
            )
        if receipt.receipt_key_generation != current.generation:
            return await self._reject(
                "wrong_key_generation",
                f"receiptKeyGeneration {receipt.receipt_key_generation} is not the registered"
                f" generation {current.generation}",
                key_id=verdict.key_id,
                key_generation=receipt.receipt_key_generation,
                **ids,
            )
        for _ in range(_CONFIRM_RETRIES):
            row = await self.repository.delivery(did)
            if row is None or row["subscription_id"] != sid or row["event_id"] != eid:
                return await self._reject(
                    "delivery_not_found", "no such delivery", **ids, key_id=verdict.key_id
                )
            outcome = await self._settle(dict(row), receipt, body, verdict.key_id or "")
            if outcome is not None:
                return outcome
        return _problem("concurrency_conflict", "the delivery kept changing; retry")

    async def _settle(
        self, row: dict[str, Any], receipt: Any, body: bytes, key_id: str
    ) -> ReceiptOutcome | None:
        """Decide against one version of the delivery; None: it moved meanwhile, retry."""
        did, sid, eid = row["delivery_id"], row["subscription_id"], row["event_id"]
        ids = {"subscription_id": sid, "event_id": eid, "delivery_id": did}
        if not row["receipts"]:
            return await self._reject(
                "no_receipt_contract",
                "the delivery was planned before a receipt key was registered",
                key_id=key_id,
                **ids,
            )
        stream = delivery_stream_id(did)
        history = [r.decode() for r in await self.store.read_stream(stream)]
        meta = Metadata(actor=f"subscriber:{sid}", correlation_id=eid)
        now = self.clock().isoformat()
        if receipt.payload_digest != row["payload_digest"]:
            seen = any(
                isinstance(e, ReceiptConflict)
                and e.receipt_digest == receipt.payload_digest
                and e.operation_id == receipt.operation_id
                for e in history
            )
            if not seen:
                conflict = ReceiptConflict(
                    delivery_id=did,
                    event_id=eid,
                    subscription_id=sid,
                    delivered_digest=row["payload_digest"],
                    receipt_digest=receipt.payload_digest,
                    operation_id=receipt.operation_id,
                    at=now,
                )
                await append_to_deliveries(
                    self.store, [StreamAppend(stream, [conflict], "any", meta)]
                )
            self.metrics.count("conflict")
            log.warning("receipt_conflict", **ids, receipt_digest=receipt.payload_digest)
            return _problem(
                "receipt_conflict",
                "the receipt's payloadDigest differs from the delivered payload's",
                deliveredDigest=row["payload_digest"],
                receiptDigest=receipt.payload_digest,
                deliveryId=did,
            )
        confirmed = next((e for e in history if isinstance(e, ApplicationConfirmed)), None)
        if confirmed is not None:
            self.metrics.count("duplicate")
            return ReceiptOutcome(DUPLICATE_STATUS, self._answer("duplicate", row, confirmed))
        if ledger_next(row["state"], "confirm") is None:
            return await self._reject(
                "invalid_delivery_state",
                f"a {row['state']} delivery cannot be confirmed",
                key_id=key_id,
                **ids,
            )
        event = ApplicationConfirmed(
            delivery_id=did,
            event_id=eid,
            subscription_id=sid,
            payload_digest=receipt.payload_digest,
            operation_id=receipt.operation_id,
            result=receipt.result,
            applied_at=receipt.applied_at,
            receipt_key_id=key_id,
            receipt_key_generation=receipt.receipt_key_generation,
            receipt_digest=content_digest(body),
            at=now,
        )
        try:
            await append_to_deliveries(
                self.store, [StreamAppend(stream, [event], row["stream_version"], meta)]
            )
        except ConcurrencyConflict:
            return None
        self.metrics.count("accepted")
        log.info(
            "receipt_accepted",
            **ids,
            operation_id=receipt.operation_id,
            previous_state=row["state"],
            key_id=key_id,
        )
        after = evolve_delivery(row, event, row["stream_version"] + 1)
        return ReceiptOutcome(ACCEPTED_STATUS, self._answer("accepted", after, event))

    @staticmethod
    def _answer(kind: str, row: dict[str, Any], c: ApplicationConfirmed) -> dict[str, Any]:
        return {
            "receipt": kind,
            "deliveryId": row["delivery_id"],
            "eventId": row["event_id"],
            "subscriptionId": row["subscription_id"],
            "state": row["state"],
            "evidence": evidence_of(row),
            "operationId": c.operation_id,
            "result": c.result,
            "appliedAt": c.applied_at,
            "confirmedAt": c.at,
        }
