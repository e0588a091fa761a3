"""The campaign's verdicts as pure functions of what it observed (no I/O).

Each function takes plain observations (API views, subscriber logs, counters) and returns
``(passed, detail)``. ``tests/faults/test_checks.py`` feeds each one the observations a
broken protection would produce and shows the verdict turns to a failure.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Set
from typing import Any

__all__ = [
    "ACCEPTED",
    "Verdict",
    "check_conflict",
    "check_dead_letter_owners",
    "check_dns_flip",
    "check_forged_receipts",
    "check_generations_at_endpoints",
    "check_late_worker",
    "check_lossy",
    "check_lost_response",
    "check_no_3xx_success",
    "check_nothing_lost",
    "check_redirect",
    "check_reencode",
    "check_replayed_challenge",
    "check_revoke_race",
    "check_rotation",
    "check_second_effects",
]

Verdict = tuple[bool, str]
ACCEPTED = ("ENDPOINT_ACCEPTED", "APPLICATION_CONFIRMED")
SIGNATURE_OK = "ok"


def _deliveries(records: Iterable[Mapping[str, Any]], route: str) -> list[Mapping[str, Any]]:
    return [r for r in records if r.get("route") == route and r.get("kind") == "delivery"]


def check_replayed_challenge(
    first_state: str,
    replay_answer: Mapping[str, Any],
    state_after: str,
    passed_events: int,
    other_state: str,
    other_passed_events: int,
) -> Verdict:
    """A replayed answer (same subscription, later challenge; and another subscription's
    answer to a new one) activates nothing."""
    problems = []
    if first_state != "ACTIVE":
        problems.append(f"the honest subscription never became ACTIVE ({first_state})")
    if replay_answer.get("passed") is not False:
        problems.append(f"replayed answer accepted: {replay_answer}")
    if state_after == "ACTIVE":
        problems.append("still ACTIVE after the replayed answer")
    if passed_events != 1:
        problems.append(f"{passed_events} challenge_passed events (expected the honest one only)")
    if other_state == "ACTIVE" or other_passed_events:
        problems.append(f"a foreign answer activated the other subscription ({other_state})")
    detail = (
        f"replay refused ({replay_answer.get('reason')}), state {state_after}; "
        f"other subscription {other_state} with {other_passed_events} passes"
    )
    return not problems, "; ".join(problems) or detail


def check_dns_flip(
    private_connections: int,
    state: str,
    last_reason: str | None,
    after_flip: list[str],
) -> Verdict:
    """*after_flip*: event ids of the deliveries that reached the old address after the flip."""
    problems = []
    if private_connections:
        problems.append(f"{private_connections} connection(s) reached the private address")
    if state != "SUSPENDED":
        problems.append(f"subscription is {state}, not SUSPENDED")
    if after_flip:
        problems.append(
            f"{len(after_flip)} delivery(ies) reached the old address after: {after_flip}"
        )
    detail = f"0 connections to 10.0.0.5; SUSPENDED ({last_reason})"
    return not problems, "; ".join(problems) or detail


def check_redirect(views: list[Mapping[str, Any]], location_connections: int) -> Verdict:
    problems = []
    attempts = [a for v in views for a in v.get("attempts", [])]
    if not attempts:
        problems.append("no attempt was made")
    for v in views:
        if (
            v.get("state") in ACCEPTED
            or v.get("evidence", {}).get("endpoint") == "ENDPOINT_ACCEPTED"
        ):
            problems.append(f"{v.get('deliveryId')} counted a 3xx as accepted")
    for a in attempts:
        if a.get("outcome") == "ENDPOINT_ACCEPTED" or a.get("status") not in (307, None):
            problems.append(f"attempt {a.get('attempt')}: {a.get('outcome')} {a.get('status')}")
    if location_connections:
        problems.append(f"the Location host was contacted {location_connections} time(s)")
    states = sorted({str(v.get("state")) for v in views})
    detail = f"{len(attempts)} attempts, all 307 failures ({', '.join(states)}); Location host 0"
    return not problems, "; ".join(problems[:5]) or detail


def check_late_worker(
    held_at_stop: int,
    old_route: str,
    new_route: str,
    records: list[Mapping[str, Any]],
    old_views: list[Mapping[str, Any]],
    new_views: list[Mapping[str, Any]],
) -> Verdict:
    """Attempts admitted for generation 1 go only to the old endpoint; the new endpoint sees
    only generation 2; the new generation's deliveries arrive there."""
    problems = []
    if held_at_stop < 1:
        problems.append("the stopped daemon held no admitted attempt")
    old_ids = {v["deliveryId"] for v in old_views}
    at_new = _deliveries(records, new_route)
    wrong = [r for r in at_new if r.get("generation") != "2" or r.get("deliveryId") in old_ids]
    if wrong:
        problems.append(f"{len(wrong)} old-generation request(s) reached the new endpoint")
    at_old = _deliveries(records, old_route)
    if any(r.get("generation") != "1" for r in at_old):
        problems.append("a generation-2 request reached the old endpoint")
    for v in old_views:
        for a in v.get("attempts", []):
            if a.get("generation") != 1 or not str(a.get("endpoint", "")).endswith(old_route):
                problems.append(
                    f"{v['deliveryId']} attempt {a.get('attempt')} at {a.get('endpoint')}"
                )
    not_arrived = [v["deliveryId"] for v in new_views if v.get("state") not in ACCEPTED]
    if not_arrived:
        problems.append(f"{len(not_arrived)} generation-2 delivery(ies) not accepted")
    refused = sum(1 for v in old_views if v.get("state") == "QUARANTINED")
    detail = (
        f"{held_at_stop} attempt(s) held by the stopped daemon; new endpoint saw "
        f"{len(at_new)} request(s), all generation 2; {refused} generation-1 delivery(ies) "
        f"refused by the version check (QUARANTINED)"
    )
    return not problems, "; ".join(problems[:5]) or detail


def check_rotation(
    rotated: bool,
    old_key_in_jwks: bool,
    records: list[Mapping[str, Any]],
    previous_key: str | None,
    new_key: str | None,
    verified_before: Set[str] = frozenset(),
) -> Verdict:
    """Every delivery from the rotation on verifies: each signed with the previous key at
    once; one signed with the just-promoted key may cost the subscriber one JWKS refresh (the
    SDK holds it as NOT_BEFORE from the challenge: ``key_not_yet_valid`` once, then a retry of
    the same delivery that verifies). ``verified_before``: deliveries a request verified before
    the rotation; a second attempt of one (its first outcome recorded after the lease ran out:
    a loaded machine) refused in the promotion gap needs no retry, the delivery verified."""
    problems = []
    if not rotated:
        problems.append("the rotation did not complete")
    if not old_key_in_jwks:
        problems.append("the previous key left the JWKS inside its VERIFY_ONLY window")
    verified = {r.get("deliveryId") for r in records if r.get("reason") == SIGNATURE_OK}
    verified |= set(verified_before)
    promotion: dict[str, int] = defaultdict(int)
    refused = []
    for r in records:
        if r.get("reason") == SIGNATURE_OK:
            continue
        if (
            r.get("reason") == "key_not_yet_valid"
            and new_key is not None
            and r.get("keyId") == new_key
            and r.get("deliveryId") in verified
        ):
            promotion[str(r.get("deliveryId"))] += 1
            continue
        refused.append(r)
    if refused:
        reasons = sorted({f"{r.get('reason')} ({r.get('keyId')})" for r in refused})
        problems.append(f"{len(refused)} delivery request(s) failed to verify: {reasons[:3]}")
    if any(n > 1 for n in promotion.values()):
        problems.append("a promoted key cost a delivery more than one retry")
    if not records:
        problems.append("no delivery was checked after the rotation")
    old = sum(1 for r in records if previous_key and r.get("keyId") == previous_key)
    detail = (
        f"{len(records)} delivery requests from the rotation on, {old} signed with the previous "
        f"key, all verified; {len(promotion)} cost one JWKS refresh of the promoted key; "
        f"previous key still published"
    )
    return not problems, "; ".join(problems) or detail


def check_reencode(records: list[Mapping[str, Any]], views: list[Mapping[str, Any]]) -> Verdict:
    problems = []
    if not records:
        problems.append("nothing reached the proxy")
    reasons = sorted({str(r.get("reason")) for r in records})
    if reasons != ["digest_mismatch"]:
        problems.append(f"verifier said {reasons}, expected only digest_mismatch")
    if any(v.get("state") in ACCEPTED for v in views):
        problems.append("a re-encoded delivery was accepted")
    detail = f"{len(records)} re-encoded request(s), verifier said digest_mismatch every time"
    return not problems, "; ".join(problems) or detail


def check_lossy(
    views: list[Mapping[str, Any]], effects: Mapping[str, int], receipts: list[Any]
) -> Verdict:
    problems = []
    if not views:
        problems.append("no delivery")
    for v in views:
        ev = v.get("evidence", {})
        if v.get("state") != "ENDPOINT_ACCEPTED" or ev.get("endpoint") != "ENDPOINT_ACCEPTED":
            problems.append(f"{v.get('deliveryId')} is {v.get('state')}")
        if ev.get("application") == "CONFIRMED" or v.get("applicationReceipt"):
            problems.append(f"{v.get('deliveryId')} claims application without a receipt")
    if any(effects.values()) or receipts:
        problems.append("the lossy subscriber applied or receipted something")
    detail = f"{len(views)} ENDPOINT_ACCEPTED, application PENDING, no receipt"
    return not problems, "; ".join(problems[:5]) or detail


def check_lost_response(
    views: list[Mapping[str, Any]], records: list[Mapping[str, Any]]
) -> Verdict:
    """The first attempt is UNKNOWN_TRANSPORT, a later one carries the same delivery id, event
    id and body, with the next attempt number."""
    problems = []
    by_delivery: dict[str, list[Mapping[str, Any]]] = defaultdict(list)
    for r in records:
        if r.get("kind") == "delivery":
            by_delivery[str(r.get("deliveryId"))].append(r)
    for v in views:
        attempts = v.get("attempts", [])
        outcomes = [a.get("outcome") for a in attempts]
        if not outcomes or outcomes[0] != "UNKNOWN_TRANSPORT":
            problems.append(f"{v.get('deliveryId')}: first outcome {outcomes[:1]}")
        if v.get("state") not in ACCEPTED:
            problems.append(f"{v.get('deliveryId')} never accepted ({v.get('state')})")
        seen = by_delivery.get(str(v.get("deliveryId")), [])
        if len(seen) < 2:
            problems.append(f"{v.get('deliveryId')}: {len(seen)} request(s), no retry")
            continue
        if len({(r.get("webhookId"), r.get("digest")) for r in seen}) != 1:
            problems.append(f"{v.get('deliveryId')}: the retry changed event id or body")
        numbers = [int(r.get("attempt") or 0) for r in seen]
        if numbers != sorted(numbers) or len(set(numbers)) != len(numbers):
            problems.append(f"{v.get('deliveryId')}: attempt numbers {numbers}")
    detail = f"{len(views)} deliveries: UNKNOWN_TRANSPORT, then retried with the same identity"
    return not problems, "; ".join(problems[:5]) or detail


def check_conflict(
    first: tuple[int, Mapping[str, Any]],
    second: tuple[int, Mapping[str, Any]],
    again: tuple[int, Mapping[str, Any]],
    deliveries_before: list[str],
    deliveries_after: list[str],
    conflicts_logged: int,
) -> Verdict:
    problems = []
    if first[0] != 202:
        problems.append(f"first ingest {first[0]}")
    if second[0] != 409 or second[1].get("code") != "event_payload_conflict":
        problems.append(f"other payload answered {second[0]} {second[1].get('code')}")
    if again[0] != 202 or sorted(d["deliveryId"] for d in again[1].get("deliveries", [])) != sorted(
        deliveries_before
    ):
        problems.append("the idempotent re-send did not return the same deliveries")
    if sorted(deliveries_after) != sorted(deliveries_before):
        problems.append(f"deliveries changed: {deliveries_before} -> {deliveries_after}")
    if conflicts_logged < 1:
        problems.append("no payload conflict recorded in the log")
    detail = (
        f"409 event_payload_conflict; {len(deliveries_after)} deliveries, none planned twice; "
        f"{conflicts_logged} conflict(s) in the log"
    )
    return not problems, "; ".join(problems) or detail


def check_forged_receipts(
    answers: list[tuple[str, int, str | None]],
    before: Mapping[str, Any],
    after: Mapping[str, Any],
) -> Verdict:
    """Every forged receipt refused (4xx, with a code); the delivery's evidence unchanged."""
    problems = [
        f"{name}: answered {status}" for name, status, _code in answers if not 400 <= status < 500
    ]
    keys = ("state", "evidence", "applicationReceipt", "attempts")
    if any(before.get(k) != after.get(k) for k in keys):
        problems.append(f"evidence moved: {before.get('evidence')} -> {after.get('evidence')}")
    codes = ", ".join(f"{name}={code}" for name, _s, code in answers)
    detail = f"{len(answers)} forged receipts refused ({codes}); evidence unchanged"
    return not problems, "; ".join(problems) or detail


def check_revoke_race(
    revoke_version: int | None,
    admissions: list[tuple[str, int, int | None]],
    views: list[Mapping[str, Any]],
) -> Verdict:
    """No attempt admitted after the revoke; every delivery accepted or quarantined.

    *admissions*: (delivery stream, generation, the subscription stream version the
    admission's fencing check saw). Admitted after the revoke = it saw the revoke's version
    or a later one (global positions are allocation order, not commit order: not usable)."""
    problems = []
    if revoke_version is None:
        problems.append("no revoke in the log")
    late = [
        a for a in admissions if revoke_version is None or a[2] is None or a[2] >= revoke_version
    ]
    if late:
        problems.append(f"{len(late)} attempt(s) admitted at or after the revoke: {late[:2]}")
    if any(g != 1 for _d, g, _v in admissions):
        problems.append("an admission for another generation")
    states: dict[str, int] = defaultdict(int)
    for v in views:
        states[str(v.get("state"))] += 1
    if set(states) - {"ENDPOINT_ACCEPTED", "APPLICATION_CONFIRMED", "QUARANTINED"}:
        problems.append(f"deliveries left in {dict(states)}")
    detail = (
        f"{len(admissions)} admission(s), each fenced before the revoke (version "
        f"{revoke_version}); " + ", ".join(f"{n} {s}" for s, n in sorted(states.items()))
    )
    return not problems, "; ".join(problems) or detail


# -- assertions over the whole run ------------------------------------------------------------


def check_generations_at_endpoints(
    records: Iterable[Mapping[str, Any]], endpoint_of: Mapping[tuple[str, str], str]
) -> Verdict:
    """Every signed request reached the route its (subscription, generation) was admitted for."""
    checked = 0
    wrong = []
    for r in records:
        sub, gen = r.get("subscription"), r.get("generation")
        if not sub or not gen:
            continue
        expected = endpoint_of.get((str(sub), str(gen)))
        if expected is None:
            continue
        checked += 1
        if r.get("route") != expected:
            wrong.append(f"{sub} gen {gen} at {r.get('route')} (expected {expected})")
    detail = f"{checked} requests, each at the endpoint of its own generation"
    return not wrong and checked > 0, "; ".join(wrong[:5]) or detail


def check_no_3xx_success(views: Iterable[Mapping[str, Any]]) -> Verdict:
    bad = [
        f"{v.get('deliveryId')} attempt {a.get('attempt')}"
        for v in views
        for a in v.get("attempts", [])
        if a.get("outcome") == "ENDPOINT_ACCEPTED" and 300 <= int(a.get("status") or 0) < 400
    ]
    return not bad, "; ".join(bad[:5]) or "no 3xx counted as accepted"


def check_second_effects(effects: Mapping[str, Mapping[str, int]]) -> Verdict:
    """Receipt subscriptions: each event applied at most once, whatever the retries."""
    twice = [f"{route}:{eid}x{n}" for route, m in effects.items() for eid, n in m.items() if n > 1]
    total = sum(len(m) for m in effects.values())
    return not twice, "; ".join(twice[:5]) or f"{total} applied events, none applied twice"


def check_dead_letter_owners(items: list[Mapping[str, Any]]) -> Verdict:
    orphans = [i.get("deliveryId") for i in items if not i.get("owner")]
    return not orphans, f"{len(orphans)} without owner" if orphans else (
        f"{len(items)} dead letter(s), each with an owner and a replay command"
    )


def check_nothing_lost(
    accepted: Mapping[str, list[str]],
    states: Mapping[str, str],
    effects: Mapping[str, Mapping[str, int]],
) -> Verdict:
    """Every event answered 202 is in the log, each of its deliveries reached acceptance,
    and each subscriber applied it.

    *accepted*: event id -> delivery ids from its 202; *states*: delivery id -> final state
    (missing: not found); *effects*: route -> event id -> applications."""
    missing = [d for ds in accepted.values() for d in ds if d not in states]
    unfinished = [d for ds in accepted.values() for d in ds if states.get(d, "") not in ACCEPTED]
    unapplied = [
        f"{route}:{eid}" for route, m in effects.items() for eid in accepted if not m.get(eid)
    ]
    problems = []
    if missing:
        problems.append(f"{len(missing)} delivery(ies) missing from the engine: {missing[:3]}")
    if unfinished:
        problems.append(f"{len(unfinished)} not accepted: {unfinished[:3]}")
    if unapplied:
        problems.append(f"{len(unapplied)} never applied at the subscriber: {unapplied[:3]}")
    n = sum(len(ds) for ds in accepted.values())
    detail = f"{len(accepted)} accepted events, {n} deliveries, all accepted and applied"
    return not problems, "; ".join(problems) or detail
