"""Reading the ledger: a delivery with its evidence and attempts, an event, dead letters."""

from __future__ import annotations

import builtins
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from msgspec import UNSET, UnsetType

from hookproof.errors import ConflictError, NotFound, StoreError
from hookproof.events import Event, EventStore, Metadata, StreamAppend
from hookproof.events.delivery_events import (
    ApplicationConfirmed,
    AttemptAdmitted,
    AttemptFailed,
    AttemptLost,
    AttemptRequest,
    AttemptResponse,
    DeliveryReplayRequested,
    DeliverySkipped,
    EndpointAccepted,
    EventIngested,
    OrderingGapSkipped,
    ReceiptConflict,
    delivery_stream_id,
    event_stream_id,
)
from hookproof.projections.deliveries import evolve_delivery
from hookproof.projections.ledger import LedgerState as S

from ..challenge.disclosure import code_detail, tenant_dead_letter_reason, tenant_reason
from ..db.repository import Record
from ..destinations.brokers.evidence import broker_view
from ..destinations.registry import reported_as
from .admission import ledger_next
from .repository import DeliveryRepository
from .request_view import body_view, request_view
from .stats_view import Window, stats_view
from .streams import append_to_deliveries
from .test_event_ids import is_test_event

__all__ = ["DeliveryReader", "evidence_of", "response_view"]


def response_view(response: AttemptResponse | UnsetType) -> dict[str, Any] | None:
    """An attempt's ``response`` in the API: ``{"headers": [[name, value]...], "excerpt",
    "bodyBytes", "excerptTruncated", "headersTruncated"}``; ``None`` when none was recorded."""
    if isinstance(response, UnsetType):
        return None
    return {
        "headers": [list(h) for h in response.headers],
        "excerpt": response.excerpt,
        "bodyBytes": response.body_bytes,
        "excerptTruncated": response.excerpt_truncated,
        "headersTruncated": response.headers_truncated,
    }


def evidence_of(row: dict[str, Any], verified_generation: int | None = None) -> dict[str, Any]:
    """The evidence ladder: endpoint and application facts, never inferred from each other.
    A relay subscription's acceptance is what its relay reported (``RELAY_REPORTED``, with
    the status it saw): the engine did not see that answer itself."""
    accepted = row["accepted_at"] is not None
    reported = reported_as(row["endpoint"]) if accepted else None
    if reported is not None:
        relayed = _application(row)
        relayed["reportedStatus"] = row.get("last_status")
        return {"endpoint": reported, **relayed}
    endpoint = (
        S.ENDPOINT_ACCEPTED.value
        if accepted
        else (
            "VERIFIED_ENDPOINT"
            if verified_generation is not None and verified_generation >= row["generation"]
            else "NONE"
        )
    )
    return {"endpoint": endpoint, **_application(row)}


def _application(row: dict[str, Any]) -> dict[str, Any]:
    application = row["application"]
    if application == "CONFIRMED":
        app = "CONFIRMED"
    elif not row["receipts"]:
        app = "UNOBSERVABLE"
    else:
        app = "PENDING"
    return {"application": app}


def _command(delivery_id: str, row: Any, event: Event, actor: str) -> StreamAppend:
    """An operator's command on a delivery, expected at the version ``row`` was read at."""
    return StreamAppend(
        delivery_stream_id(delivery_id),
        [event],
        row["stream_version"],
        Metadata(actor=actor, correlation_id=row["event_id"]),
    )


def _iso(v: Any) -> Any:
    return v.isoformat() if hasattr(v, "isoformat") else v


class DeliveryReader:
    def __init__(self, store: EventStore, deliveries: DeliveryRepository) -> None:
        self.store = store
        self.deliveries = deliveries

    async def delivery(self, tenant_id: str, delivery_id: str) -> dict[str, Any]:
        row = await self.deliveries.get(tenant_id, delivery_id)
        if row is None:
            archived = await self._archived_row(tenant_id, delivery_id)
            if archived is None:
                raise NotFound("no such delivery", code="delivery_not_found")
            return {**await self._view(archived), "archived": True}
        return await self._view(dict(row))

    async def _archived_row(self, tenant_id: str, delivery_id: str) -> dict[str, Any] | None:
        """The ledger row of an archived delivery, folded from its archived stream (only for
        its own tenant)."""
        if self.store.archive is None:
            return None
        owner = await self.deliveries.archived_owner(delivery_id)
        if owner is not None and owner != tenant_id:
            return None  # another tenant's: decided before any segment is touched
        try:
            events = await self.store.read_stream(delivery_stream_id(delivery_id))
        except StoreError:
            if owner is None:  # archived before owners were recorded: maybe not this tenant's
                return None
            raise
        row: dict[str, Any] | None = None
        for rec in events:
            row = evolve_delivery(row, rec.decode(), rec.stream_version)
        if row is None or row["tenant_id"] != tenant_id:
            return None
        return row

    async def _view(self, row: dict[str, Any]) -> dict[str, Any]:
        events = await self.store.read_stream(delivery_stream_id(row["delivery_id"]))
        attempts: dict[int, dict[str, Any]] = {}
        said: dict[int, str] = {}  # a failed broker attempt's refusal, in the broker's words
        admissions: dict[int, AttemptAdmitted] = {}
        sent: dict[int, AttemptRequest] = {}
        confirmation: dict[str, Any] | None = None
        conflicts: list[dict[str, Any]] = []
        gaps: list[dict[str, Any]] = []
        for rec in events:
            ev = rec.decode()
            if isinstance(ev, OrderingGapSkipped):
                gaps.append({"from": ev.missing_from, "to": ev.missing_to, "waitedS": ev.waited_s})
            if isinstance(ev, (EndpointAccepted, AttemptFailed)) and isinstance(
                ev.request, AttemptRequest
            ):
                sent[ev.attempt] = ev.request
            if isinstance(ev, AttemptAdmitted):
                admissions[ev.attempt] = ev
                attempts[ev.attempt] = {
                    "attempt": ev.attempt,
                    "admittedAt": ev.at,
                    "generation": ev.generation,
                    "endpoint": ev.endpoint,
                    "keyId": ev.key_id,
                    "keyGeneration": ev.key_generation,
                    "signatureAlgorithm": ev.signature_alg,
                    "dispatcher": ev.dispatcher,
                    "drain": ev.drain,
                    "outcome": S.DISPATCHING.value,
                }
            elif isinstance(ev, EndpointAccepted) and ev.attempt in attempts:
                reported = reported_as(attempts[ev.attempt]["endpoint"])
                attempts[ev.attempt].update(
                    outcome=reported or S.ENDPOINT_ACCEPTED.value,
                    status=ev.status,
                    peerAddress=ev.peer_address,
                    spkiSha256=ev.spki_sha256,
                    durationMs=ev.duration_ms,
                    completedAt=ev.at,
                    bodyTruncated=ev.body_truncated is True,
                    response=response_view(ev.response),
                )
                if ev.broker is not UNSET:
                    attempts[ev.attempt]["broker"] = _broker(ev.broker, ev.delivery_id)
                if isinstance(ev.proxy, str):
                    attempts[ev.attempt]["proxy"] = ev.proxy
            elif isinstance(ev, AttemptFailed) and ev.attempt in attempts:
                attempts[ev.attempt].update(
                    outcome=ev.outcome,
                    code=tenant_reason(ev.code),
                    status=ev.status,
                    location=ev.location,
                    requestWritten=ev.request_written,
                    peerAddress=ev.peer_address,
                    retryAt=ev.retry_at,
                    durationMs=ev.duration_ms,
                    completedAt=ev.at,
                    bodyTruncated=ev.body_truncated is True,
                    response=response_view(ev.response),
                )
                if ev.broker is not UNSET:
                    attempts[ev.attempt]["broker"] = _broker(ev.broker, ev.delivery_id)
                    said[ev.attempt] = str(ev.broker.get("detail") or "")
                if isinstance(ev.proxy, str):
                    attempts[ev.attempt]["proxy"] = ev.proxy
            elif isinstance(ev, AttemptLost) and ev.attempt in attempts:
                attempts[ev.attempt].update(
                    outcome=S.UNKNOWN_TRANSPORT.value, code="dispatcher_lost", completedAt=ev.at
                )
            elif isinstance(ev, ApplicationConfirmed):
                confirmation = {
                    "operationId": ev.operation_id,
                    "result": ev.result,
                    "appliedAt": ev.applied_at,
                    "receiptKeyId": ev.receipt_key_id,
                    "receiptKeyGeneration": ev.receipt_key_generation,
                    "confirmedAt": ev.at,
                }
            elif isinstance(ev, ReceiptConflict):
                conflicts.append(
                    {
                        "receiptDigest": ev.receipt_digest,
                        "operationId": ev.operation_id,
                        "at": ev.at,
                    }
                )
        for n, admitted in admissions.items():
            attempts[n]["request"] = request_view(
                admitted,
                event_id=row["event_id"],
                subscription_id=row["subscription_id"],
                recorded=sent.get(n),
            )
        stored = await self.deliveries.body(row["tenant_id"], row["event_id"])
        view = {
            "deliveryId": row["delivery_id"],
            "eventId": row["event_id"],
            "test": is_test_event(row["event_id"]),
            "subscriptionId": row["subscription_id"],
            "generation": row["generation"],
            "endpoint": row["endpoint"],
            "state": row["state"],
            "evidence": evidence_of(
                row,
                await self.deliveries.verified_generation(row["subscription_id"]),
            ),
            "payloadDigest": row["payload_digest"],
            "attempt": row["attempt"],
            "nextAttemptAt": _iso(row["next_attempt_at"]),
            "lastCode": tenant_reason(row["last_code"]),
            "owner": row["owner"],
            "attempts": [attempts[k] for k in sorted(attempts)],
            "requestBody": body_view(stored["body"] if stored is not None else None),
            "createdAt": _iso(row["created_at"]),
            "updatedAt": _iso(row["updated_at"]),
        }
        detail = code_detail(
            view["lastCode"],
            row["last_code"],
            endpoint=row["endpoint"],
            said=said.get(max(said)) if said else None,
        )
        if row["last_code"] and detail:
            view["lastCodeDetail"] = detail
        if row["state"] == S.DEAD_LETTER:
            view["deadLetter"] = {
                "owner": row["owner"],
                "reason": tenant_dead_letter_reason(row["dead_letter_reason"]),
                "replay": f"POST /v1/deliveries/{row['delivery_id']}/replay",
                "skip": f"POST /v1/deliveries/{row['delivery_id']}/skip",
            }
        if row.get("ordering_gap_timeout_s") is not None:
            view["ordering"] = {
                "aggregateId": row["aggregate_id"],
                "aggregateVersion": row["aggregate_version"],
                "gapTimeoutS": row["ordering_gap_timeout_s"],
                "gapsSkipped": gaps,
            }
        if confirmation:
            view["applicationReceipt"] = confirmation
        if conflicts:  # receipts quarantined: their payloadDigest is not the delivered one
            view["receiptConflicts"] = conflicts
        return view

    async def event(self, tenant_id: str, event_id: str) -> dict[str, Any]:
        """This tenant's event of that id; another tenant's event of the same id is invisible.
        Archived deliveries (and an archived event) are answered from the archive."""
        body = await self.deliveries.body(tenant_id, event_id)
        rows = await self.deliveries.of_event(tenant_id, event_id)
        stream = body["stream_id"] if body is not None else event_stream_id(tenant_id, event_id)
        ingested = await self._ingested(stream)
        if body is not None:
            topic, digest = body["topic"], body["payload_digest"]
        elif ingested is not None:
            topic, digest = ingested.topic, ingested.payload_digest
        else:
            raise NotFound("no such event", code="event_not_found")
        deliveries = [
            {
                "deliveryId": r["delivery_id"],
                "subscriptionId": r["subscription_id"],
                "state": r["state"],
                "evidence": evidence_of(dict(r)),
            }
            for r in rows
        ]
        hot = {r["delivery_id"] for r in rows}
        for did in ingested.deliveries if ingested is not None else []:
            if did in hot:
                continue
            row = await self._archived_row(tenant_id, did)
            if row is not None:
                deliveries.append(
                    {
                        "deliveryId": did,
                        "subscriptionId": row["subscription_id"],
                        "state": row["state"],
                        "evidence": evidence_of(row),
                        "archived": True,
                    }
                )
        deliveries.sort(key=lambda d: d["deliveryId"])
        out = {
            "eventId": event_id,
            "topic": topic,
            "payloadDigest": digest,
            "deliveries": deliveries,
        }
        if body is None:
            out["archived"] = True
        return out

    async def _ingested(self, stream: str) -> EventIngested | None:
        """The event's ``event.ingested`` (hot or archived), when the store reads the archive."""
        if self.store.archive is None:
            return None
        events = await self.store.read_stream(stream, to_version=1)
        first = events[0].decode() if events else None
        return first if isinstance(first, EventIngested) else None

    async def attempt_stats(
        self,
        tenant_id: str,
        subscription_id: str,
        now: datetime,
        hours: int = 24,
        interval: str = "hour",
    ) -> dict[str, Any]:
        """Attempts of the last ``hours`` whole hours (and this one), per hour (or per UTC day:
        ``interval="day"``, the ``hours / 24`` days ending with today) and outcome, with their
        latency percentiles (:mod:`.stats_view`)."""
        window = Window(now, hours, interval)
        rows = await self.deliveries.attempt_stats(tenant_id, subscription_id, window.start)
        return stats_view(subscription_id, window, rows)

    async def attempt_stats_of(
        self,
        tenant_id: str,
        subscription_ids: Sequence[str],
        now: datetime,
        hours: int = 24,
        interval: str = "hour",
    ) -> dict[str, Any]:
        """:meth:`attempt_stats` of several subscriptions in one read: ``{"since", "items"}``,
        one item per id, in the order given, each exactly what the single route answers."""
        window = Window(now, hours, interval)
        rows = await self.deliveries.attempt_stats_of(tenant_id, subscription_ids, window.start)
        by_sub: dict[str, list[Record]] = {sid: [] for sid in subscription_ids}
        for r in rows:
            by_sub.setdefault(r["subscription_id"], []).append(r)
        return {
            "since": window.text[0],
            "items": [stats_view(sid, window, by_sub[sid]) for sid in subscription_ids],
        }

    async def dead_letters(self, tenant_id: str, limit: int = 200) -> builtins.list[dict[str, Any]]:
        return (await self.dead_letters_page(tenant_id, limit))[0]

    async def dead_letters_page(
        self,
        tenant_id: str,
        limit: int,
        before: tuple[datetime, str] | None = None,
        consumer_id: str | None = None,
    ) -> tuple[builtins.list[dict[str, Any]], tuple[datetime, str] | None]:
        """Newest first, from the ledger projection; the key to continue before, if more
        (only of ``consumer_id``'s subscriptions when given)."""
        rows = await self.deliveries.dead_letters(tenant_id, limit + 1, before, consumer_id)
        more = len(rows) > limit
        rows = rows[:limit]
        items = [
            {
                "deliveryId": r["delivery_id"],
                "eventId": r["event_id"],
                "subscriptionId": r["subscription_id"],
                "owner": r["owner"],
                "reason": tenant_dead_letter_reason(r["dead_letter_reason"]),
                "attempt": r["attempt"],
                "replay": f"POST /v1/deliveries/{r['delivery_id']}/replay",
                "deadSince": _iso(r["updated_at"]),
            }
            for r in rows
        ]
        nxt = (rows[-1]["updated_at"], rows[-1]["delivery_id"]) if more and rows else None
        return items, nxt

    async def _admitting(self, tenant_id: str, delivery_id: str, command: str, refused: str) -> Any:
        """The tenant's delivery row, if the ledger lets ``command`` act on its state now."""
        row = await self.deliveries.get(tenant_id, delivery_id)
        if row is None:
            raise NotFound("no such delivery", code="delivery_not_found")
        if ledger_next(row["state"], command) is None:
            raise ConflictError(
                f"a {row['state']} delivery cannot be {refused}",
                code=f"{command}_not_allowed",
                state=row["state"],
            )
        return row

    async def skip(
        self, tenant_id: str, delivery_id: str, *, actor: str, now: str
    ) -> dict[str, Any]:
        """Give a dead letter up: it releases its aggregate (ordered delivery) for good."""
        row = await self._admitting(tenant_id, delivery_id, "skip", "skipped (only a dead letter)")
        await self.store.append(
            [
                _command(
                    delivery_id,
                    row,
                    DeliverySkipped(delivery_id=delivery_id, by=actor, at=now),
                    actor,
                )
            ]
        )
        return await self.delivery(tenant_id, delivery_id)

    async def replay(
        self, tenant_id: str, delivery_id: str, *, actor: str, now: str
    ) -> dict[str, Any]:
        row = await self._admitting(tenant_id, delivery_id, "replay", "replayed")
        await append_to_deliveries(
            self.store,
            [
                _command(
                    delivery_id,
                    row,
                    DeliveryReplayRequested(delivery_id=delivery_id, by=actor, at=now),
                    actor,
                )
            ],
        )
        return await self.delivery(tenant_id, delivery_id)


def _broker(recorded: dict[str, Any], delivery_id: str) -> dict[str, Any]:
    """A recorded broker answer as its tenant sees it (a denied address's code hidden)."""
    view = broker_view(recorded, delivery_id)
    view["code"] = tenant_reason(view["code"])
    return view
