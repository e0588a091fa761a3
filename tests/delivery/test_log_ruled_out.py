"""A log filter the ledger's transition table rules out: a state entered only by an
acceptance (``ledger.ACCEPTED_ON_ENTRY``) asked with ``evidence=NONE``. The page is empty
without a read (``log.matches_nothing``); these tests hold the table and the fold to the
fact that makes it so: every row in such a state has ``accepted_at``."""

from __future__ import annotations

from typing import Any

from hypothesis import example, given
from hypothesis import strategies as st

from hookproof.engine.delivery.log import LogQuery, matches_nothing
from hookproof.projections import ledger as lt
from hookproof.projections.deliveries import evolve_delivery
from hookproof.projections.ledger import ACCEPTED_ON_ENTRY, LedgerTransitionForbidden

from ..audit import history as h

#: every delivery event the fold takes after ``planned``, by name
STEPS: dict[str, Any] = {
    "admitted": lambda n: h.admitted("d1", n, minute=n),
    "accepted": lambda n: h.accepted("d1", n, minute=n),
    "failed": lambda n: h.failed("d1", n, minute=n),
    "unknown": lambda n: h.failed("d1", n, "UNKNOWN_TRANSPORT", minute=n),
    "lost": lambda n: h.lost("d1", n, minute=n),
    "dead": lambda n: h.dead("d1", n),
    "replay": lambda n: h.replay("d1"),
    "confirmed": lambda n: h.confirmed("d1"),
}


def test_only_endpoint_accepted_is_entered_by_acceptance_alone() -> None:
    assert ACCEPTED_ON_ENTRY == {"ENDPOINT_ACCEPTED"}
    # a confirmation may come without an acceptance: never ruled out with evidence=NONE
    assert "APPLICATION_CONFIRMED" not in ACCEPTED_ON_ENTRY
    for (src, cmd), dst in lt.LEDGER_TRANSITIONS.items():
        if dst in ACCEPTED_ON_ENTRY and src != dst:
            assert cmd in ("accepted", "late_accepted"), (src, cmd)


def test_matches_nothing_only_for_that_pair() -> None:
    for state in lt.LEDGER_STATES:
        for evidence in (None, "NONE", "ENDPOINT_ACCEPTED", "APPLICATION_CONFIRMED"):
            q = LogQuery(tenant_id="t", state=state, evidence=evidence)
            assert matches_nothing(q) == (state == "ENDPOINT_ACCEPTED" and evidence == "NONE")
    assert not matches_nothing(LogQuery(tenant_id="t", evidence="NONE"))


@given(st.lists(st.sampled_from(sorted(STEPS)), max_size=14))
@example(["admitted", "accepted"])  # on time
@example(["admitted", "lost", "accepted"])  # late, after the lease ran out
@example(["admitted", "failed", "admitted", "unknown", "dead", "accepted", "replay", "accepted"])
def test_no_sequence_of_events_leaves_such_a_state_without_accepted_at(names: list[str]) -> None:
    row = evolve_delivery(None, h.planned("d1"), 1)
    version = 1
    for n, name in enumerate(names, start=1):
        try:
            row = evolve_delivery(row, STEPS[name](n), version + 1)
        except LedgerTransitionForbidden:
            continue  # the table refuses it: the row stays as it was
        version += 1
        if row["state"] in ACCEPTED_ON_ENTRY:
            assert row["accepted_at"] is not None, (names[:n], row["state"])
