"""The fault campaign's verdicts (bench/faults/checks.py) turn to failures on the observations
a broken protection produces. One honest case and the broken cases per scenario."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench" / "faults"))

import checks

OLD, NEW = "old.faults.test/lw", "new.faults.test/lw"


def _attempt(outcome: str, status: int | None = None, **kw: Any) -> dict[str, Any]:
    return {"attempt": kw.pop("attempt", 1), "outcome": outcome, "status": status, **kw}


def _req(route: str, did: str, gen: str = "1", **kw: Any) -> dict[str, Any]:
    return {
        "route": route,
        "kind": "delivery",
        "deliveryId": did,
        "generation": gen,
        "subscription": "sub_1",
        "webhookId": "e1",
        "digest": "d1",
        "attempt": "1",
        **kw,
    }


def test_replayed_challenge() -> None:
    ok = checks.check_replayed_challenge(
        "ACTIVE", {"passed": False}, "PENDING_CHALLENGE", 1, "PENDING_CHALLENGE", 0
    )
    assert ok[0]
    # replay accepted: the subscription stays ACTIVE with a second pass
    assert not checks.check_replayed_challenge("ACTIVE", {"passed": True}, "ACTIVE", 2, "P", 0)[0]
    # another subscription's answer activates the new one
    assert not checks.check_replayed_challenge(
        "ACTIVE", {"passed": False}, "PENDING_CHALLENGE", 1, "ACTIVE", 1
    )[0]


def test_dns_flip() -> None:
    assert checks.check_dns_flip(0, "SUSPENDED", "dns_rebinding_denied", [])[0]
    assert not checks.check_dns_flip(1, "SUSPENDED", "x", [])[0]  # connected to the private address
    assert not checks.check_dns_flip(0, "ACTIVE", None, [])[0]
    # the old address still served after the flip (a stale answer or pooled connection)
    assert not checks.check_dns_flip(0, "SUSPENDED", "x", ["df-1#1"])[
        0
    ]  # followed the rebinding quietly


def test_redirect() -> None:
    dead = {"deliveryId": "d", "state": "DEAD_LETTER", "attempts": [_attempt("RETRYABLE", 307)]}
    assert checks.check_redirect([dead], 0)[0]
    followed = {**dead, "attempts": [_attempt("ENDPOINT_ACCEPTED", 200)]}
    assert not checks.check_redirect([followed], 1)[0]  # redirects followed
    counted = {
        **dead,
        "state": "ENDPOINT_ACCEPTED",
        "attempts": [_attempt("ENDPOINT_ACCEPTED", 307)],
    }
    assert not checks.check_redirect([counted], 0)[0]  # a 3xx counted as success
    assert not checks.check_no_3xx_success([counted])[0]
    assert checks.check_no_3xx_success([dead])[0]


def test_late_worker() -> None:
    old_v = [
        {
            "deliveryId": "d1",
            "state": "QUARANTINED",
            "attempts": [{"attempt": 1, "generation": 1, "endpoint": f"https://{OLD}"}],
        }
    ]
    new_v = [{"deliveryId": "d2", "state": "ENDPOINT_ACCEPTED", "attempts": []}]
    honest = [_req(OLD, "d1"), _req(NEW, "d2", "2")]
    assert checks.check_late_worker(1, OLD, NEW, honest, old_v, new_v)[0]
    # the late worker re-read the configuration: generation 1 sent to the new endpoint
    late = [*honest, _req(NEW, "d1", "1")]
    assert not checks.check_late_worker(1, OLD, NEW, late, old_v, new_v)[0]
    moved = [
        {**old_v[0], "attempts": [{"attempt": 2, "generation": 1, "endpoint": f"https://{NEW}"}]}
    ]
    assert not checks.check_late_worker(1, OLD, NEW, honest, moved, new_v)[0]
    assert not checks.check_late_worker(0, OLD, NEW, honest, old_v, new_v)[0]  # no fault made


def test_rotation() -> None:
    old = [{"deliveryId": "d1", "reason": "ok", "keyId": "k1"}]
    promoted = [
        {"deliveryId": "d2", "reason": "key_not_yet_valid", "keyId": "k2"},
        {"deliveryId": "d2", "reason": "ok", "keyId": "k2"},
    ]
    assert checks.check_rotation(True, True, old + promoted, "k1", "k2")[0]
    # the previous key withdrawn early: the held daemon's signatures stop verifying
    withdrawn = [{"deliveryId": "d1", "reason": "unknown_key", "keyId": "k1"}]
    assert not checks.check_rotation(True, False, withdrawn, "k1", "k2")[0]
    assert not checks.check_rotation(True, True, withdrawn, "k1", "k2")[0]
    # a promoted key refused for good (never verified afterwards)
    assert not checks.check_rotation(True, True, promoted[:1], "k1", "k2")[0]
    assert not checks.check_rotation(True, True, [], "k1", "k2")[0]
    # a second attempt of a delivery whose first attempt verified before the rotation (its
    # outcome recorded after the lease ran out), refused once in the promotion gap and never
    # retried since the delivery was accepted: the gap, not a failure; without that earlier
    # verification it is a failure
    again = [{"deliveryId": "d3", "reason": "key_not_yet_valid", "keyId": "k2"}]
    assert checks.check_rotation(True, True, old + again, "k1", "k2", {"d3"})[0]
    assert not checks.check_rotation(True, True, old + again, "k1", "k2", {"d9"})[0]
    twice = again + again
    assert not checks.check_rotation(True, True, old + twice, "k1", "k2", {"d3"})[0]


def test_reencode() -> None:
    failed = [{"state": "DEAD_LETTER"}]
    assert checks.check_reencode([{"reason": "digest_mismatch"}], failed)[0]
    # digest not over the exact bytes: the re-encoded body verifies
    assert not checks.check_reencode([{"reason": "ok"}], [{"state": "ENDPOINT_ACCEPTED"}])[0]


def test_lossy() -> None:
    v = {
        "deliveryId": "d",
        "state": "ENDPOINT_ACCEPTED",
        "evidence": {"endpoint": "ENDPOINT_ACCEPTED", "application": "PENDING"},
    }
    assert checks.check_lossy([v], {}, [])[0]
    inferred = {
        **v,
        "state": "APPLICATION_CONFIRMED",
        "evidence": {"endpoint": "ENDPOINT_ACCEPTED", "application": "CONFIRMED"},
    }
    assert not checks.check_lossy([inferred], {}, [])[0]  # application inferred from a 2xx


def test_lost_response() -> None:
    v = {
        "deliveryId": "d1",
        "state": "ENDPOINT_ACCEPTED",
        "attempts": [_attempt("UNKNOWN_TRANSPORT"), _attempt("ENDPOINT_ACCEPTED", 200, attempt=2)],
    }
    two = [_req("r", "d1"), _req("r", "d1", attempt="2")]
    assert checks.check_lost_response([v], two)[0]
    # lost response taken as a failure with a new identity, or not retried at all
    assert not checks.check_lost_response([v], [_req("r", "d1")])[0]
    assert not checks.check_lost_response([v], [two[0], _req("r", "d1", attempt="2", digest="x")])[
        0
    ]
    as_failure = {**v, "attempts": [_attempt("RETRYABLE"), v["attempts"][1]]}
    assert not checks.check_lost_response([as_failure], two)[0]


def test_conflict() -> None:
    first = (202, {"deliveries": [{"deliveryId": "d1"}]})
    again = first
    assert checks.check_conflict(
        first, (409, {"code": "event_payload_conflict"}), again, ["d1"], ["d1"], 1
    )[0]
    # the other payload silently accepted, planned twice
    assert not checks.check_conflict(first, (202, {}), again, ["d1"], ["d1", "d2"], 0)[0]


def test_forged_receipts() -> None:
    before = {"state": "ENDPOINT_ACCEPTED", "evidence": {"application": "PENDING"}}
    assert checks.check_forged_receipts([("x", 401, "bad_signature")], before, before)[0]
    moved = {"state": "APPLICATION_CONFIRMED", "evidence": {"application": "CONFIRMED"}}
    assert not checks.check_forged_receipts([("x", 202, None)], before, moved)[0]


def test_revoke_race() -> None:
    views = [{"state": "ENDPOINT_ACCEPTED"}, {"state": "QUARANTINED"}]
    assert checks.check_revoke_race(5, [("d1", 1, 4)], views)[0]
    # an admission that read the subscription after the revoke: fencing absent
    assert not checks.check_revoke_race(5, [("d1", 1, 4), ("d2", 1, 5)], views)[0]
    assert not checks.check_revoke_race(5, [("d1", 1, None)], views)[0]


def test_generations_at_endpoints() -> None:
    endpoint_of = {("sub_1", "1"): OLD, ("sub_1", "2"): NEW}
    assert checks.check_generations_at_endpoints(
        [_req(OLD, "d"), _req(NEW, "e", "2")], endpoint_of
    )[0]
    assert not checks.check_generations_at_endpoints([_req(NEW, "d", "1")], endpoint_of)[0]


def test_second_effects_owners_and_nothing_lost() -> None:
    assert checks.check_second_effects({"r": {"e1": 1}})[0]
    assert not checks.check_second_effects({"r": {"e1": 2}})[0]
    assert checks.check_dead_letter_owners([{"deliveryId": "d", "owner": "o"}])[0]
    assert not checks.check_dead_letter_owners([{"deliveryId": "d", "owner": None}])[0]
    accepted = {"e1": ["d1"]}
    assert checks.check_nothing_lost(accepted, {"d1": "ENDPOINT_ACCEPTED"}, {"r": {"e1": 1}})[0]
    assert not checks.check_nothing_lost(accepted, {}, {"r": {"e1": 1}})[0]  # lost by the kill
    assert not checks.check_nothing_lost(accepted, {"d1": "DISPATCHING"}, {"r": {"e1": 1}})[0]
    assert not checks.check_nothing_lost(accepted, {"d1": "ENDPOINT_ACCEPTED"}, {"r": {}})[0]


@pytest.mark.parametrize("name", checks.__all__)
def test_every_check_is_exported_and_callable(name: str) -> None:
    assert hasattr(checks, name)
