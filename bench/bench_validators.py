"""Which JSON Schema validator for event types: jsonschema-rs, fastjsonschema, jsonschema.

Three questions, each answered by measurement in this process:

1. JSON Schema 2020-12: does the validator give the right verdict on schemas that use
   2020-12 keywords (``prefixItems``, ``unevaluatedProperties``, ``dependentRequired``,
   ``$defs`` with ``$ref``, ``items`` after ``prefixItems``)? Each case: a schema, an instance
   that must pass and one that must fail.
2. Pattern safety: ``^(a+)+$`` against ``"a" * n + "!"``; a backtracking engine (Python's
   ``re``, which fastjsonschema and jsonschema use) doubles its time per extra character.
3. Speed: the benchmark order (bench/event_type_payloads.py, ~1 KiB, 15 constrained fields),
   valid and invalid, microseconds per call after compiling once.

Writes bench/results/s6_validators.json. Not a test.

    .venv/bin/python bench/bench_validators.py
"""

from __future__ import annotations

import json
import multiprocessing
import os
import platform
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from event_type_payloads import ORDER_SCHEMA, order_payload

RESULTS = Path(__file__).resolve().parent / "results" / "s6_validators.json"

CASES_2020_12: list[tuple[str, dict[str, Any], Any, Any]] = [
    (
        "prefixItems",
        {"type": "array", "prefixItems": [{"type": "integer"}, {"type": "string"}]},
        [1, "a"],
        ["a", 1],
    ),
    (
        "items after prefixItems",
        {"prefixItems": [{"type": "integer"}], "items": {"type": "string"}},
        [1, "a", "b"],
        [1, "a", 2],
    ),
    (
        "unevaluatedProperties",
        {
            "allOf": [{"properties": {"a": {"type": "integer"}}}],
            "unevaluatedProperties": False,
        },
        {"a": 1},
        {"a": 1, "b": 2},
    ),
    (
        "dependentRequired",
        {"dependentRequired": {"card": ["billing"]}},
        {"card": 1, "billing": 2},
        {"card": 1},
    ),
    (
        "$defs and $ref",
        {"$defs": {"pos": {"type": "integer", "minimum": 1}}, "$ref": "#/$defs/pos"},
        3,
        0,
    ),
]


def _compilers() -> dict[str, Any]:
    import fastjsonschema
    import jsonschema
    import jsonschema_rs

    def rs(schema: dict[str, Any]) -> Any:
        return jsonschema_rs.Draft202012Validator(
            schema, pattern_options=jsonschema_rs.RegexOptions(), offline=True
        ).is_valid

    def fast(schema: dict[str, Any]) -> Any:
        validate = fastjsonschema.compile(schema)

        def ok(instance: Any) -> bool:
            try:
                validate(instance)
                return True
            except fastjsonschema.JsonSchemaException:
                return False

        return ok

    def js(schema: dict[str, Any]) -> Any:
        return jsonschema.Draft202012Validator(schema).is_valid

    return {"jsonschema-rs": rs, "fastjsonschema": fast, "jsonschema": js}


def support() -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, compile_ in _compilers().items():
        rows = {}
        for case, schema, good, bad in CASES_2020_12:
            try:
                ok = compile_(schema)
                rows[case] = "right" if ok(good) and not ok(bad) else "WRONG verdict"
            except Exception as exc:
                rows[case] = f"error: {type(exc).__name__}"
        out[name] = {"cases": rows, "right": sum(v == "right" for v in rows.values())}
    return out


def _one_pattern(name: str, n: int, q: Any) -> None:
    ok = _compilers()[name]({"type": "string", "pattern": "^(a+)+$"})
    t = time.perf_counter()
    ok("a" * n + "!")
    q.put(time.perf_counter() - t)


def patterns(timeout_s: float = 10.0) -> dict[str, Any]:
    """Each run in a child process that is ended after ``timeout_s``."""
    out: dict[str, Any] = {}
    ctx = multiprocessing.get_context("fork")
    for name in _compilers():
        rows = {}
        for n in (18, 20, 22, 24, 100_000):
            q = ctx.Queue()
            p = ctx.Process(target=_one_pattern, args=(name, n, q))
            p.start()
            p.join(timeout_s)
            if p.is_alive():
                p.kill()
                p.join()
                rows[str(n)] = f">{timeout_s:.0f} s (killed)"
                break
            rows[str(n)] = f"{q.get() * 1000:.2f} ms"
        out[name] = rows
    return out


def speed(n: int = 5000) -> dict[str, Any]:
    out: dict[str, Any] = {}
    schema = {k: v for k, v in ORDER_SCHEMA.items() if k != "$schema"}  # fastjsonschema: 07
    payloads = [order_payload(i) for i in range(500)]
    bad = {**payloads[0], "currency": "XXX", "total": -1}
    for name, compile_ in _compilers().items():
        try:
            ok = compile_(ORDER_SCHEMA if name != "fastjsonschema" else schema)
        except Exception as exc:
            out[name] = f"error: {type(exc).__name__}"
            continue
        assert all(ok(p) for p in payloads[:10]) and not ok(bad), name
        best_valid = best_invalid = float("inf")
        for _ in range(3):  # best of three: the machine is shared
            t = time.perf_counter()
            for i in range(n):
                ok(payloads[i % 500])
            best_valid = min(best_valid, (time.perf_counter() - t) / n * 1e6)
            t = time.perf_counter()
            for _ in range(n // 5):
                ok(bad)
            best_invalid = min(best_invalid, (time.perf_counter() - t) / (n // 5) * 1e6)
        out[name] = {"valid_us": round(best_valid, 2), "invalid_us": round(best_invalid, 2)}
    return out


def main() -> None:
    import fastjsonschema
    import jsonschema
    import jsonschema_rs

    result = {
        "benchmark": "s6_validators",
        "when": datetime.now(UTC).isoformat(timespec="seconds"),
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version()},
        "load_avg_1m": os.getloadavg()[0],
        "versions": {
            "jsonschema-rs": getattr(jsonschema_rs, "__version__", "0.60"),
            "fastjsonschema": fastjsonschema.VERSION,
            "jsonschema": getattr(jsonschema, "__version__", "?"),
        },
        "support_2020_12": support(),
        "catastrophic_pattern": patterns(),
        "order_payload_speed": speed(),
    }
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
