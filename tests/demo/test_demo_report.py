"""The demo report's pure parts: the ladder grouped per subscriber and outcome, and a ratio
of two rates shown as percentages with both rates."""

from __future__ import annotations

from hookproof.engine.cli.demo_report import gate_lines, ladder_lines
from hookproof.engine.rollouts.gate_result import GateResult


def _view(did: str, sid: str, state: str, app: str, key: str) -> dict[str, object]:
    return {
        "deliveryId": did,
        "subscriptionId": sid,
        "state": state,
        "evidence": {"endpoint": "ENDPOINT_ACCEPTED", "application": app},
        "attempts": [{"keyId": key}],
    }


def test_the_ladder_is_a_line_per_subscriber_and_outcome() -> None:
    views = [
        _view("dlv_1", "sub_a", "APPLICATION_CONFIRMED", "CONFIRMED", "k_old_123"),
        _view("dlv_2", "sub_b", "ENDPOINT_ACCEPTED", "UNOBSERVABLE", "k_old_123"),
        _view("dlv_3", "sub_a", "APPLICATION_CONFIRMED", "CONFIRMED", "k_new_456"),
        _view("dlv_4", "sub_a", "ENDPOINT_ACCEPTED", "PENDING", "k_new_456"),
    ]
    header, *rows = ladder_lines(views, {"sub_a": "ledger", "sub_b": "mailer"})
    assert header.split() == ["to", "count", "state", "endpoint", "application", "keys", "e.g."]
    assert [r.split() for r in rows] == [
        [
            "ledger",
            "2",
            "APPLICATION_CONFIRMED",
            "ENDPOINT_ACCEPTED",
            "CONFIRMED",
            "k_new_,k_old_",
            "dlv_1",
        ],
        [
            "mailer",
            "1",
            "ENDPOINT_ACCEPTED",
            "ENDPOINT_ACCEPTED",
            "UNOBSERVABLE",
            "k_old_",
            "dlv_2",
        ],
        ["ledger", "1", "ENDPOINT_ACCEPTED", "ENDPOINT_ACCEPTED", "PENDING", "k_new_", "dlv_4"],
    ]


def test_a_ratio_of_rates_reads_as_a_percentage_with_both_rates() -> None:
    ratio = GateResult(
        "rotation_acceptance",
        "t",
        "pass",
        1.047,
        ">= 0.9995",
        {"insideRate": 1.0, "baselineRate": 0.955},
        unit="ratio",
    )
    count = GateResult(
        "dead_letters_without_owner", "dead letters without an owner", "n/a", 0, "= 0"
    )
    lines = gate_lines([ratio, count])
    assert lines[0].split() == ["PASS", "rotation_acceptance", "104.7%", "(needs", ">=", "99.95%)"]
    assert lines[1].strip() == "accepted during key rotation 100.0%, outside it 95.5%"
    assert "1.047" not in "\n".join(lines)
    assert lines[2].split()[:3] == ["N/A", "dead_letters_without_owner", "0"]
    assert (
        lines[3].strip() == "dead letters without an owner"
    )  # what a gate that is not a pass measures
