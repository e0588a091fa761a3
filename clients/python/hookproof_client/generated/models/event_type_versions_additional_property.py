from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast

if TYPE_CHECKING:
  from ..models.event_type_versions_additional_property_schema_type_0 import EventTypeVersionsAdditionalPropertySchemaType0





T = TypeVar("T", bound="EventTypeVersionsAdditionalProperty")



@_attrs_define
class EventTypeVersionsAdditionalProperty:
    """ 
        Attributes:
            example (Any): a payload valid under the schema (any JSON)
            schema (bool | EventTypeVersionsAdditionalPropertySchemaType0): JSON Schema 2020-12: an object or a boolean
     """

    example: Any
    schema: bool | EventTypeVersionsAdditionalPropertySchemaType0





    def to_dict(self) -> dict[str, Any]:
        from ..models.event_type_versions_additional_property_schema_type_0 import EventTypeVersionsAdditionalPropertySchemaType0 # noqa: PLC0415
        example = self.example

        schema: bool | dict[str, Any]
        if isinstance(self.schema, EventTypeVersionsAdditionalPropertySchemaType0):
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
        from ..models.event_type_versions_additional_property_schema_type_0 import EventTypeVersionsAdditionalPropertySchemaType0 # noqa: PLC0415
        d = dict(src_dict)
        example = d.pop("example")

        def _parse_schema(data: object) -> bool | EventTypeVersionsAdditionalPropertySchemaType0:
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                schema_type_0 = EventTypeVersionsAdditionalPropertySchemaType0.from_dict(data)



                return schema_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(bool | EventTypeVersionsAdditionalPropertySchemaType0, data)

        schema = _parse_schema(d.pop("schema"))


        event_type_versions_additional_property = cls(
            example=example,
            schema=schema,
        )

        return event_type_versions_additional_property

