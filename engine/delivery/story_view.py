"""``GET /v1/deliveries/{id}`` rendered from a delivery's story (pure).

The story (:mod:`hookproof.projections.delivery_story`) is the one reading of the delivery's
stream; this module only says how a tenant sees it: the evidence ladder, each attempt with
what was sent and what came back (hidden reason codes mapped, broker answers in the tenant's
view), the receipt, refused receipts, the ordering gaps and the dead letter's commands. The
ledger columns come from the ledger row given: the ``deliveries`` projection's for a delivery
in the hot store (the same fold, persisted), the story's own for an archived one.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from msgspec import UnsetType

from hookproof.events.delivery_events import (
    AttemptFailed,
    AttemptLost,
    AttemptResponse,
    EndpointAccepted,
)
from hookproof.projections.delivery_story import Attempt, DeliveryStory
from hookproof.projections.ledger import LedgerState as S

from ..challenge.disclosure import code_detail, tenant_dead_letter_reason, tenant_reason
from ..destinations.brokers.evidence import broker_view
from ..destinations.registry import installed, reported_as
from .request_view import body_view, request_view
from .test_event_ids import is_test_event

__all__ = ["attempt_view", "delivery_view", "evidence_of", "response_view"]


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


def evidence_of(row: Mapping[str, Any], verified_generation: int | None = None) -> dict[str, Any]:
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


def _application(row: Mapping[str, Any]) -> dict[str, Any]:
    application = row["application"]
    if application == "CONFIRMED":
        app = "CONFIRMED"
    elif not row["receipts"]:
        app = "UNOBSERVABLE"
    else:
        app = "PENDING"
    return {"application": app}


def _broker(recorded: dict[str, Any], delivery_id: str) -> dict[str, Any]:
    """A recorded broker answer as its tenant sees it (a denied address's code hidden)."""
    view = broker_view(recorded, delivery_id)
    view["code"] = tenant_reason(view["code"])
    kinds = installed()
    for name, value in recorded.items():  # an installed kind's own answer, under its name
        if name not in view and kinds.get(name) is not None:
            view[name] = value
    return view


def _answer(view: dict[str, Any], ev: EndpointAccepted | AttemptFailed | AttemptLost) -> None:
    """Write one recorded outcome over the attempt's view (a later one over an earlier)."""
    if isinstance(ev, AttemptLost):
        view.update(outcome=S.UNKNOWN_TRANSPORT.value, code="dispatcher_lost", completedAt=ev.at)
        return
    if isinstance(ev, EndpointAccepted):
        reported = reported_as(view["endpoint"])
        view.update(
            outcome=reported or S.ENDPOINT_ACCEPTED.value,
            status=ev.status,
            peerAddress=ev.peer_address,
            spkiSha256=ev.spki_sha256,
            durationMs=ev.duration_ms,
            completedAt=ev.at,
            bodyTruncated=ev.body_truncated is True,
            response=response_view(ev.response),
        )
    else:
        view.update(
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
    if isinstance(ev.broker, dict):
        view["broker"] = _broker(ev.broker, ev.delivery_id)
    if isinstance(ev.proxy, str):
        view["proxy"] = ev.proxy


def attempt_view(attempt: Attempt, *, event_id: str, subscription_id: str) -> dict[str, Any]:
    """One attempt as ``GET /v1/deliveries/{id}`` lists it: its admission, what came back
    (every recorded outcome written over the previous, in order) and what was sent."""
    ad = attempt.admitted
    view: dict[str, Any] = {
        "attempt": ad.attempt,
        "admittedAt": ad.at,
        "generation": ad.generation,
        "endpoint": ad.endpoint,
        "keyId": ad.key_id,
        "keyGeneration": ad.key_generation,
        "signatureAlgorithm": ad.signature_alg,
        "dispatcher": ad.dispatcher,
        "drain": ad.drain,
        "outcome": S.DISPATCHING.value,
    }
    for ev in attempt.outcomes:
        _answer(view, ev)
    view["request"] = request_view(
        ad, event_id=event_id, subscription_id=subscription_id, recorded=attempt.request
    )
    return view


def _iso(v: Any) -> Any:
    return v.isoformat() if hasattr(v, "isoformat") else v


def delivery_view(
    row: Mapping[str, Any],
    story: DeliveryStory | None,
    *,
    verified_generation: int | None,
    body: bytes | None,
) -> dict[str, Any]:
    """The delivery as its tenant sees it: the ledger ``row``, the ``story`` of its stream
    (None: no events read), the subscription's verified generation and the event's stored
    canonical ``body`` (None: not stored)."""
    attempts = story.attempts if story is not None else ()
    view: dict[str, Any] = {
        "deliveryId": row["delivery_id"],
        "eventId": row["event_id"],
        "test": is_test_event(row["event_id"]),
        "subscriptionId": row["subscription_id"],
        "generation": row["generation"],
        "endpoint": row["endpoint"],
        "state": row["state"],
        "evidence": evidence_of(row, verified_generation),
        "payloadDigest": row["payload_digest"],
        "attempt": row["attempt"],
        "nextAttemptAt": _iso(row["next_attempt_at"]),
        "lastCode": tenant_reason(row["last_code"]),
        "owner": row["owner"],
        "attempts": [
            attempt_view(a, event_id=row["event_id"], subscription_id=row["subscription_id"])
            for a in attempts
        ],
        "requestBody": body_view(body),
        "createdAt": _iso(row["created_at"]),
        "updatedAt": _iso(row["updated_at"]),
    }
    detail = code_detail(
        view["lastCode"],
        row["last_code"],
        endpoint=row["endpoint"],
        said=story.broker_refusal if story is not None else None,
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
        gaps = story.gaps if story is not None else ()
        view["ordering"] = {
            "aggregateId": row["aggregate_id"],
            "aggregateVersion": row["aggregate_version"],
            "gapTimeoutS": row["ordering_gap_timeout_s"],
            "gapsSkipped": [
                {"from": g.missing_from, "to": g.missing_to, "waitedS": g.waited_s} for g in gaps
            ],
        }
    digest = story.planned.filters_digest if story is not None else None
    if digest is not None:  # the subscription's filters that held when it was planned
        view["filters"] = {"digest": digest, "held": True}
    confirmation = story.confirmation if story is not None else None
    if confirmation is not None:
        view["applicationReceipt"] = {
            "operationId": confirmation.operation_id,
            "result": confirmation.result,
            "appliedAt": confirmation.applied_at,
            "receiptKeyId": confirmation.receipt_key_id,
            "receiptKeyGeneration": confirmation.receipt_key_generation,
            "confirmedAt": confirmation.at,
        }
    conflicts = story.conflicts if story is not None else ()
    if conflicts:  # receipts quarantined: their payloadDigest is not the delivered one
        view["receiptConflicts"] = [
            {"receiptDigest": c.receipt_digest, "operationId": c.operation_id, "at": c.at}
            for c in conflicts
        ]
    return view
