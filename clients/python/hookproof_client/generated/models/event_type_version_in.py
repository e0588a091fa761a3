from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast

if TYPE_CHECKING:
  from ..models.event_type_version_in_schema_type_0 import EventTypeVersionInSchemaType0





T = TypeVar("T", bound="EventTypeVersionIn")



@_attrs_define
class EventTypeVersionIn:
    """ One major version of an event type: a JSON Schema 2020-12 and an example payload
    (required; JSON ``null`` is an example too).

        Attributes:
            example (Any):
            schema (bool | EventTypeVersionInSchemaType0):
     """

    example: Any
    schema: bool | EventTypeVersionInSchemaType0





    def to_dict(self) -> dict[str, Any]:
        from ..models.event_type_version_in_schema_type_0 import EventTypeVersionInSchemaType0 # noqa: PLC0415
        example = self.example

        schema: bool | dict[str, Any]
        if isinstance(self.schema, EventTypeVersionInSchemaType0):
            schema = self.schema.to_dict()
        else:
            schema = self.schema


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "example": example,
            "schema": schema,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.event_type_version_in_schema_type_0 import EventTypeVersionInSchemaType0 # noqa: PLC0415
        d = dict(src_dict)
        example = d.pop("example")

        def _parse_schema(data: object) -> bool | EventTypeVersionInSchemaType0:
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                schema_type_0 = EventTypeVersionInSchemaType0.from_dict(data)



                return schema_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(bool | EventTypeVersionInSchemaType0, data)

        schema = _parse_schema(d.pop("schema"))


        event_type_version_in = cls(
            example=example,
            schema=schema,
        )

        return event_type_version_in

