"""Filters (issue 50): what a compiled filter costs per event, in this process.

1. CESQL: the TCK's typical expressions (subscriptions_api_recreations.yaml,
   spec_examples.yaml), compiled once, then ``matches`` (the filter's answer) and
   ``evaluate`` (value and error) per event; target: under 20 us for the typical one
   (``id LIKE 'my%' AND source LIKE '%.ca'``). Also the one-off parse and compile.
2. JSON match (Hookdeck's syntax): a typical document over a hookproof event's
   ``{id, topic, time, metadata, data}``.
3. A whole ``filters`` array (prefix + sql + match) over a hookproof event, with and
   without building the event's filter view (the attribute mapping) per call.
4. 10,000 subscriptions, each with its own equality on one field (half ``exact`` on
   ``subject``, half ``match`` on ``data.customer``): the subscriptions an event matches,
   found through ``FilterIndex`` against checking every subscription's filters.

Each figure: the median and the best of ``--repeats`` timings of ``--loops`` calls, in
microseconds per call. Writes bench/results/s15_filters.json. Not a test.

    .venv/bin/python bench/bench_filters.py
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from hookproof.engine.filters import (
    FilterIndex,
    compile_cesql,
    compile_filters,
    compile_match,
    from_hookproof_event,
)

RESULTS = Path(__file__).resolve().parent / "results" / "s15_filters.json"

#: (name, expression, attributes): from the TCK, with a matching event
CESQL_CASES: list[tuple[str, str, dict[str, Any]]] = [
    (
        "typical: prefix AND suffix (subscriptions_api_recreations)",
        "id LIKE 'my%' AND source LIKE '%.ca'",
        {"specversion": "1.0", "id": "myId", "source": "http://www.some-website.ca", "type": "t"},
    ),
    (
        "spec example: int(hop) < int(ttl) and int(hop) < 1000",
        "int(hop) < int(ttl) and int(hop) < 1000",
        {"specversion": "1.0", "id": "1", "source": "s", "type": "t", "hop": "5", "ttl": "10"},
    ),
    (
        "spec example: implicit cast, sequence = 5",
        "sequence = 5",
        {"specversion": "1.0", "id": "1", "source": "s", "type": "t", "sequence": "5"},
    ),
    (
        "conjunctive normal form (subscriptions_api_recreations)",
        "(id = 'myId' OR type LIKE '%.success') AND "
        "(id = 'notmyId' OR source LIKE 'https://%' OR type LIKE '%.warning')",
        {
            "specversion": "1.0",
            "id": "myId",
            "type": "example.event.warning",
            "source": "http://localhost.localdomain",
        },
    ),
    (
        "missing attribute (an error: false)",
        "myext LIKE 'custom%'",
        {"specversion": "1.0", "id": "1", "source": "s", "type": "t"},
    ),
]

WIRE = {
    "eventId": "evt_01HZX3",
    "topic": "order.created",
    "version": "2",
    "aggregateId": "order-9",
    "aggregateVersion": 3,
    "occurredAt": "2026-12-07T10:00:00Z",
    "payload": {
        "orderId": "order-9",
        "total": 120,
        "currency": "EUR",
        "customer": {"id": "c_1", "tier": "gold", "country": "DE"},
        "items": [{"sku": f"sku-{i}", "qty": i + 1, "price": 10 * (i + 1)} for i in range(8)],
    },
}
MATCH_DOCUMENT = {
    "topic": {"$startsWith": "order."},
    "data": {
        "total": {"$gte": 100},
        "customer": {"tier": {"$in": ["gold", "platinum"]}},
        "items": {"sku": "sku-7"},
    },
}
FILTERS = [
    {"prefix": {"type": "order."}},
    {"sql": "aggregateversion >= 1 AND subject LIKE 'order-%'"},
    {"match": {"data": {"total": {"$gte": 100}, "currency": "EUR"}}},
]


def _time(fn: Callable[[], object], loops: int, repeats: int) -> dict[str, float]:
    fn()
    per_call = []
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(loops):
            fn()
        per_call.append((time.perf_counter() - start) / loops * 1e6)
    return {"median_us": round(statistics.median(per_call), 3), "best_us": round(min(per_call), 3)}


def _many(loops: int, repeats: int) -> dict[str, Any]:
    subscriptions = []
    for i in range(10_000):
        if i % 2:
            filters = [{"exact": {"subject": f"order-{i}"}}]
        else:
            filters = [{"match": {"data": {"customer": {"id": f"c_{i}"}}}}]
        subscriptions.append((f"sub_{i}", compile_filters(filters)))
    index: FilterIndex[str] = FilterIndex()
    for key, filters in subscriptions:
        index.add(key, filters)
    wire = {**WIRE, "aggregateId": "order-4001", "payload": {**WIRE["payload"]}}
    wire["payload"]["customer"] = {"id": "c_4000", "tier": "gold", "country": "DE"}
    event = from_hookproof_event(wire, tenant_id="acme")

    def everyone() -> list[str]:
        return [key for key, filters in subscriptions if filters.matches(event)]

    assert index.matching(event) == everyone() == ["sub_4000", "sub_4001"]
    few = max(loops // 1000, 3)
    return {
        "subscriptions": len(subscriptions),
        "matched": index.matching(event),
        "index_matching": _time(lambda: index.matching(event), loops, repeats),
        "check_everyone": _time(everyone, few, repeats),
        "index_build": _time(
            lambda: [FilterIndex().add(k, f) for k, f in subscriptions[:1000]], 3, repeats
        ),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--loops", type=int, default=20_000)
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()
    loops, repeats = args.loops, args.repeats
    out: dict[str, Any] = {
        "when": datetime.now(UTC).isoformat(timespec="seconds"),
        "python": sys.version.split()[0],
        "machine": platform.machine(),
        "cpus": os.cpu_count(),
        "loadavg_before": list(os.getloadavg()),
        "loops": loops,
        "repeats": repeats,
        "cesql": [],
    }
    for name, text, attributes in CESQL_CASES:
        expression = compile_cesql(text)
        out["cesql"].append(
            {
                "name": name,
                "expression": text,
                "result": repr(expression.evaluate(attributes)),
                "matches": _time(lambda e=expression, a=attributes: e.matches(a), loops, repeats),
                "evaluate": _time(lambda e=expression, a=attributes: e.evaluate(a), loops, repeats),
                "parse_and_compile": _time(
                    lambda t=text: compile_cesql(t), max(loops // 10, 1), repeats
                ),
            }
        )
    event = from_hookproof_event(WIRE, tenant_id="acme")
    document = compile_match(MATCH_DOCUMENT)
    assert document.matches(event.document)
    out["match"] = {
        "document": MATCH_DOCUMENT,
        "matches": _time(lambda: document.matches(event.document), loops, repeats),
        "compile": _time(lambda: compile_match(MATCH_DOCUMENT), max(loops // 10, 1), repeats),
    }
    compiled = compile_filters(FILTERS)
    assert compiled.matches(event)
    out["filters_array"] = {
        "filters": FILTERS,
        "matches": _time(lambda: compiled.matches(event), loops, repeats),
        "evaluate": _time(lambda: compiled.evaluate(event), loops, repeats),
        "view_and_matches": _time(
            lambda: compiled.matches(from_hookproof_event(WIRE, tenant_id="acme")),
            loops,
            repeats,
        ),
    }
    out["ten_thousand_subscriptions"] = _many(loops, repeats)
    out["loadavg_after"] = list(os.getloadavg())
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(out, indent=2) + "\n")
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
