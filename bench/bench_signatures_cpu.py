"""Per-operation CPU time of hookproof.sig.v1 sign/verify, ours and the library's.

Process CPU time (best of several repeats) is steadier than wall-clock rates on a shared
machine. Run it once per tree to compare (``PYTHONPATH=<old>/subscriber`` for a before
run); each run adds one entry under ``--label`` in the JSON file.

    python bench/bench_signatures_cpu.py --label after [--gate 30000] [--out PATH]

``--gate N`` also runs N mutations of the release gate in this process and projects the
1,000,000-mutation gate's time on two idle workers from their CPU time.
"""

from __future__ import annotations

import argparse
import datetime
import json
import time
import timeit
from pathlib import Path
from typing import Any

from bench_signatures import HEADERS, NOW, URL, _body, _keys, _worker

import hookproof_subscriber as hs


def _cpu_us(fn: Any, number: int = 300, repeat: int = 7) -> float:
    best = min(timeit.repeat(fn, number=number, repeat=repeat, timer=time.process_time))
    return round(best / number * 1e6, 1)


def measure(with_library: bool) -> dict[str, Any]:
    keys, resolver = _keys()
    body = _body(0)
    out: dict[str, Any] = {}
    headers = dict(HEADERS)
    created = datetime.datetime.fromtimestamp(NOW, datetime.UTC)
    for key in (keys[0], keys[2]):
        signed = dict(headers)
        signed.update(
            hs.sign_request(
                "POST", URL, headers, body, key=key, created=NOW, expires=NOW + 300, nonce="n1"
            )
        )
        row = {
            "sign_cpu_us": _cpu_us(
                lambda key=key: hs.sign_request(
                    "POST", URL, headers, body, key=key, created=NOW, expires=NOW + 300, nonce="n1"
                )
            ),
            "verify_cpu_us": _cpu_us(
                lambda signed=signed: hs.verify_request(
                    "POST", URL, signed, body, keys=resolver, now=NOW
                )
            ),
        }
        if with_library:
            from hookproof_subscriber.hms import LibraryMessage, library_signer, library_verify

            signer = library_signer(key)

            def lib_sign(signer: Any = signer, key: Any = key) -> None:
                signer.sign(
                    LibraryMessage("POST", URL, dict(headers)),
                    key_id=key.key_id,
                    created=created,
                    expires=created + datetime.timedelta(seconds=300),
                    nonce="n1",
                    label="hookproof",
                    tag="hookproof.sig.v1",
                    covered_component_ids=hs.PROFILE_COMPONENTS,
                    body=body,
                )

            vkey = key.verification_key()
            row["library_sign_cpu_us"] = _cpu_us(lib_sign, number=100)
            row["library_verify_cpu_us"] = _cpu_us(
                lambda signed=signed, vkey=vkey: library_verify(
                    "POST", URL, signed, label="hookproof", tag="hookproof.sig.v1", key=vkey
                ),
                number=100,
            )
        for name in list(row):
            row[name.replace("_cpu_us", "_per_cpu_s")] = round(1e6 / row[name])
        out[key.alg] = row
    return out


def gate_cpu(count: int) -> dict[str, Any]:
    t0 = time.process_time()
    part = _worker((0, count))
    cpu = time.process_time() - t0
    return {
        "mutations": count,
        "cpu_s": round(cpu, 2),
        "mutations_per_cpu_s": round(count / cpu),
        "accepted": len(part["accepted"]),
        "exceptions": part["errors"],
        "unmutated_controls_verified": f"{part['controls']}/{part['control_total']}",
        "projected_1m_seconds_two_idle_workers": round(1_000_000 / (2 * count / cpu), 1),
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--label", required=True)
    ap.add_argument(
        "--out",
        type=Path,
        default=Path(__file__).resolve().parent / "results" / "signatures_cpu.json",
    )
    ap.add_argument("--gate", type=int, default=0, help="mutations to run for the gate CPU")
    ns = ap.parse_args()
    doc = json.loads(ns.out.read_text()) if ns.out.exists() else {}
    doc.setdefault("benchmark", "hookproof.sig.v1 sign/verify CPU time per operation")
    doc.setdefault("body_bytes", 1024)
    doc[ns.label] = {
        "module": hs.__file__,
        "results": measure(_has_hms()),
        **({"mutation_gate_cpu": gate_cpu(ns.gate)} if ns.gate else {}),
        "finished_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }
    text = json.dumps(doc, indent=2)
    print(text)
    ns.out.parent.mkdir(parents=True, exist_ok=True)
    ns.out.write_text(text + "\n")
    return 0


def _has_hms() -> bool:
    try:
        import hookproof_subscriber.hms  # noqa: F401
    except ImportError:
        return False
    return True


if __name__ == "__main__":
    raise SystemExit(main())
