from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset







T = TypeVar("T", bound="OrderingGap")



@_attrs_define
class OrderingGap:
    """ Aggregate versions given up after ``waitedS`` seconds.

        Attributes:
            from_ (int):
            to (int):
            waited_s (float):
     """

    from_: int
    to: int
    waited_s: float





    def to_dict(self) -> dict[str, Any]:
        from_ = self.from_

        to = self.to

        waited_s = self.waited_s


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "from": from_,
            "to": to,
            "waitedS": waited_s,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        from_ = d.pop("from")

        to = d.pop("to")

        waited_s = d.pop("waitedS")

        ordering_gap = cls(
            from_=from_,
            to=to,
            waited_s=waited_s,
        )

        return ordering_gap

