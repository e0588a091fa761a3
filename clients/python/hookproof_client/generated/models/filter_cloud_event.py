from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset







T = TypeVar("T", bound="FilterCloudEvent")



@_attrs_define
class FilterCloudEvent:
    """ A CloudEvent in the JSON format, as filters read it: its attributes (a value that is not a Boolean, 32-bit Integer
    or String reads as its JSON text) and data

        Attributes:
            id (str):
            source (str):
            specversion (Any):
            type_ (str):
     """

    id: str
    source: str
    specversion: Any
    type_: str





    def to_dict(self) -> dict[str, Any]:
        id = self.id

        source = self.source

        specversion = self.specversion

        type_ = self.type_


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "id": id,
            "source": source,
            "specversion": specversion,
            "type": type_,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        id = d.pop("id")

        source = d.pop("source")

        specversion = d.pop("specversion")

        type_ = d.pop("type")

        filter_cloud_event = cls(
            id=id,
            source=source,
            specversion=specversion,
            type_=type_,
        )

        return filter_cloud_event

