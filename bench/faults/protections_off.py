"""Each fault scenario's protection switched off, one at a time: the tests named for it fail.

For every scenario of the campaign this applies a small edit to the engine (or SDK) source
that removes the protection (e.g. 3xx taken as a response and counted as success, the deny
list ignoring private addresses, the JWKS dropping VERIFY_ONLY keys), runs the tests that
prove the protection, records whether they failed, and writes the original source back.
Results: ``bench/results/faults_protections_off.json``; exit 1 if any test still passes
with its protection off, or an edit no longer applies (the source moved: update the edit).

    .venv/bin/python bench/faults/protections_off.py     # ~2 minutes; uses the test database

It refuses to run when a file it would edit has uncommitted changes. Never run it in CI next
to other jobs that import the source tree.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "bench" / "results" / "faults_protections_off.json"

Edit = tuple[str, str, str]  # file, original text (must occur once), replacement

SWITCHES: list[tuple[str, str, list[Edit], list[str]]] = [
    (
        "replayed challenge answer",
        "the bound fields challengeId, nonce and expiresAt are no longer compared",
        [
            (
                "engine/challenge/protocol.py",
                "    for name in CHECK_ORDER:\n        value = doc[name]",
                "    for name in [n for n in CHECK_ORDER if n not in "
                "('challengeId', 'nonce', 'expiresAt')]:\n        value = doc[name]",
            )
        ],
        ["tests/challenge/test_failures.py::test_earlier_valid_answer_replayed_to_a_new_challenge"],
    ),
    (
        "replayed challenge answer",
        "a consumed challenge is not refused",
        [
            (
                "engine/challenge/service.py",
                "        if challenge.challenge_id in state.consumed_challenges:\n",
                "        if False:\n",
            )
        ],
        ["tests/challenge/test_failures.py::test_replay_to_the_same_consumed_challenge"],
    ),
    (
        "DNS flipped to a private address",
        "the deny list lets every address through",
        [
            (
                "engine/egress/policy.py",
                "            if reason is not None:\n                denied.append",
                "            if reason is not None and False:\n                denied.append",
            )
        ],
        [
            "tests/challenge/test_drift.py::"
            "test_rebinding_to_a_denied_range_suspends_before_any_connect"
        ],
    ),
    (
        "307 to another host",
        "a 3xx is an ordinary response and counts as success",
        [
            ("engine/egress/result.py", "200 <= self.status < 300", "200 <= self.status < 400"),
            (
                "engine/egress/failures.py",
                "return Outcome.REDIRECT if 300 <= status < 400 else Outcome.RESPONSE",
                "return Outcome.RESPONSE",
            ),
            (
                "engine/egress/adapter.py",
                "        if wire.location is not None:\n            wire.code = FailureCode.REDIRECT",
                "        if False:\n            wire.code = FailureCode.REDIRECT",
            ),
        ],
        [
            "tests/delivery/test_ledger.py::test_3xx_is_a_failure_and_location_is_never_contacted",
            "tests/egress/test_egress_transport.py::test_redirect_is_failure_and_never_followed",
        ],
    ),
    (
        "late old worker",
        "no generation fencing at admission, and the sender takes the current endpoint",
        [
            (
                "engine/delivery/claim.py",
                'endpoint=record["endpoint"],',
                'endpoint=config.get("endpoint", record["endpoint"]),',
            ),
            (
                "engine/delivery/admission.py",
                "if row.generation != row.sub_generation and not (",
                "if False and not (",
            ),
        ],
        [
            "tests/delivery/test_races.py::"
            "test_generation_change_racing_the_dispatcher_never_reaches_the_new_endpoint"
        ],
    ),
    (
        "half the daemons on the old key",
        "the JWKS stops publishing VERIFY_ONLY keys",
        [
            (
                "engine/keys/jwks.py",
                "_PUBLISHED = (KeyState.NOT_BEFORE, KeyState.ACTIVE, KeyState.VERIFY_ONLY)",
                "_PUBLISHED = (KeyState.NOT_BEFORE, KeyState.ACTIVE)",
            )
        ],
        ["tests/keys/test_jwks_and_verify.py::test_rotation_half_old_half_new_until_window_ends"],
    ),
    (
        "proxy re-encodes the JSON",
        "the verifier skips the Content-Digest comparison",
        [
            (
                "subscriber/hookproof_subscriber/sigv1.py",
                'if not verify_content_digest(hdrs["content-digest"], bytes(body)):',
                "if False:",
            )
        ],
        ["tests/sig/test_reasons.py::test_proxy_re_encoding_json_is_digest_mismatch"],
    ),
    (
        "2xx then the work is lost",
        "application CONFIRMED inferred from a 2xx",
        [
            (
                "engine/delivery/views.py",
                '    if application == "CONFIRMED":',
                '    if application == "CONFIRMED" or accepted:',
            )
        ],
        ["tests/e2e/test_ladder.py::test_2xx_without_enqueue_then_redelivery_applies_exactly_once"],
    ),
    (
        "2xx lost on the way back",
        "a lost response is recorded as an ordinary failure",
        [
            (
                "engine/delivery/outcome.py",
                'kind = "UNKNOWN_TRANSPORT" if error.unknown else "RETRYABLE"',
                'kind = "RETRYABLE"',
            )
        ],
        [
            "tests/delivery/test_ledger.py::test_lost_response_is_unknown_transport_then_same_identity"
        ],
    ),
    (
        "same event id, other payload",
        "the payload digest of a known event id is not compared",
        [("engine/ingest/ingest.py", 'if row["payload_digest"] != digest:', "if False:")],
        [
            "tests/delivery/test_ledger.py::"
            "test_same_event_id_other_payload_is_409_and_nothing_planned_twice"
        ],
    ),
    (
        "forged receipts",
        "a receipt whose signature does not verify is accepted",
        [("engine/receipts/service.py", '        if verdict.reason != "ok":', "        if False:")],
        [
            "tests/receipts/test_receive.py::"
            "test_forged_receipts_are_refused_with_their_reason_and_move_nothing"
        ],
    ),
    (
        "revoke races the dispatchers",
        "admission ignores a closed subscription and a changed generation",
        [
            ("engine/delivery/admission.py", "    if row.sub_state in TERMINAL:\n", "    if False:\n"),
            (
                "engine/delivery/admission.py",
                "if row.generation != row.sub_generation and not (",
                "if False and not (",
            ),
        ],
        [
            "tests/delivery/test_races.py::"
            "test_admission_waits_for_an_uncommitted_revoke_and_then_refuses"
        ],
    ),
]


def dirty(files: list[str]) -> bool:
    r = subprocess.run(["git", "diff", "--quiet", "HEAD", "--", *files], cwd=ROOT, check=False)
    return r.returncode != 0


def run_one(scenario: str, switch: str, edits: list[Edit], tests: list[str]) -> dict[str, object]:
    files = sorted({f for f, _, _ in edits})
    originals = {f: (ROOT / f).read_text() for f in files}
    entry: dict[str, object] = {"scenario": scenario, "switchedOff": switch, "tests": tests}
    try:
        texts = dict(originals)
        for f, old, new in edits:
            if texts[f].count(old) != 1:
                entry.update(applied=False, failedWithoutProtection=False, output=f"{f}: moved")
                return entry
            texts[f] = texts[f].replace(old, new)
        for f, text in texts.items():
            (ROOT / f).write_text(text)
        r = subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *tests],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=600,
            check=False,
        )
        lines = r.stdout.strip().splitlines()
        entry.update(
            applied=True,
            failedWithoutProtection=r.returncode != 0,
            output=lines[-1] if lines else "",
        )
        return entry
    finally:
        for f, text in originals.items():
            (ROOT / f).write_text(text)


def main() -> int:
    files = sorted({f for _s, _w, edits, _t in SWITCHES for f, _o, _n in edits})
    if dirty(files):
        print(f"refusing: uncommitted changes in {files}")
        return 2
    results = []
    for scenario, switch, edits, tests in SWITCHES:
        entry = run_one(scenario, switch, edits, tests)
        results.append(entry)
        verdict = "fails without it" if entry["failedWithoutProtection"] else "NOT SHOWN"
        print(f"{scenario:<36} {verdict:<16} {switch}: {entry['output']}", flush=True)
    RESULTS.write_text(json.dumps({"switches": results}, indent=2) + "\n")
    shown = {r["scenario"] for r in results if r["failedWithoutProtection"]}
    missing = {s for s, *_ in SWITCHES} - shown
    print(f"{len(shown)}/11 scenarios shown to fail with their protection off; {RESULTS.name}")
    return 1 if missing or any(not r["failedWithoutProtection"] for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())
