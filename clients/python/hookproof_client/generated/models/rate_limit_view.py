from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset







T = TypeVar("T", bound="RateLimitView")



@_attrs_define
class RateLimitView:
    """ 
        Attributes:
            burst (int):
            per_second (float):
     """

    burst: int
    per_second: float





    def to_dict(self) -> dict[str, Any]:
        burst = self.burst

        per_second = self.per_second


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "burst": burst,
            "perSecond": per_second,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        burst = d.pop("burst")

        per_second = d.pop("perSecond")

        rate_limit_view = cls(
            burst=burst,
            per_second=per_second,
        )

        return rate_limit_view

