"""Generated valid delivery streams: a walk over the ledger table from ``delivery.planned``,
each step an event the table allows in the state the walk is in (on-time and late outcomes,
operators' commands, receipts, ordering gaps), for HTTPS, relay and broker subscriptions."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from hypothesis import strategies as st

from hookproof.events import Event
from hookproof.events.delivery_events import (
    REDELIVERY_ACTOR,
    ApplicationConfirmed,
    AttemptAdmitted,
    AttemptFailed,
    AttemptLost,
    AttemptRequest,
    AttemptResponse,
    DeadLettered,
    DeliveryPlanned,
    DeliveryQuarantined,
    DeliveryReplayRequested,
    DeliverySkipped,
    EndpointAccepted,
    OrderingGapSkipped,
    ReceiptConflict,
)
from hookproof.projections.ledger import LEDGER_TRANSITIONS, transition

__all__ = ["ENDPOINTS", "Stream", "streams"]

T0 = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)
ENDPOINTS = {
    "https": "https://receiver.test/hooks",
    "relay": "http://localhost:3000/hooks",
    "amqp": "amqps://broker.test:5671/orders?exchange=hooks",
}
_TRACEPARENT = "00-" + "a" * 32 + "-" + "b" * 16 + "-01"


class Stream:
    """One generated stream: its events (versions 1..n) and how it was made."""

    def __init__(self, delivery_id: str, kind: str, events: list[Event]) -> None:
        self.delivery_id = delivery_id
        self.kind = kind
        self.events = events

    def pairs(self) -> list[tuple[Event, int]]:
        return [(e, i) for i, e in enumerate(self.events, start=1)]

    def __repr__(self) -> str:
        return f"Stream({self.kind}, {[e.type for e in self.events]})"


def _at(minute: int) -> str:
    return (T0 + timedelta(minutes=minute)).isoformat()


def _broker(outcome: str, detail: str = "") -> dict[str, Any]:
    return {
        "type": "amqp",
        "outcome": outcome,
        "code": None if outcome == "accepted" else "broker_nack",
        "amqp": {"confirmed": outcome == "accepted", "nacked": outcome != "accepted"},
        "published": True,
        "peerAddress": "127.0.0.1",
        "peerPort": 5671,
        "tls": True,
        "detail": detail,
    }


@st.composite
def _answer(draw: st.DrawFn, kind: str, did: str, attempt: int, minute: int, cmd: str) -> Event:
    """An outcome of ``attempt``: accepted, failed (RETRYABLE) or unknown."""
    request = draw(
        st.sampled_from([None, AttemptRequest(traceparent=_TRACEPARENT, created=1, profiles=[])])
    )
    response = draw(
        st.sampled_from(
            [
                None,
                AttemptResponse(
                    headers=[("content-type", "text/plain")], excerpt="ok", body_bytes=2
                ),
            ]
        )
    )
    extra: dict[str, Any] = {}
    if request is not None:
        extra["request"] = request
    if response is not None and kind != "amqp":
        extra["response"] = response
    if kind == "https" and draw(st.booleans()):
        extra["proxy"] = "127.0.0.1:3128"
    if kind == "https" and draw(st.booleans()):
        extra["body_truncated"] = True
    peer = {"https": "127.0.0.1", "relay": "relay:sess-1", "amqp": "127.0.0.1"}[kind]
    if cmd.endswith("accepted"):
        if kind == "amqp":
            extra["broker"] = _broker("accepted")
        return EndpointAccepted(
            delivery_id=did,
            attempt=attempt,
            status=None if kind == "amqp" else draw(st.sampled_from([200, 202, 204])),
            peer_address=peer,
            spki_sha256=None,
            duration_ms=float(draw(st.integers(1, 900))),
            at=_at(minute),
            **extra,
        )
    unknown = cmd.endswith("unknown")
    if kind == "amqp":
        extra["broker"] = _broker(
            "rejected", draw(st.sampled_from(["", "NOT_FOUND - no exchange"]))
        )
    code = (
        "response_lost"
        if unknown
        else draw(st.sampled_from(["http_500", "connect_refused", "endpoint_ip_forbidden"]))
    )
    return AttemptFailed(
        delivery_id=did,
        attempt=attempt,
        outcome="UNKNOWN_TRANSPORT" if unknown else "RETRYABLE",
        code=code,
        status=500 if code == "http_500" else None,
        request_written=unknown or code == "http_500",
        peer_address=None if code == "connect_refused" else peer,
        retry_at=_at(minute + 1),
        retry_after_ignored=None,
        duration_ms=float(draw(st.integers(1, 900))),
        at=_at(minute),
        **extra,
    )


def _commands(state: str, attempt: int, receipts: bool, ordered: bool) -> list[str]:
    """The commands the table allows in ``state`` that this stream can take."""
    out = []
    for src, cmd in LEDGER_TRANSITIONS:
        if src != state:
            continue
        if cmd.startswith("late_") and attempt == 0:
            continue  # no attempt to be late for
        if cmd in ("confirm", "receipt_conflict") and not receipts:
            continue  # receipts come only under the receipt contract
        if cmd == "redeliver" and not receipts:
            continue  # the receipt-timeout worker's, under the receipt contract only
        if cmd == "gap_skipped" and not ordered:
            continue
        out.append(cmd)
    return sorted(out)


@st.composite
def streams(draw: st.DrawFn, max_steps: int = 14) -> Stream:
    """A valid delivery stream (see the module docstring)."""
    kind = draw(st.sampled_from(sorted(ENDPOINTS)))
    receipts = draw(st.booleans())
    ordered = draw(st.booleans())
    did = "dlv_" + draw(st.text("0123456789abcdef", min_size=28, max_size=28))
    endpoint = ENDPOINTS[kind]
    events: list[Event] = [
        DeliveryPlanned(
            delivery_id=did,
            event_id="order-1",
            subscription_id="sub_1",
            tenant_id="t1",
            generation=1,
            endpoint=endpoint,
            endpoint_digest="sha-256=:e:",
            payload_digest="sha-256=:p:",
            topic="order.created",
            owner="team-orders",
            receipts=receipts,
            max_attempts=5,
            at=_at(0),
            aggregate_id="order-1" if ordered else None,
            aggregate_version=3 if ordered else None,
            ordering_gap_timeout_s=30.0 if ordered else None,
        )
    ]
    state, attempt = transition(None, events[0]), 0
    for minute in range(1, draw(st.integers(0, max_steps)) + 1):
        options = _commands(state, attempt, receipts, ordered)
        if not options:
            break  # e.g. skipped, never attempted, no receipts: nothing more can happen
        cmd = draw(st.sampled_from(options))
        ev: Event
        if cmd == "admit":
            attempt += 1
            ev = AttemptAdmitted(
                delivery_id=did,
                attempt=attempt,
                generation=1,
                subscription_version=3,
                endpoint=endpoint,
                payload_digest="sha-256=:p:",
                key_id=f"key-{attempt}",
                key_generation=1,
                signature_alg="ed25519",
                dispatcher=draw(st.sampled_from(["w1", "w2"])),
                lease_until=_at(minute + 1),
                drain=draw(st.booleans()),
                reconciles=draw(st.booleans()),
                at=_at(minute),
            )
        elif cmd in ("accepted", "failed", "unknown"):
            ev = draw(_answer(kind, did, attempt, minute, cmd))
        elif cmd.startswith("late_"):
            ev = draw(_answer(kind, did, draw(st.integers(1, attempt)), minute, cmd))
        elif cmd == "lease_expired":
            ev = AttemptLost(
                delivery_id=did,
                attempt=attempt,
                dispatcher="w1",
                retry_at=_at(minute + 1),
                at=_at(minute),
            )
        elif cmd == "dead_letter":
            ev = DeadLettered(
                delivery_id=did,
                attempt=attempt,
                owner="team-orders",
                reason=draw(
                    st.sampled_from(["exhausted:http_500", "exhausted:endpoint_ip_forbidden"])
                ),
                replay=f"POST /v1/deliveries/{did}/replay",
                at=_at(minute),
            )
        elif cmd == "quarantine":
            ev = DeliveryQuarantined(
                delivery_id=did,
                reason="stale_generation",
                planned_generation=1,
                current_generation=2,
                subscription_state="ACTIVE",
                at=_at(minute),
            )
        elif cmd in ("replay", "redeliver"):
            by = REDELIVERY_ACTOR if cmd == "redeliver" else "tenant:t1"
            ev = DeliveryReplayRequested(delivery_id=did, by=by, at=_at(minute))
        elif cmd == "skip":
            ev = DeliverySkipped(delivery_id=did, by="tenant:t1", at=_at(minute))
        elif cmd == "gap_skipped":
            ev = OrderingGapSkipped(
                delivery_id=did,
                aggregate_id="order-1",
                missing_from=1,
                missing_to=2,
                waited_s=30.0,
                at=_at(minute),
            )
        elif cmd == "confirm":
            ev = ApplicationConfirmed(
                delivery_id=did,
                event_id="order-1",
                subscription_id="sub_1",
                payload_digest="sha-256=:p:",
                operation_id=f"op-{minute}",
                result="applied",
                applied_at=_at(minute),
                receipt_key_id="rk1",
                receipt_key_generation=1,
                receipt_digest="sha-256=:r:",
                at=_at(minute),
            )
        else:
            assert cmd == "receipt_conflict", cmd
            ev = ReceiptConflict(
                delivery_id=did,
                event_id="order-1",
                subscription_id="sub_1",
                delivered_digest="sha-256=:p:",
                receipt_digest=f"sha-256=:x{minute}:",
                operation_id=f"op-{minute}",
                at=_at(minute),
            )
        state = transition(state, ev)
        events.append(ev)
    return Stream(did, kind, events)
