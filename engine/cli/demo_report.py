"""``hookproof demo``'s report, kept to one screen (pure: text from what was read).

The evidence ladder is one line per subscriber and outcome (how many deliveries, one example
id to look up), not one line per delivery; the release gates are one line each, a ratio of two
rates shown as both rates and the one over the other as a percentage of the baseline.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from typing import Any

from ..rollouts.gate_result import GateResult

__all__ = ["gate_lines", "ladder_lines"]

_LADDER = ("to", "count", "state", "endpoint", "application", "keys", "e.g.")
_WIDTHS = (10, 5, 22, 18, 13, 15)


def _row(cols: Iterable[str]) -> str:
    cells = list(cols)
    padded = [c.ljust(w) for c, w in zip(cells, _WIDTHS, strict=False)]
    return "  " + "  ".join(padded + cells[len(_WIDTHS) :]).rstrip()


def ladder_lines(views: Iterable[Mapping[str, Any]], names: Mapping[str, str]) -> list[str]:
    """One line per (subscriber, state, endpoint evidence, application evidence), in the
    order first seen: the number of deliveries, the engine keys that signed their last
    attempts and one delivery id (``views``: ``GET /v1/deliveries/{id}`` documents)."""
    counts: Counter[tuple[str, str, str, str]] = Counter()
    keys: dict[tuple[str, str, str, str], set[str]] = {}
    example: dict[tuple[str, str, str, str], str] = {}
    for d in views:
        group = (
            names.get(d["subscriptionId"], "?"),
            d["state"],
            d["evidence"]["endpoint"],
            d["evidence"]["application"],
        )
        counts[group] += 1
        example.setdefault(group, d["deliveryId"])
        if d["attempts"]:
            keys.setdefault(group, set()).add(d["attempts"][-1]["keyId"][:6])
    lines = [_row(_LADDER)]
    for group, n in counts.items():
        shown = ",".join(sorted(keys.get(group, ()))) or "-"
        lines.append(_row([group[0], str(n), *group[1:], shown, example[group]]))
    return lines


def _percent(rate: Any) -> str:
    return "-" if rate is None else f"{float(rate):.1%}"


def gate_lines(results: Iterable[GateResult]) -> list[str]:
    """One line per gate: status, name, value and what it needs; a gate that is not a pass
    says what it measures; a ratio of rates says what the two rates were."""
    lines = []
    for g in results:
        value = g.shown()
        needs = g.threshold
        if g.unit == "ratio" and g.value is not None:
            value = f"{float(g.value):.1%}"
            needs = f"{needs.split()[0]} {float(needs.split()[-1]):.2%}"
        lines.append(f"  {g.status.upper():<12} {g.name:<40} {value:>8}  (needs {needs})")
        if g.unit == "ratio" and g.value is not None:
            inside, outside = g.detail.get("insideRate"), g.detail.get("baselineRate")
            lines.append(
                f"               accepted during key rotation {_percent(inside)},"
                f" outside it {_percent(outside)}"
            )
        elif g.status != "pass":
            lines.append(f"               {g.title}")
    return lines
