from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset







T = TypeVar("T", bound="RolloutInternalFigures")



@_attrs_define
class RolloutInternalFigures:
    """ 
        Attributes:
            dual_signed (int):
     """

    dual_signed: int





    def to_dict(self) -> dict[str, Any]:
        dual_signed = self.dual_signed


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "dualSigned": dual_signed,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        dual_signed = d.pop("dualSigned")

        rollout_internal_figures = cls(
            dual_signed=dual_signed,
        )

        return rollout_internal_figures

