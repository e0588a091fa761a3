from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset







T = TypeVar("T", bound="RolloutShadowFigures")



@_attrs_define
class RolloutShadowFigures:
    """ 
        Attributes:
            checked (int):
            mismatches (int):
     """

    checked: int
    mismatches: int





    def to_dict(self) -> dict[str, Any]:
        checked = self.checked

        mismatches = self.mismatches


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "checked": checked,
            "mismatches": mismatches,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        checked = d.pop("checked")

        mismatches = d.pop("mismatches")

        rollout_shadow_figures = cls(
            checked=checked,
            mismatches=mismatches,
        )

        return rollout_shadow_figures

