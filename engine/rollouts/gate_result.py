"""What a release gate reports (shared by the log's gates and the rollouts' gates)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = ["FAIL", "NA", "PASS", "UNOBSERVABLE", "GateResult"]

PASS, FAIL, NA, UNOBSERVABLE = "pass", "fail", "n/a", "UNOBSERVABLE"


@dataclass
class GateResult:
    name: str
    title: str
    status: str  # pass | fail | n/a | UNOBSERVABLE
    value: float | int | None
    threshold: str
    detail: dict[str, Any] = field(default_factory=dict)
    examples: list[str] = field(default_factory=list)
    #: what ``value`` is: ``share`` (a part of a whole, 0..1: shown as a percentage),
    #: ``ratio`` (one rate over another, may pass 1: shown as a plain number) or a count
    unit: str = "share"

    def shown(self) -> str:
        """``value`` for people: a share as a percentage, a ratio as a ratio, a count."""
        if self.value is None:
            return "-"
        if isinstance(self.value, int) or self.unit == "count":
            return str(self.value)
        if self.unit == "ratio":
            return f"{self.value:.3f}"
        return f"{self.value:.4%}"

    def to_json(self) -> dict[str, Any]:
        return {
            "gate": self.name,
            "title": self.title,
            "status": self.status,
            "value": self.value,
            "threshold": self.threshold,
            "detail": self.detail,
            "examples": self.examples,
        }
