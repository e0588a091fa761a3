from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset







T = TypeVar("T", bound="RolloutSwitch")



@_attrs_define
class RolloutSwitch:
    """ 
        Attributes:
            at (str):
            percent (int):
     """

    at: str
    percent: int





    def to_dict(self) -> dict[str, Any]:
        at = self.at

        percent = self.percent


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "at": at,
            "percent": percent,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        at = d.pop("at")

        percent = d.pop("percent")

        rollout_switch = cls(
            at=at,
            percent=percent,
        )

        return rollout_switch

