"""The broker evidence an attempt event records is compact (members at their default, the
message id and a resolved set equal to the peer left out: it is written into the ledger once
per attempt) and reads back whole: every member the views show is there, for compact records
and for the full records written before (pure)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from hookproof.engine.destinations.brokers.evidence import (
    AmqpConfirmation,
    BrokerEvidence,
    BrokerOutcome,
    JetStreamAck,
    broker_view,
    recorded_evidence,
)
from hookproof.engine.egress.result import PeerCertificate

CERT = PeerCertificate("ab" * 32, "CN=broker", "CN=ca", None, "2027-01-01T00:00:00+00:00")
DIGEST = "cd" * 32


def _ev(**over: Any) -> BrokerEvidence:
    base: dict[str, Any] = {
        "outcome": BrokerOutcome.ACCEPTED,
        "code": None,
        "type": "amqp",
        "destination": "amqp://127.0.0.1:5672/%2F/ex/rk",
        "message_id": "dlv_0123456789abcdef0123456789ab",
        "amqp": AmqpConfirmation(confirmed=True),
        "published": True,
        "resolved": ("127.0.0.1",),
        "peer_address": "127.0.0.1",
        "peer_port": 5672,
        "allowance_used": True,
        "reused": True,
        "credentials_digest": DIGEST,
        "elapsed_s": 0.0123,
    }
    base.update(over)
    return BrokerEvidence(**base)


CASES = {
    "amqp accepted": _ev(),
    "amqp returned": _ev(
        outcome=BrokerOutcome.REJECTED,
        code="unroutable",
        amqp=AmqpConfirmation(returned=True, reply_code=312, reply_text="NO_ROUTE"),
        detail="returned by the broker: 312 NO_ROUTE",
    ),
    "amqp nacked over tls": _ev(
        outcome=BrokerOutcome.REJECTED,
        code="broker_nack",
        amqp=AmqpConfirmation(nacked=True),
        tls=True,
        certificate=CERT,
        resolved=("203.0.113.5", "203.0.113.6"),
        peer_address="203.0.113.6",
        peer_port=5671,
        allowance_used=False,
    ),
    "nats duplicate": _ev(
        type="nats",
        destination="nats://127.0.0.1:4222/a.b",
        amqp=None,
        jetstream=JetStreamAck("S", 7, duplicate=True),
        peer_port=4222,
        reused=False,
    ),
    "refused denied": _ev(
        outcome=BrokerOutcome.REFUSED,
        code="egress_refused_address",
        amqp=None,
        published=False,
        resolved=("10.0.0.7",),
        denied=(("10.0.0.7", "ipv4_private"),),
        peer_address=None,
        peer_port=None,
        allowance_used=False,
        reused=False,
        detail="denied address: 10.0.0.7 (ipv4_private)",
    ),
    "lost": _ev(outcome=BrokerOutcome.UNKNOWN, code="connection_lost", amqp=AmqpConfirmation()),
}


@pytest.mark.parametrize("name", list(CASES))
def test_a_compact_record_reads_back_whole(name: str) -> None:
    ev = CASES[name]
    compact = json.loads(json.dumps(ev.evidence()))
    full = ev.full_evidence()
    back = recorded_evidence(compact, ev.message_id)
    assert back["elapsedS"] is None  # the attempt's duration_ms says it
    back["elapsedS"] = full["elapsedS"]
    assert back == json.loads(json.dumps(full))
    assert broker_view(compact, ev.message_id) == broker_view(full)
    assert len(json.dumps(compact)) < len(json.dumps(full))
    assert "messageId" not in compact
    for value in compact.values():  # nothing at its default is written
        assert value not in (None, False, [], "")


def test_a_full_record_written_before_reads_unchanged() -> None:
    full = CASES["amqp returned"].full_evidence()
    assert recorded_evidence(json.loads(json.dumps(full))) == json.loads(json.dumps(full))


def test_an_accepted_amqp_record_is_less_than_half_the_full_one() -> None:
    ev = CASES["amqp accepted"]
    compact, full = json.dumps(ev.evidence()), json.dumps(ev.full_evidence())
    assert len(compact) * 2 < len(full) + 100, (len(compact), len(full))
    assert json.loads(compact)["amqp"] == {"confirmed": True}
