from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset







T = TypeVar("T", bound="DeliveryFilters")



@_attrs_define
class DeliveryFilters:
    """ The filters that decided a delivery's planning (DESIGN.md section 16).

        Attributes:
            digest (str):
            held (bool):
     """

    digest: str
    held: bool





    def to_dict(self) -> dict[str, Any]:
        digest = self.digest

        held = self.held


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "digest": digest,
            "held": held,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        digest = d.pop("digest")

        held = d.pop("held")

        delivery_filters = cls(
            digest=digest,
            held=held,
        )

        return delivery_filters

