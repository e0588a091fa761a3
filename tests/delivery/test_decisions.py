"""The delivery decisions without I/O: the ledger table (and the fold and the claim query that
must agree with it), admission, the claim plan, retry, outcome classification, the breaker."""

from __future__ import annotations

import itertools
import math
import re
from datetime import UTC, datetime, timedelta
from importlib.resources import files
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hookproof.engine.delivery import admission as adm
from hookproof.engine.delivery import gates as g
from hookproof.engine.delivery.claim import claim_appends, plan_claim
from hookproof.engine.delivery.outcome import breaker_success, classify, outcome_events
from hookproof.engine.delivery.retry import AttemptError, decide, parse_retry_after
from hookproof.engine.destinations.https.adapter import evidence_of
from hookproof.engine.destinations.port import Evidence
from hookproof.engine.egress import EgressResult, FailureCode, Outcome
from hookproof.engine.subscriptions.machine import STATES as SUBSCRIPTION_STATES
from hookproof.events import Event
from hookproof.events.delivery_events import (
    REDELIVERY_ACTOR,
    DeliveryQuarantined,
    DeliveryReplayRequested,
    DeliverySkipped,
    OrderingGapSkipped,
    ReceiptConflict,
)
from hookproof.events.subscription_events import RetryPolicy
from hookproof.projections import ledger as lt
from hookproof.projections.deliveries import evolve_delivery

from ..audit import history as h

NOW = datetime(2026, 11, 30, 10, 0, tzinfo=UTC)
STATES = [lt.ABSENT, *lt.LEDGER_STATES]


def event_for(command: str) -> Event:
    """One event of each ledger command (for delivery ``d1``)."""
    return {
        "plan": lambda: h.planned("d1"),
        "admit": lambda: h.admitted("d1", 1),
        "accepted": lambda: h.accepted("d1", 1),
        "failed": lambda: h.failed("d1", 1),
        "unknown": lambda: h.failed("d1", 1, "UNKNOWN_TRANSPORT"),
        "lease_expired": lambda: h.lost("d1", 1),
        "dead_letter": lambda: h.dead("d1", 1),
        "quarantine": lambda: DeliveryQuarantined(
            delivery_id="d1",
            reason="stale_generation",
            planned_generation=1,
            current_generation=2,
            subscription_state="PENDING_CHALLENGE",
            at=h.at(),
        ),
        "replay": lambda: h.replay("d1"),
        "redeliver": lambda: DeliveryReplayRequested(
            delivery_id="d1", by=REDELIVERY_ACTOR, at=h.at()
        ),
        "late_accepted": lambda: h.accepted("d1", 1),
        "late_failed": lambda: h.failed("d1", 1),
        "late_unknown": lambda: h.failed("d1", 1, "UNKNOWN_TRANSPORT"),
        "confirm": lambda: h.confirmed("d1"),
        "skip": lambda: DeliverySkipped(delivery_id="d1", by="tenant:t", at=h.at()),
        "gap_skipped": lambda: OrderingGapSkipped(
            delivery_id="d1",
            aggregate_id="a",
            missing_from=1,
            missing_to=1,
            waited_s=60.0,
            at=h.at(),
        ),
        "receipt_conflict": lambda: ReceiptConflict(
            delivery_id="d1",
            event_id="e1",
            subscription_id="s1",
            delivered_digest="a",
            receipt_digest="b",
            operation_id="op",
            at=h.at(),
        ),
    }[command]()


COMMANDS = sorted({cmd for _, cmd in lt.LEDGER_TRANSITIONS})


def row_in(state: str) -> dict[str, Any] | None:
    """A ledger row in ``state`` (built directly: the fold is what is under test)."""
    if state == lt.ABSENT:
        return None
    row = evolve_delivery(None, h.planned("d1"), 1)
    row.update(state=state, attempt=1)
    return row


# -- the ledger table ---------------------------------------------------------------------


def test_every_event_type_of_a_delivery_stream_is_one_command() -> None:
    """In each state the table allows a command in, its event stands for that command (an
    outcome outside DISPATCHING for the late one)."""
    assert {lt.command_of(event_for(c), src) for c in COMMANDS for src in lt.sources(c)} == set(
        COMMANDS
    )


@pytest.mark.parametrize(("state", "command"), list(itertools.product(STATES, COMMANDS)))
def test_the_fold_follows_the_table_row_by_row(state: str, command: str) -> None:
    event = event_for(command)
    expected = lt.ledger_next(state, lt.command_of(event, state))
    if expected is None:
        with pytest.raises(lt.LedgerTransitionForbidden):
            evolve_delivery(row_in(state), event, 2)
    else:
        assert evolve_delivery(row_in(state), event, 2)["state"] == expected


def test_a_confirmed_delivery_keeps_its_confirmation_against_late_failures() -> None:
    row = row_in("APPLICATION_CONFIRMED")
    for event in (h.failed("d1", 1), h.dead("d1", 1)):
        row = evolve_delivery(row, event, 3)
        assert row["state"] == "APPLICATION_CONFIRMED"
        assert row["dead_letter_reason"] is None


def test_table_states_and_commands_are_closed() -> None:
    for (src, _cmd), dst in lt.LEDGER_TRANSITIONS.items():
        assert src in STATES and dst in lt.LEDGER_STATES
    # every state but the pseudo state is reachable from ABSENT
    seen, frontier = {lt.ABSENT}, [lt.ABSENT]
    while frontier:
        s = frontier.pop()
        for (src, _c), dst in lt.LEDGER_TRANSITIONS.items():
            if src == s and dst not in seen:
                seen.add(dst)
                frontier.append(dst)
    assert seen == set(STATES)


def _claim_sql() -> str:
    return (files("hookproof.engine") / "sql" / "queries" / "dispatch_claim.sql").read_text()


def _state_list(sql: str, column: str) -> set[str]:
    m = re.search(rf"{re.escape(column)} IN \(([^)]*)\)", sql)
    assert m, column
    return set(re.findall(r"'([A-Z_]+)'", m.group(1)))


def test_claim_query_lists_exactly_the_tables_admitting_states() -> None:
    sql = _claim_sql()
    assert _state_list(sql, "d.state") == set(lt.ADMITTING) == set(lt.sources("admit"))
    assert _state_list(sql, "s.state") == set(adm.CLAIMABLE_SUBSCRIPTION_STATES)
    assert "s.generation <> d.generation" in sql


# -- admission ----------------------------------------------------------------------------


def claim(**over: Any) -> adm.ClaimRow:
    base: dict[str, Any] = {
        "delivery_id": "d1",
        "event_id": "e1",
        "tenant_id": "t1",
        "subscription_id": "s1",
        "generation": 1,
        "endpoint": "https://example.test/h",
        "endpoint_digest": "ep1",
        "payload_digest": "p",
        "owner": "team",
        "state": "PLANNED",
        "attempt": 0,
        "max_attempts": 3,
        "last_code": None,
        "stream_version": 1,
        "sub_state": "ACTIVE",
        "sub_generation": 1,
        "sub_version": 4,
        "signature_algorithm": "ed25519",
        "signature_profile": "hookproof.sig.v1",
        "old_generation_policy": "drain",
        "retry_policy": RetryPolicy(max_attempts=3),
    }
    base.update(over)
    return adm.ClaimRow(**base)


ADMISSION = [
    # (delivery state, attempt, sub state, sub generation, policy, expected)
    ("PLANNED", 0, "ACTIVE", 1, "drain", adm.Admit()),
    ("PLANNED", 0, "ROTATING", 1, "drain", adm.Admit()),
    ("RETRYABLE", 1, "ACTIVE", 1, "drain", adm.Admit()),
    ("UNKNOWN_TRANSPORT", 2, "ACTIVE", 1, "drain", adm.Admit()),
    ("PLANNED", 0, "REVOKED", 1, "drain", adm.Refuse("subscription_closed")),
    ("RETRYABLE", 1, "EXPIRED", 1, "drain", adm.Refuse("subscription_closed")),
    ("RETRYABLE", 1, "REVOKED", 2, "drain", adm.Refuse("subscription_closed")),
    ("PLANNED", 0, "ACTIVE", 2, "drain", adm.Refuse("stale_generation")),
    ("RETRYABLE", 1, "ACTIVE", 2, "drain", adm.Admit(drain=True)),
    ("RETRYABLE", 1, "PENDING_CHALLENGE", 2, "drain", adm.Admit(drain=True)),
    ("RETRYABLE", 1, "SUSPENDED", 2, "drain", adm.Refuse("stale_generation")),
    ("RETRYABLE", 1, "ACTIVE", 2, "quarantine", adm.Refuse("stale_generation")),
    ("RETRYABLE", 3, "ACTIVE", 1, "drain", adm.Exhausted("exhausted:http_500")),
    ("UNKNOWN_TRANSPORT", 3, "ACTIVE", 1, "drain", adm.Exhausted("exhausted:dispatcher_lost")),
    ("UNKNOWN_TRANSPORT", 3, "ACTIVE", 2, "drain", adm.Exhausted("exhausted:dispatcher_lost")),
    ("UNKNOWN_TRANSPORT", 3, "REVOKED", 1, "drain", adm.Refuse("subscription_closed")),
]


@pytest.mark.parametrize(("state", "attempt", "sub", "gen", "policy", "expected"), ADMISSION)
def test_admission_row_by_row(
    state: str, attempt: int, sub: str, gen: int, policy: str, expected: object
) -> None:
    last = "dispatcher_lost" if state == "UNKNOWN_TRANSPORT" else "http_500"
    row = claim(
        state=state,
        attempt=attempt,
        sub_state=sub,
        sub_generation=gen,
        old_generation_policy=policy,
        last_code=last,
    )
    assert adm.claimable(row)
    assert adm.admission(row) == expected


@pytest.mark.parametrize(
    "sub", sorted(set(SUBSCRIPTION_STATES) - adm.CLAIMABLE_SUBSCRIPTION_STATES)
)
def test_a_current_generation_of_a_paused_subscription_is_not_claimable(sub: str) -> None:
    row = claim(sub_state=sub)
    assert not adm.claimable(row)
    with pytest.raises(ValueError):
        adm.admission(row)
    assert plan_claim([row], lambda _: 8).left == [row]


@pytest.mark.parametrize("state", sorted(set(lt.LEDGER_STATES) - lt.ADMITTING))
def test_only_admitting_ledger_states_are_claimable(state: str) -> None:
    assert not adm.claimable(claim(state=state, attempt=1))


# -- the claim plan -----------------------------------------------------------------------


def test_plan_respects_each_endpoints_room_and_sorts_every_row() -> None:
    rows = [
        claim(delivery_id="a", endpoint_digest="x"),
        claim(delivery_id="b", endpoint_digest="x"),
        claim(delivery_id="c", endpoint_digest="x"),
        claim(delivery_id="d", endpoint_digest="y"),
        claim(delivery_id="q", sub_state="REVOKED"),
        claim(delivery_id="z", state="UNKNOWN_TRANSPORT", attempt=3, last_code="dispatcher_lost"),
    ]
    plan = plan_claim(rows, {"x": 2, "y": 0, "ep1": 8}.__getitem__)
    assert [s.row.delivery_id for s in plan.send] == ["a", "b"]
    assert [r.delivery_id for r in plan.left] == ["c", "d"]
    assert [r.delivery_id for r, _ in plan.quarantine] == ["q"]
    assert [(r.delivery_id, v.reason) for r, v in plan.dead_letter] == [
        ("z", "exhausted:dispatcher_lost")
    ]


class _Key:
    key_id = "k1"
    alg = "ed25519"


def test_claim_appends_one_event_per_decided_row_and_skips_rows_without_a_key() -> None:
    rows = [
        claim(delivery_id="a"),
        claim(delivery_id="h", signature_algorithm="hmac-sha256", subscription_id="s9"),
        claim(delivery_id="q", sub_state="EXPIRED", stream_version=7),
        claim(delivery_id="z", state="RETRYABLE", attempt=3, last_code="http_503"),
    ]
    plan = plan_claim(rows, lambda _: 8)
    assert plan.key_scopes() == [("engine", "ed25519"), ("s9", "hmac-sha256")]
    appends, admitted = claim_appends(
        plan, {("engine", "ed25519"): (_Key(), 3)}, now=NOW, dispatcher="w1", lease_s=60
    )
    kinds = {a.stream_id: [e.type for e in a.events] for a in appends}
    assert kinds == {
        "delivery-q": ["delivery.quarantined"],
        "delivery-z": ["delivery.dead_lettered"],
        "delivery-a": ["delivery.attempt_admitted"],
    }
    [a] = admitted
    assert (a.row.delivery_id, a.attempt, a.key_generation, a.version) == ("a", 1, 3, 2)
    admit = next(x for x in appends if x.stream_id == "delivery-a").events[0]
    assert admit.lease_until == (NOW + timedelta(seconds=60)).isoformat()  # type: ignore[attr-defined]
    assert {x.stream_id: x.expected for x in appends}["delivery-q"] == 7


# -- retry --------------------------------------------------------------------------------

POLICY = RetryPolicy(max_attempts=5, initial_delay_s=2, max_delay_s=30, multiplier=2)


@given(attempt=st.integers(1, 4), rand=st.floats(0, 1, exclude_max=True))
def test_full_jitter_is_uniform_below_the_capped_exponential(attempt: int, rand: float) -> None:
    d = decide(POLICY, attempt, AttemptError("http_500", status=500), rand=rand)
    base = min(30.0, 2.0 * 2 ** (attempt - 1))
    assert d.retry and d.delay_s == pytest.approx(base * rand)
    assert 0 <= d.delay_s < base or base == 0


def test_full_jitter_spans_zero_to_base() -> None:
    e = AttemptError("http_500", status=500)
    assert decide(POLICY, 3, e, rand=0.0).delay_s == 0.0
    assert decide(POLICY, 3, e, rand=0.999).delay_s == pytest.approx(8 * 0.999)


@pytest.mark.parametrize(
    ("wait", "expected"), [(20.0, 20.0), (1e9, 3600.0), (0.0, 0.0), (math.inf, 0.0)]
)
def test_retry_after_raises_the_delay_within_the_cap(wait: float, expected: float) -> None:
    d = decide(POLICY, 1, AttemptError("http_429", status=429, retry_after_s=wait), rand=0.0)
    assert d.retry and d.delay_s == expected


@pytest.mark.parametrize(("on_gone", "suspend"), [("suspend", True), ("dead_letter", False)])
def test_410_dead_letters_and_follows_on_gone(on_gone: str, suspend: bool) -> None:
    policy = RetryPolicy(on_gone=on_gone)
    d = decide(policy, 1, AttemptError("http_410", status=410), rand=0.5)
    assert (d.retry, d.dead_letter_reason, d.suspend_subscription) == (
        False,
        "endpoint_gone",
        suspend,
    )


def test_the_last_attempt_dead_letters_with_its_code() -> None:
    d = decide(POLICY, 5, AttemptError("connect_failed"), rand=0.5)
    assert (d.retry, d.dead_letter_reason) == (False, "exhausted:connect_failed")
    assert decide(POLICY, 4, AttemptError("connect_failed"), rand=0.5).retry


@pytest.mark.parametrize(
    ("value", "seconds", "ignored"),
    [
        (None, None, None),
        ("120", 120.0, None),
        (" 7 ", 7.0, None),
        ("²", None, "unparsable"),
        ("١٢", None, "unparsable"),
        ("-5", None, "unparsable"),
        ("1.5", None, "unparsable"),
        ("", None, "empty"),
        ("9" * 65, None, "too_long"),
        ("Fri, 31 Dec 99999 23:59:59 GMT", None, "unparsable"),
        (
            "Fri, 31 Dec 9999 23:59:59 GMT",
            (datetime(9999, 12, 31, 23, 59, 59, tzinfo=UTC) - NOW).total_seconds(),
            None,
        ),
        ("Mon, 30 Nov 2026 10:00:30 GMT", 30.0, None),
        ("Sun, 29 Nov 2026 10:00:00 GMT", 0.0, None),
        ("Mon, 30 Nov 2026 10:00:30 -0000", None, "no_timezone"),
    ],
)
def test_retry_after_values(value: str | None, seconds: float | None, ignored: str | None) -> None:
    got = parse_retry_after(value, NOW)
    assert (got.seconds, got.ignored) == (seconds, ignored)


@given(st.text(max_size=80) | st.from_regex(r"[A-Za-z]{3}, \d{1,2} [A-Za-z]{3} \d{1,30} .*"))
def test_any_retry_after_is_used_or_ignored_never_an_exception(value: str) -> None:
    got = parse_retry_after(value, NOW)
    assert (got.seconds is None) != (got.ignored is None)  # used, or ignored with a reason
    if got.seconds is not None:
        assert math.isfinite(got.seconds) and got.seconds >= 0
    d = decide(POLICY, 1, AttemptError("http_503", status=503, retry_after_s=got.seconds), rand=0.5)
    assert 0 <= d.delay_s <= POLICY.retry_after_cap_s


# -- outcome classification ---------------------------------------------------------------


def result(outcome: Outcome, code: FailureCode | None = None, **kw: Any) -> Evidence:
    """The evidence the HTTPS destination records of such an egress result."""
    return evidence_of(
        EgressResult(outcome, code, "https://example.test/h", "example.test", 443, **kw)
    )


CLASSIFY = [
    (result(Outcome.RESPONSE, status=500), "http_500", False),
    (result(Outcome.RESPONSE, status=404), "http_404", False),
    (result(Outcome.REDIRECT, FailureCode.REDIRECT, status=307), "redirect", False),
    (
        result(Outcome.RESPONSE, FailureCode.RESPONSE_TOO_LARGE, status=200),
        "response_too_large",
        False,
    ),
    (result(Outcome.RESPONSE, FailureCode.CONNECTION_RESET, status=200), "connection_reset", True),
    (result(Outcome.RESPONSE, FailureCode.RESPONSE_TIMEOUT, status=200), "response_timeout", True),
    (result(Outcome.RESPONSE, FailureCode.PROTOCOL_ERROR, status=200), "protocol_error", True),
    (result(Outcome.UNKNOWN, FailureCode.RESPONSE_TIMEOUT), "response_timeout", True),
    (result(Outcome.UNKNOWN), "unknown", True),
    (result(Outcome.NOT_SENT, FailureCode.CONNECT_FAILED), "connect_failed", False),
    (result(Outcome.NOT_SENT, FailureCode.DNS_FAILURE), "dns_failure", False),
    (result(Outcome.REFUSED, FailureCode.REFUSED_ADDRESS), "egress_refused_address", False),
]


@pytest.mark.parametrize(("res", "code", "unknown"), CLASSIFY)
def test_classify_row_by_row(res: Evidence, code: str, unknown: bool) -> None:
    error = classify(res, NOW)
    assert (error.code, error.unknown) == (code, unknown)


def test_classify_records_an_ignored_retry_after() -> None:
    res = result(Outcome.RESPONSE, status=503, headers=(("Retry-After", "²"),))
    error = classify(res, NOW)
    assert (error.retry_after_s, error.retry_after_ignored) == (None, "unparsable")
    rec = outcome_events(
        delivery_id="d1",
        attempt=1,
        owner="o",
        policy=POLICY,
        result=res,
        duration_s=0.01,
        now=NOW,
        rand=0.5,
    )
    assert rec.outcome == "retryable"
    assert rec.events[0].retry_after_ignored == "unparsable"  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("res", "outcome", "types"),
    [
        (result(Outcome.RESPONSE, status=204), "endpoint_accepted", ["delivery.endpoint_accepted"]),
        (result(Outcome.RESPONSE, status=500), "retryable", ["delivery.attempt_failed"]),
        (result(Outcome.UNKNOWN), "unknown_transport", ["delivery.attempt_failed"]),
        (
            result(Outcome.RESPONSE, status=410),
            "dead_letter",
            ["delivery.attempt_failed", "delivery.dead_lettered"],
        ),
    ],
)
def test_outcome_events(res: Evidence, outcome: str, types: list[str]) -> None:
    rec = outcome_events(
        delivery_id="d1",
        attempt=1,
        owner="o",
        policy=POLICY,
        result=res,
        duration_s=0.01,
        now=NOW,
        rand=0.5,
    )
    assert rec.outcome == outcome and [e.type for e in rec.events] == types


@pytest.mark.parametrize(
    ("status", "success"), [(204, True), (404, True), (410, True), (429, False), (500, False)]
)
def test_the_breaker_counts_unavailability_not_a_4xx_verdict(status: int, success: bool) -> None:
    assert breaker_success(result(Outcome.RESPONSE, status=status)) is success
    assert breaker_success(result(Outcome.NOT_SENT, FailureCode.CONNECT_FAILED)) is False


# -- the breaker --------------------------------------------------------------------------

OPEN_S = 30.0


def breaker_in(state: g.BreakerState, failures: int = 0) -> g.Breaker:
    if state is g.BreakerState.CLOSED:
        return g.Breaker(state, failures)
    if state is g.BreakerState.OPEN:
        return g.Breaker(state, 5, open_until=100.0 + OPEN_S)
    return g.Breaker(g.BreakerState.OPEN, 5, open_until=100.0)  # reads HALF_OPEN at 100


@pytest.mark.parametrize(("state", "command"), list(g.BREAKER_TRANSITIONS))
def test_breaker_row_by_row(state: g.BreakerState, command: str) -> None:
    expected = g.BREAKER_TRANSITIONS[state, command]
    now = 100.0
    if command == "cool_down":
        assert g.observed(breaker_in(state), 100.0 + OPEN_S) is expected
        return
    failures = 4 if command == "trip" else 0
    b = g.breaker_next(
        breaker_in(state, failures),
        command == "success",
        now,
        threshold=5,
        open_seconds=OPEN_S,
    )
    assert g.observed(b, now) is expected
    if expected is g.BreakerState.OPEN:
        assert b.open_until == now + OPEN_S


def test_reading_the_gates_changes_nothing_and_half_open_admits_one_probe() -> None:
    gates = g.EndpointGates(limit=2, failure_threshold=1, open_seconds=OPEN_S)
    gates.acquire("x", now=0.0)
    gates.release("x", success=False, now=0.0)
    before = (dict(gates.breakers), dict(gates.inflight), dict(gates.touched))
    assert gates.blocked(now=1.0) == ["x"] and gates.states(now=1.0) == {"x": "open"}
    assert gates.states(now=OPEN_S) == {"x": "half_open"} and gates.room("x", OPEN_S) == 1
    assert (dict(gates.breakers), dict(gates.inflight), dict(gates.touched)) == before
    gates.acquire("x", now=OPEN_S)
    assert gates.blocked(now=OPEN_S) == ["x"]  # the probe is in flight
    gates.release("x", success=True, now=OPEN_S)
    assert gates.breakers == {} and gates.blocked(now=OPEN_S) == []


def test_the_gate_map_stays_bounded() -> None:
    gates = g.EndpointGates(limit=8, failure_threshold=3, idle_seconds=60)
    for i in range(1000):  # healthy endpoints leave nothing behind
        gates.acquire(f"ok{i}", now=0.0)
        gates.release(f"ok{i}", success=True, now=0.0)
    for i in range(10):  # failing ones are remembered until idle
        gates.acquire(f"bad{i}", now=0.0)
        gates.release(f"bad{i}", success=False, now=0.0)
    assert len(gates.touched) == 10 and gates.room("ok1", 0.0) == 8
    gates.acquire("busy", now=0.0)
    assert gates.prune(now=61.0) == 10
    assert set(gates.touched) == {"busy"}  # an endpoint with work in flight is kept
