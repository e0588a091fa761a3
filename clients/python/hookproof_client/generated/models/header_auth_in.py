from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.header_auth_in_type import HeaderAuthInType






T = TypeVar("T", bound="HeaderAuthIn")



@_attrs_define
class HeaderAuthIn:
    """ One static header sent with every request to the endpoint (reserved names refused).

        Attributes:
            name (str):
            type_ (HeaderAuthInType):
            value (str):
     """

    name: str
    type_: HeaderAuthInType
    value: str





    def to_dict(self) -> dict[str, Any]:
        name = self.name

        type_ = self.type_.value

        value = self.value


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "name": name,
            "type": type_,
            "value": value,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        name = d.pop("name")

        type_ = HeaderAuthInType(d.pop("type"))




        value = d.pop("value")

        header_auth_in = cls(
            name=name,
            type_=type_,
            value=value,
        )

        return header_auth_in

