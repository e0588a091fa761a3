from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast






T = TypeVar("T", bound="RolloutCutoverFigures")



@_attrs_define
class RolloutCutoverFigures:
    """ 
        Attributes:
            acceptance (float | None):
            attempts (int):
            baseline_acceptance (float | None):
            baseline_attempts (int):
            covered (int):
            decided_attempts (int):
            dual_signed (int):
            switched (int):
     """

    acceptance: float | None
    attempts: int
    baseline_acceptance: float | None
    baseline_attempts: int
    covered: int
    decided_attempts: int
    dual_signed: int
    switched: int





    def to_dict(self) -> dict[str, Any]:
        acceptance: float | None
        acceptance = self.acceptance

        attempts = self.attempts

        baseline_acceptance: float | None
        baseline_acceptance = self.baseline_acceptance

        baseline_attempts = self.baseline_attempts

        covered = self.covered

        decided_attempts = self.decided_attempts

        dual_signed = self.dual_signed

        switched = self.switched


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "acceptance": acceptance,
            "attempts": attempts,
            "baselineAcceptance": baseline_acceptance,
            "baselineAttempts": baseline_attempts,
            "covered": covered,
            "decidedAttempts": decided_attempts,
            "dualSigned": dual_signed,
            "switched": switched,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        def _parse_acceptance(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        acceptance = _parse_acceptance(d.pop("acceptance"))


        attempts = d.pop("attempts")

        def _parse_baseline_acceptance(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        baseline_acceptance = _parse_baseline_acceptance(d.pop("baselineAcceptance"))


        baseline_attempts = d.pop("baselineAttempts")

        covered = d.pop("covered")

        decided_attempts = d.pop("decidedAttempts")

        dual_signed = d.pop("dualSigned")

        switched = d.pop("switched")

        rollout_cutover_figures = cls(
            acceptance=acceptance,
            attempts=attempts,
            baseline_acceptance=baseline_acceptance,
            baseline_attempts=baseline_attempts,
            covered=covered,
            decided_attempts=decided_attempts,
            dual_signed=dual_signed,
            switched=switched,
        )

        return rollout_cutover_figures

