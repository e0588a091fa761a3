"""A gate's value as printed: a ratio of two rates as a ratio (1.244, not 124.4186%), a share
as a percentage, a count as a count."""

from __future__ import annotations

from hookproof.engine.rollouts.gate_result import GateResult


def test_values_are_printed_as_what_they_are() -> None:
    ratio = GateResult("rotation_acceptance", "t", "pass", 1.244186, ">= 0.9995", unit="ratio")
    assert ratio.shown() == "1.244"
    assert GateResult("unknown_reconciled", "t", "pass", 0.5, ">= 99%").shown() == "50.0000%"
    assert GateResult("dead_letters", "t", "pass", 3, "= 0").shown() == "3"
    assert GateResult("x", "t", "n/a", None, "= 0", unit="ratio").shown() == "-"
