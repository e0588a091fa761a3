from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset






T = TypeVar("T", bound="EventTypeVersionIn")



@_attrs_define
class EventTypeVersionIn:
    """ One major version of an event type: a JSON Schema 2020-12 and an example payload
    (required; JSON ``null`` is an example too).

        Attributes:
            schema (Any):
            example (Any | Unset):
     """

    schema: Any
    example: Any | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        schema = self.schema

        example = self.example


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "schema": schema,
        })
        if example is not UNSET:
            field_dict["example"] = example

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        schema = d.pop("schema")

        example = d.pop("example", UNSET)

        event_type_version_in = cls(
            schema=schema,
            example=example,
        )

        return event_type_version_in

